// The event log in plain words, newest at the bottom; re-worded when the language changes.

import { t } from "../i18n";
import type { GameEvent } from "../types";
import { eventText } from "../words";
import { fill, h } from "./dom";

interface Entry {
  seq: number;
  event: GameEvent;
}

const KEEP = 400;
const TONE: Record<string, string> = {
  died: "bad", destroyed: "bad", exploded: "bad", storm: "bad", lost: "bad", sublimated: "warn",
  exposure: "warn", storm_forecast: "warn", gate_destroyed: "bad", haywire: "warn", won: "good",
  mined: "good", robot_built: "good", gates_built: "good", gate_placed: "good", round: "round",
};

export class EventLog {
  readonly el: HTMLElement;
  private readonly list = h("ol", { class: "log", "aria-live": "polite", "aria-relevant": "additions", tabindex: "0" });
  private readonly entries: Entry[] = [];

  constructor() {
    this.el = h("section", { class: "panel log-panel", "aria-labelledby": "log-title" },
      h("h2", { id: "log-title" }, t("log.title")), this.list);
    this.list.addEventListener("wheel", () => this.later());
    this.list.addEventListener("keydown", () => this.later());
    this.list.addEventListener("pointerdown", () => this.later());
  }

  /** Whether the log follows new entries: until the player scrolls up to read, and again once back down. */
  private stick = true;

  private follow(): void {
    if (!this.stick) return;
    this.list.scrollTop = this.list.scrollHeight;
    // The panels above may change height with the same update: follow again once they are laid out.
    requestAnimationFrame(() => {
      if (this.stick) this.list.scrollTop = this.list.scrollHeight;
    });
  }

  add(seq: number, events: GameEvent[]): void {
    for (const event of events) {
      if (event.type === "waited" && events.length > 6) continue; // robots waiting say little
      this.entries.push({ seq, event });
      this.list.appendChild(this.row(event));
    }
    while (this.entries.length > KEEP) {
      this.entries.shift();
      this.list.firstElementChild?.remove();
    }
    this.follow();
  }

  private row(e: GameEvent): HTMLElement {
    if (e.type === "round") return h("li", { class: "round" }, h("span", {}, t("log.round", { round: Number(e.round) })));
    return h("li", { class: `tone-${TONE[e.type] ?? "plain"}` }, eventText(e));
  }

  /** After the player scrolled by hand: follow only when the log is at its bottom. */
  private later(): void {
    window.setTimeout(() => {
      this.stick = this.list.scrollTop + this.list.clientHeight >= this.list.scrollHeight - 30;
    }, 150);
  }

  /** All events seen so far (for summaries). */
  get events(): GameEvent[] {
    return this.entries.map((e) => e.event);
  }

  relabel(): void {
    const title = this.el.querySelector("h2");
    if (title) title.textContent = t("log.title");
    fill(this.list, ...this.entries.map((e) => this.row(e.event)));
    this.follow();
  }
}
