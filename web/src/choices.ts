// What a settler can do now, in the shape of the server's `choices` message (Game.choices → Choices.to_json):
// every action, legal or refused with its refusal, plus the dangers a player needs (reactions, storms). The
// screen reads only this; `localChoices` builds it from the client's own rules until a server sends it.

import type { Model } from "./model";
import { choices as ruleChoices, destinations as ruleDestinations } from "./rules";
import { reactsAt } from "./sun";
import type { Kind } from "./types";

export type ActionName = "move" | "drill" | "mine" | "deposit" | "build_robot" | "build_gates" | "place" | "wait";

export interface Refusal {
  code: string;
  /** Values for the translated sentence (`refusal.<code>`). */
  params: Record<string, unknown>;
  /** The engine's English sentence (absent from the client's own refusals). */
  message?: string;
}

export interface Danger {
  core: "ice" | "uranium";
  /** 0: near the Sun now; n > 0: comes near in n rounds. */
  in_rounds: number;
}

export interface Choice {
  action: ActionName;
  target?: string;
  kind?: Kind;
  gate?: string;
  refusal: Refusal | null;
  /** A drill that would expose ice or uranium near the Sun now or soon. */
  danger?: Danger;
}

export interface Reaction {
  core: string;
  effect: "explodes" | "sublimates";
  /** Rounds until it reacts; 0: at this round's end. */
  in_rounds: number;
}

export interface StormChoice {
  round: number;
  in_rounds: number;
  in_path: boolean;
  sheltered: boolean;
}

export interface Choices {
  settler: string;
  round: number;
  choices: Choice[];
  reactions: Record<string, Reaction>;
  storms: StormChoice[];
}

/** The settler's choices worked out here (until the server sends them). */
export function localChoices(model: Model, settler: string): Choices {
  const s = model.settlers.get(settler);
  const here = s?.at ? model.asteroids.get(s.at) : undefined;
  const list: Choice[] = [];
  for (const d of ruleDestinations(model, settler)) list.push(d);
  for (const c of ruleChoices(model, settler)) {
    if (c.action === "place" && !c.gate) continue; // the contract lists one place per carried gate only
    list.push(c);
  }
  const reactions: Record<string, Reaction> = {};
  const ids = here ? [here.id, ...(here.neighbours ?? [])] : [];
  for (const id of ids) {
    const a = model.asteroids.get(id);
    if (!a) continue;
    const r = reactionOf(model, id);
    if (r) reactions[a.id] = r;
  }
  const storms = model.view.forecasts.map((f) => ({
    round: f.round,
    in_rounds: f.round - model.round,
    in_path: Boolean(here && f.asteroids.includes(here.id)),
    sheltered: Boolean(here?.shelter),
  }));
  return { settler, round: model.round, choices: list, reactions, storms };
}

/** How an asteroid's exposed reactive core will react, from the view's `reacts_at` (or the orbit when the
 * server does not send it). */
export function reactionOf(model: Model, id: string): Reaction | null {
  const a = model.asteroids.get(id);
  if (!a || !a.exists || a.mantle !== 0 || (a.core !== "ice" && a.core !== "uranium")) return null;
  const at = "reacts_at" in a ? a.reacts_at ?? null : reactsAt(a, model.round, model.view.options.uranium_fuse);
  if (at === null) return null;
  return { core: a.core, effect: a.core === "uranium" ? "explodes" : "sublimates", in_rounds: Math.max(0, at - model.round) };
}

/** The move entries of a settler's choices. */
export function moves(c: Choices | null): Choice[] {
  return c ? c.choices.filter((x) => x.action === "move") : [];
}

/** The other entries (the action bar's). */
export function actions(c: Choices | null): Choice[] {
  return c ? c.choices.filter((x) => x.action !== "move") : [];
}
