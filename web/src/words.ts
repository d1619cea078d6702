// Plain words for the things of the game, in the current language: events for the log, refusals for the
// action bar, names of kinds, settlers and seats.

import { has, t } from "./i18n";
import type { Refusal } from "./choices";
import type { GameEvent } from "./types";

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
  const p: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(r.params)) p[k] = typeof v === "number" ? v : String(v);
  if (typeof p.kind === "string") {
    p.kind_acc = kindName(p.kind, "acc");
    p.kind = kindName(p.kind);
  }
  if (typeof p.core === "string") p.core = coreName(p.core);
  if (typeof p.turn === "string" && p.turn) p.turn = settlerSubject(p.turn);
  if (typeof p.lack === "string") {
    p.lack = p.lack
      .split(",")
      .map((part) => {
        const [n, kind] = part.split(" ");
        return `${n} ${kindName(kind ?? "")}`;
      })
      .join(t("list.and"));
  }
  if (typeof p.what === "string") p.what = t(`build.${p.what}`);
  if (typeof p.status === "string") p.status = t(`status.${p.status}`);
  const key = `refusal.${r.code}`;
  return has(key) ? t(key, p) : r.message ?? r.code;
}

/** The sentence for an error the server sent: by its code when known, else the server's own words. */
export function serverErrorText(code: string, message: string): string {
  const key = `error.${code}`;
  return has(key) ? t(key) : message;
}
