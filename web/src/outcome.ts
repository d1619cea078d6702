// What the action bar says besides why an action is refused: what the player's own action just did (the
// server's events of that step, in words, with what followed from it), the warning about a drill that would
// expose ice or uranium near the Sun, and the warning about a bare core that is about to react under the
// settler whose step it is. Words only: the engine judges (choices, the view's `reacts_at`), this reads.

import { t } from "./i18n";
import type { Danger } from "./choices";
import { reactionOf } from "./choices";
import type { Model } from "./model";
import { CARGO_LIMIT, KINDS, type GameEvent } from "./types";
import { coreName, eventText, kindName } from "./words";

/** How a part of the message is shown: done (green ✓), bad news that followed (amber ⚠), a warning (amber ⚠),
 * a note (no mark), a refusal (red ✗). */
export type Tone = "done" | "news" | "danger" | "note" | "refused" | "info" | "unavailable";

export interface Part {
  text: string;
  tone: Tone;
}

/** The events that are the action itself (the first of them by the actor is what it did). */
const ACTS = new Set(["moved", "drilled", "mined", "deposited", "robot_built", "gates_built", "gate_placed", "waited"]);

/** What followed from an action that a player must hear at once (the log has everything). */
const NEWS = new Set(["sublimated", "exploded", "died", "destroyed", "storm", "won", "lost"]);

/** The most sentences of news told beside an action's outcome (the rest are in the log). */
const MAX_NEWS = 2;

/** An action's outcome: what it did, in words, and the asteroid it concerns (for the map's highlight). */
export interface Outcome {
  parts: Part[];
  /** The asteroid the action concerns (where it drilled, mined, built; where the settler flew), or null. */
  at: string | null;
}

/** The outcome of `actor`'s action from the events of its step and the view after it. */
export function outcomeOf(events: GameEvent[], actor: string, model: Model): Outcome {
  const act = events.find((e) => e.actor === actor && ACTS.has(e.type));
  const parts: Part[] = [];
  let at: string | null = model.settlers.get(actor)?.at ?? null;
  if (act) {
    parts.push({ text: actText(act, actor, events, model), tone: "done" });
    const where = typeof act.asteroid === "string" ? act.asteroid : typeof act.target === "string" ? act.target : null;
    if (where && model.asteroids.has(where)) at = where;
  }
  const news = events.filter((e) => NEWS.has(e.type)).slice(0, MAX_NEWS);
  for (const e of news) parts.push({ text: eventText(e), tone: e.type === "won" ? "done" : "news" });
  // A core bared now that the Sun will reach later: when (closer than WARN_ROUNDS, the warning says it instead).
  if (act?.type === "drilled" && act.after === 0 && typeof act.asteroid === "string") {
    const r = reactionOf(model, act.asteroid);
    if (r && r.in_rounds > WARN_ROUNDS) {
      parts.push({ text: t(`warn.here_${r.core}`, { asteroid: act.asteroid, when: whenText(r.in_rounds) }), tone: "note" });
    }
  }
  return { parts, at };
}

/** The core a drill bared: as the view shows it after the step, unless the Sun took it in the same step (bare
 * ice boiled away leaves a hollow core; bare uranium blew the asteroid up). */
function bared(asteroid: string, events: GameEvent[], model: Model): string {
  for (const e of events) {
    if (e.asteroid !== asteroid) continue;
    if (e.type === "sublimated") return "ice";
    if (e.type === "exploded") return "uranium";
  }
  return model.asteroids.get(asteroid)?.core ?? "unknown";
}

function actText(e: GameEvent, actor: string, events: GameEvent[], model: Model): string {
  const p: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(e)) if (typeof v === "string" || typeof v === "number") p[k] = v;
  if (typeof e.kind === "string") {
    p.kind = kindName(e.kind);
    p.kind_acc = kindName(e.kind, "acc");
  }
  switch (e.type) {
    case "moved":
      return t(e.via ? "done.moved_gate" : "done.moved", p);
    case "drilled": {
      if (e.after !== 0) return t("done.drilled", p);
      const core = bared(String(e.asteroid), events, model);
      return t("done.drilled_through", { ...p, core: coreName(core), kind: kindName(core) });
    }
    case "mined": {
      const cargo = model.settlers.get(actor)?.cargo;
      const n = cargo ? KINDS.reduce((sum, k) => sum + (cargo[k] ?? 0), 0) : 0;
      return t("done.mined", { ...p, n, limit: CARGO_LIMIT });
    }
    case "gate_placed":
      return t(e.active ? "done.gate_placed_active" : "done.gate_placed", p);
    default:
      return t(`done.${e.type}`, p);
  }
}

/** A drill's danger needs a second press when the bare core would react before the driller can mine it: near
 * the Sun now (it reacts at once), or next round (at this round's end). Later, the drill only says when. */
export function needsConfirm(d: Danger): boolean {
  return d.in_rounds <= 1;
}

/** The words of a drill's danger (`asteroid`: where the settler stands). */
export function dangerText(d: Danger, asteroid: string): string {
  const when = d.in_rounds === 0 ? "now" : d.in_rounds === 1 ? "next" : "later";
  return t(`warn.${d.core}_${when}`, { asteroid, n: d.in_rounds });
}

/** "at the end of this round", "at the end of the next round", "in 3 rounds". */
export function whenText(inRounds: number): string {
  return inRounds <= 0 ? t("when.now") : inRounds === 1 ? t("when.next") : t("when.in", { n: inRounds });
}

/** How many rounds ahead a bare core's reaction under the settler is told: close enough to be the next thing to
 * do about it, early enough to still do it (a step this round and each of the next two). */
export const WARN_ROUNDS = 2;

/** The warning about the settler's own asteroid: its bare ice or uranium reacts within `WARN_ROUNDS` rounds, and
 * what to do (mine it now when the rules allow; for uranium, else to leave). Null when nothing is that close. */
export function warningHere(model: Model, settler: string, canMine: boolean): string | null {
  const at = model.settlers.get(settler)?.at;
  if (!at) return null;
  const r = reactionOf(model, at);
  if (!r || r.in_rounds > WARN_ROUNDS) return null;
  const key = `warn.here_${r.core}${canMine ? "_mine" : ""}`;
  return t(key, { asteroid: at, when: whenText(r.in_rounds) });
}
