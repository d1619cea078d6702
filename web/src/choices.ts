// What a settler can do now, as the server sends it (`choices` in `state` and `update`, from Game.choices):
// every action, legal or refused with its refusal, plus the dangers a player needs (reactions, storms). The
// engine is the one judge: the screen shows these and judges nothing itself.

import type { Model } from "./model";
import type { Choices, Danger, Reaction, Refusal } from "./protocol";
import type { Kind } from "./types";

export type { Choices, Danger, Reaction, Refusal, StormOutlook } from "./protocol";

export type ActionName = Choices["choices"][number]["action"];

/** One entry of a settler's choices, as the screen reads it (each entry of the protocol's union is one). */
export interface Choice {
  action: ActionName;
  target?: string;
  kind?: Kind;
  gate?: string;
  refusal: Refusal | null;
  /** A drill that would expose ice or uranium near the Sun now or soon. */
  danger?: Danger;
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
  return c ? (c.choices as Choice[]).filter((x) => x.action === "move") : [];
}

/** The other entries (the action bar's). */
export function actions(c: Choices | null): Choice[] {
  return c ? (c.choices as Choice[]).filter((x) => x.action !== "move") : [];
}
