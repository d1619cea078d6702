// Plain words for the things of the game, in the current language: events for the log, refusals for the
// action bar, names of kinds, settlers and seats.

import { has, t } from "./i18n";
import type { Refusal } from "./choices";
import { type GameEvent, KINDS } from "./types";

/** A material's name ("ice", "jég"); `form` picks a grammatical form where the language needs it. */
export function kindName(kind: string, form: "" | "acc" = ""): string {
  const key = form ? `kind_${form}.${kind}` : `kind.${kind}`;
  return has(key) ? t(key) : kind;
}

export function coreName(core: string): string {
  return t(`core.${core}`);
}

/** "s3" → "3": the number shown on a settler's token. */
export function settlerNumber(id: string): string {
  const m = /\d+$/.exec(id);
  return m ? m[0] : id.slice(0, 2).toUpperCase();
}

export function settlerName(id: string): string {
  return t("settler.name", { n: settlerNumber(id), id });
}

/** The Hungarian definite article before a number written in digits ("az 1.", "a 2.", "az 5."). */
export function hunArticle(n: number): string {
  const lead = String(Math.abs(Math.trunc(n)));
  const vowel = n === 1 || lead.startsWith("5") || (n >= 1000 && n < 2000);
  return vowel ? "az" : "a";
}

/** A settler as the subject of a sentence ("Settler 3", "a 3. telepes"). */
export function settlerSubject(id: string): string {
  const n = settlerNumber(id);
  return t("settler.subject", { n, id, art: hunArticle(Number(n)) });
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A bot's name in the current language ("Planner bot", "Tervező bot"). */
export function botName(bot: string): string {
  return has(`bot.${bot}`) ? t(`bot.${bot}`) : bot;
}

export function seatName(seat: number): string {
  return t("seat.name", { seat });
}

function list(ids: unknown): string {
  const arr = Array.isArray(ids) ? (ids as string[]) : [];
  return arr.length <= 8 ? arr.join(", ") : t("log.many_asteroids", { n: arr.length });
}

function actorName(id: unknown): string {
  const s = String(id ?? "");
  if (/^s\d+$/.test(s)) return settlerSubject(s);
  return s;
}

/** An event as a sentence for the log. */
export function eventText(e: GameEvent): string {
  return capitalise(eventSentence(e));
}

function eventSentence(e: GameEvent): string {
  const p: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(e)) if (typeof v === "string" || typeof v === "number") p[k] = v;
  if (e.actor !== undefined) p.actor = actorName(e.actor);
  if (typeof e.kind === "string") {
    p.kind = kindName(e.kind);
    p.kind_acc = kindName(e.kind, "acc");
  }
  switch (e.type) {
    case "moved":
      return t(e.via ? "log.moved_gate" : "log.moved", p);
    case "storm_forecast":
      return t("log.storm_forecast", { ...p, where: list(e.asteroids), round_art: `${hunArticle(Number(e.round))} ${e.round}` });
    case "storm":
      return t("log.storm", { where: list(e.asteroids) });
    case "died":
      return t(e.cause === "storm" ? "log.died_storm" : "log.died_explosion", p);
    case "destroyed":
      return t(e.cause === "storm" ? "log.destroyed_storm" : "log.destroyed_explosion", p);
    case "gate_placed":
      return t(e.active ? "log.gate_placed_active" : "log.gate_placed", p);
    case "sun":
      return t(e.near ? "log.sun_near" : "log.sun_far", p);
    default: {
      const key = `log.${e.type}`;
      return has(key) ? t(key, p) : e.type;
    }
  }
}

/** The sentence for a refusal that the client's mirror of the rules produced. */
export function refusalText(r: Refusal): string {
  const raw = r.params;
  const p: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(raw)) p[k] = typeof v === "number" ? v : Array.isArray(v) ? v.join(", ") : String(v);
  if (typeof raw.kind === "string") {
    p.kind_acc = kindName(raw.kind, "acc");
    p.kind = r.code === "cannot_do" || r.code === "dead" || r.code === "not_an_actor" ? raw.kind : kindName(raw.kind);
  }
  if (typeof raw.core === "string") p.core = coreName(raw.core);
  if (typeof raw.turn === "string" && raw.turn) p.turn = settlerSubject(raw.turn);
  if (typeof raw.actor === "string" && /^s\d+$/.test(raw.actor)) p.actor = settlerSubject(raw.actor);
  if (typeof raw.mantle === "number") p.n = raw.mantle;
  if (typeof raw.build === "string") {
    p.what = t(`build.${raw.build}`);
    const lack = KINDS.filter((k) => typeof raw[k] === "number" && (raw[k] as number) > 0)
      .map((k) => `${raw[k] as number} ${kindName(k)}`);
    p.lack = lack.join(t("list.and"));
  }
  if (typeof raw.status === "string") p.status = t(`status.${raw.status}`);
  const key = `refusal.${r.code}`;
  return has(key) ? t(key, p) : r.message ?? r.code;
}

/** The sentence for an error the server sent: by its code when known, else the server's own words. */
export function serverErrorText(code: string, message: string): string {
  const key = `error.${code}`;
  return has(key) ? t(key) : message;
}
