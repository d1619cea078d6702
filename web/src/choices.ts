// What a settler can do now, as the server sends it (`choices` in `state` and `update`, from Game.choices):
// every action, legal or refused with its refusal, plus the dangers a player needs (reactions, storms). The
// engine is the one judge: the screen shows these and judges nothing itself.

import type { Model } from "./model";
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

/** How an asteroid's exposed reactive core will react, from the view's `reacts_at` (the engine's). */
export function reactionOf(model: Model, id: string): Reaction | null {
  const a = model.asteroids.get(id);
  if (!a || !a.exists || a.reacts_at == null || (a.core !== "ice" && a.core !== "uranium")) return null;
  return { core: a.core, effect: a.core === "uranium" ? "explodes" : "sublimates", in_rounds: Math.max(0, a.reacts_at - model.round) };
}

/** The places a settler could fly to, read from the view, for a screen that has no choices of that settler
 * (a spectator's, or another browser's settler): shown, never judged. */
export function viewMoves(model: Model, settler: string): Choice[] {
  const s = model.settlers.get(settler);
  const here = s?.alive && s.at ? model.asteroids.get(s.at) : undefined;
  if (!here) return [];
  return [...here.neighbours ?? [], ...here.gates ?? []].map((target) => ({ action: "move" as const, target, refusal: null }));
}

/** The move entries of a settler's choices. */
export function moves(c: Choices | null): Choice[] {
  return c ? c.choices.filter((x) => x.action === "move") : [];
}

/** The other entries (the action bar's). */
export function actions(c: Choices | null): Choice[] {
  return c ? c.choices.filter((x) => x.action !== "move") : [];
}
