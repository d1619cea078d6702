// The event log: the game's whole history (from the server on load, reload and for late spectators, then every
// update), grouped by round, filterable by settler, re-worded when the language changes. Nothing is dropped.

import { t } from "../i18n";
import type { GameEvent } from "../types";
import { eventText, settlerName } from "../words";
import { fill, h } from "./dom";

/** One accepted command's events. */
export interface LogStep {
  seq: number;
  events: GameEvent[];
}

/** A round of the log: its number and the events played in it, in order. */
export interface RoundGroup {
  round: number;
  events: GameEvent[];
}

const TONE: Record<string, string> = {
  died: "bad", destroyed: "bad", exploded: "bad", storm: "bad", lost: "bad", sublimated: "warn",
  exposure: "warn", storm_forecast: "warn", gate_destroyed: "bad", haywire: "warn", won: "good",
  mined: "good", robot_built: "good", gates_built: "good", gate_placed: "good",
};

/** The settlers an event is about: its actor, when a settler (a death, a drill, a move...; the protocol's events
 * name a settler nowhere else). */
export function eventSettlers(e: GameEvent): string[] {
  return typeof e.actor === "string" && /^s\d+$/.test(e.actor) ? [e.actor] : [];
}

/** Steps (in any order, duplicates allowed) folded into rounds: a `round` event opens the next round. */
export function groupByRound(steps: Iterable<LogStep>, firstRound = 1): RoundGroup[] {
  const sorted = [...new Map([...steps].map((s) => [s.seq, s])).values()].sort((a, b) => a.seq - b.seq);
  const groups: RoundGroup[] = [{ round: firstRound, events: [] }];
  for (const step of sorted) {
    for (const e of step.events) {
      if (e.type === "round") {
        groups.push({ round: Number(e.round), events: [] });
        continue;
      }
      groups[groups.length - 1]!.events.push(e);
    }
  }
  return groups.filter((g, i) => g.events.length > 0 || i === groups.length - 1);
}

export class EventLog {
  readonly el: HTMLElement;
  private readonly list = h("ol", { class: "log", "aria-live": "polite", "aria-relevant": "additions", tabindex: "0" });
  private readonly filter = h("select", { class: "log-filter", "aria-label": "filter" });
  private readonly steps = new Map<number, LogStep>();
  private settlers: string[] = [];
  private who = "";
  /** Whether the log follows new entries: until the player scrolls up to read, and again once back down. */
  private stick = true;

  constructor() {
    this.el = h("section", { class: "panel log-panel", "aria-labelledby": "log-title" },
      h("div", { class: "log-tools" }, h("h2", { id: "log-title" }, t("log.title")), h("span", { class: "spacer" }), this.filter),
      this.list);
    this.filter.addEventListener("change", () => {
      this.who = this.filter.value;
      this.render();
    });
    this.list.addEventListener("wheel", () => this.later());
    this.list.addEventListener("keydown", () => this.later());
    this.list.addEventListener("pointerdown", () => this.later());
  }

  /** The settlers the filter offers. */
  setSettlers(ids: string[]): void {
    if (ids.join() === this.settlers.join()) return;
    this.settlers = ids;
    this.drawFilter();
  }

  private drawFilter(): void {
    this.filter.setAttribute("aria-label", t("log.filter"));
    fill(this.filter, h("option", { value: "" }, t("log.everyone")),
      ...this.settlers.map((id) => h("option", { value: id, selected: id === this.who }, settlerName(id))));
    this.filter.value = this.who;
  }

  private following = false;

  /** Scrolls to the newest entry at the next frame, once (reading the list's height in the middle of an update
   * would force the browser to lay the whole page out an extra time). */
  private follow(): void {
    if (!this.stick || this.following) return;
    this.following = true;
    requestAnimationFrame(() => {
      this.following = false;
      if (this.stick) this.list.scrollTop = this.list.scrollHeight;
    });
  }

  /** The history from the server (every step up to some seq); merged with what updates brought meanwhile. */
  history(steps: LogStep[]): void {
    for (const s of steps) this.steps.set(s.seq, s);
    this.render();
  }

  /** One update's events. */
  add(seq: number, events: GameEvent[]): void {
    const last = Math.max(0, ...this.steps.keys());
    this.steps.set(seq, { seq, events });
    if (seq === last + 1 && this.list.lastElementChild) this.append(events);
    else this.render();
  }

  private shows(e: GameEvent): boolean {
    return !this.who || eventSettlers(e).includes(this.who);
  }

  private append(events: GameEvent[]): void {
    for (const e of events) {
      if (e.type === "round") this.list.appendChild(this.roundRow(Number(e.round)));
      else if (this.shows(e)) this.list.appendChild(this.row(e));
    }
    this.follow();
  }

  private render(): void {
    const rows: HTMLElement[] = [];
    for (const g of groupByRound(this.steps.values())) {
      rows.push(this.roundRow(g.round));
      for (const e of g.events) if (this.shows(e)) rows.push(this.row(e));
    }
    fill(this.list, ...rows);
    this.follow();
  }

  private roundRow(round: number): HTMLElement {
    return h("li", { class: "round", dataset: { round: String(round) } }, h("span", {}, t("log.round", { round })));
  }

  private row(e: GameEvent): HTMLElement {
    return h("li", { class: `tone-${TONE[e.type] ?? "plain"}`, dataset: { type: e.type } }, eventText(e));
  }

  /** After the player scrolled by hand: follow only when the log is at its bottom. */
  private later(): void {
    window.setTimeout(() => {
      this.stick = this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 30;
    }, 150);
  }

  /** Every event of the game so far, in order (for summaries). */
  get events(): GameEvent[] {
    return [...this.steps.values()].sort((a, b) => a.seq - b.seq).flatMap((s) => s.events);
  }

  relabel(): void {
    const title = this.el.querySelector("h2");
    if (title) title.textContent = t("log.title");
    this.drawFilter();
    this.render();
  }
}
