// What a settler can do now, as the server sends it (`choices` in `state` and `update`, from Game.choices):
// every action, legal or refused with its refusal, plus the dangers a player needs (reactions, storms). The
// engine is the one judge: the screen shows these and judges nothing itself.

import { ACTION_FIELDS, type ActionField, CHOICE_HINTS } from "./generated/actions";
import type { Model } from "./model";
import { type Choice as ProtocolChoice, type Choices, REACTIONS, type Reaction } from "./protocol";
import type { ActMessage } from "./types";

export type { Choices, Danger, Reaction, Refusal, StormOutlook } from "./protocol";

export type ActionName = keyof typeof ACTION_FIELDS;

/** One entry of a settler's choices: the protocol's union (one type per action), where a field of any action may
 * be read (`c.kind` of any entry): it is `undefined` for an action that does not have it. */
export type Choice = ProtocolChoice extends infer C
  ? C extends unknown ? C & { readonly [K in Exclude<ActionField, keyof C>]?: undefined } : never
  : never;

/** What an `act` carries besides its `type` and `ref` (those the connection adds). */
export type Act = ActMessage extends infer M ? (M extends unknown ? Omit<M, "type" | "ref"> : never) : never;

const HINTS: ReadonlySet<string> = new Set(CHOICE_HINTS);

/** The `act` that plays a choice: the entry exactly as the server offered it, every field of it but the hints for
 * the player (`refusal`, `danger`: the generated `CHOICE_HINTS`), for `settler`. Nothing is rebuilt: a field a new
 * action adds goes back as it came. */
export function actOf(settler: string, choice: Choice): Act {
  const act: Record<string, unknown> = { settler };
  for (const [field, value] of Object.entries(choice)) if (!HINTS.has(field) && value !== undefined) act[field] = value;
  return act as Act;
}

/** How an asteroid's exposed reactive core will react: as the server said in a settler's choices (`told`: its
 * `reactions`, for its asteroid and those one move away), else from the view's `reacts_at` (the engine's round)
 * and what the core's material does (the generated `REACTIONS`, from the rules). */
export function reactionOf(model: Model, id: string, told?: Readonly<Record<string, Reaction>> | null): Reaction | null {
  const said = told?.[id];
  if (said) return said;
  const a = model.asteroids.get(id);
  if (!a || !a.exists || a.reacts_at == null || !a.core) return null;
  const effect = REACTIONS[a.core as keyof typeof REACTIONS];
  if (!effect) return null;
  return { core: a.core as Reaction["core"], effect, in_rounds: Math.max(0, a.reacts_at - model.round) };
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

/** The entry a button of the action bar plays (`kind`: the deposit menu's material): the action's one entry; for
 * deposit without a kind, the first the rules accept (the menu then asks which); for place, the first carried
 * gate the rules accept. Undefined: the action is not in the choices (no gate carried to place). */
export function choiceFor(all: readonly Choice[], name: string, kind?: string): Choice | undefined {
  if (name === "deposit") {
    const deps = all.filter((c) => c.action === "deposit");
    return kind ? deps.find((c) => c.kind === kind) : deps.find((c) => !c.refusal) ?? deps[0];
  }
  if (name === "place") return all.find((c) => c.action === "place" && !c.refusal) ?? all.find((c) => c.action === "place");
  return all.find((c) => c.action === name);
}
