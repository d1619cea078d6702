// Full-screen cards over the game: the hot-seat hand-over, the win and loss screens with their summary, and
// the help (keyboard shortcuts and the legend of the map). Each traps nothing: Escape or its button closes it.

import { t } from "../i18n";
import { CORE_COLOUR, SEAT_COLOUR, css } from "../render/palette";
import type { GameEvent, Status } from "../types";
import { KINDS } from "../types";
import { kindName, seatName, settlerName } from "../words";
import { ICONS, coreIcon, fill, h, icon } from "./dom";
import { helpRows } from "./keymap";

export interface Summary {
  rounds: number;
  mined: Record<string, number>;
  deaths: { who: string; cause: string; where: string }[];
  robots: number;
  gates: number;
  explosions: number;
  storms: number;
  base: string | null;
}

export function summarise(events: GameEvent[], rounds: number): Summary {
  const s: Summary = { rounds, mined: { ice: 0, iron: 0, carbon: 0, uranium: 0 }, deaths: [], robots: 0, gates: 0,
    explosions: 0, storms: 0, base: null };
  for (const e of events) {
    switch (e.type) {
      case "mined":
        if (typeof e.actor === "string" && /^s\d+$/.test(e.actor)) s.mined[String(e.kind)] = (s.mined[String(e.kind)] ?? 0) + 1;
        break;
      case "died":
        s.deaths.push({ who: String(e.actor), cause: String(e.cause), where: String(e.asteroid) });
        break;
      case "robot_built":
        s.robots++;
        break;
      case "gates_built":
        s.gates++;
        break;
      case "exploded":
        s.explosions++;
        break;
      case "storm":
        s.storms++;
        break;
      case "won":
        s.base = String(e.asteroid);
        break;
      default:
        break;
    }
  }
  return s;
}

export class Overlay {
  readonly el = h("div", { class: "overlay", hidden: true, role: "dialog", "aria-modal": "true" });
  private onClose: (() => void) | null = null;
  kind: "handover" | "end" | "help" | null = null;

  get open(): boolean {
    return !this.el.hidden;
  }

  close(): void {
    if (this.el.hidden) return;
    this.el.hidden = true;
    this.kind = null;
    const fn = this.onClose;
    this.onClose = null;
    fn?.();
  }

  private show(kind: Overlay["kind"], card: HTMLElement, onClose: (() => void) | null): void {
    this.kind = kind;
    this.onClose = onClose;
    fill(this.el, card);
    this.el.hidden = false;
    this.el.setAttribute("aria-labelledby", "overlay-title");
    card.querySelector<HTMLElement>("[autofocus], button")?.focus();
  }

  /** Any card (a lesson's success); it stays until a button of its own leaves. */
  card(card: HTMLElement): void {
    this.show("end", card, null);
  }

  handover(seat: number, settler: string, at: string | null, seats: number[], onReady: () => void, onSkip: () => void): void {
    const card = h("div", { class: "card handover", style: { borderColor: seatCss(seat) } },
      h("div", { class: "eyebrow" }, t("handover.eyebrow")),
      h("div", { class: "handover-swatch", "aria-hidden": "true", style: { background: seatCss(seat) } }),
      h("h2", { id: "overlay-title" }, t("handover.pass", { seat: seatName(seat), colour: colourName(seat) })),
      h("p", {}, t("handover.text", { settler: settlerName(settler), at: at ?? "?" })),
      h("div", { class: "buttons" },
        h("button", { type: "button", class: "primary big", autofocus: true, onclick: () => this.close() },
          icon(ICONS.play), t("handover.ready"), h("kbd", {}, "Enter"))),
      h("label", { class: "check" },
        h("input", { type: "checkbox", onchange: (e: Event) => { if ((e.target as HTMLInputElement).checked) onSkip(); } }),
        t("handover.skip")),
      seatLegend(seats));
    this.show("handover", card, onReady);
  }

  /** The end of a game: won, lost, or abandoned by a player. */
  end(status: Status, summary: Summary, onReplay: (() => void) | null, onLobby: () => void): void {
    const won = status === "won";
    const end = status === "abandoned" ? "abandoned" : won ? "won" : "lost";
    const mined = KINDS.map((k) => h("div", { class: "stat-kind" }, coreIcon(k),
      h("strong", { style: { color: css(CORE_COLOUR[k]!) } }, String(summary.mined[k] ?? 0)), h("span", {}, kindName(k))));
    const total = KINDS.reduce((n, k) => n + (summary.mined[k] ?? 0), 0);
    const deaths = summary.deaths.length
      ? h("ul", { class: "deaths" }, ...summary.deaths.map((d) =>
        h("li", {}, t(d.cause === "storm" ? "end.death_storm" : "end.death_explosion", { who: settlerName(d.who), where: d.where }))))
      : h("p", { class: "muted" }, t("end.no_deaths"));
    const card = h("div", { class: `card end ${end === "won" ? "won" : "lost"} ${end}` },
      h("div", { class: "end-art", "aria-hidden": "true" }),
      h("div", { class: "eyebrow" }, t(`end.${end}_eyebrow`)),
      h("h2", { id: "overlay-title" }, t(`end.${end}`)),
      h("p", {}, won && summary.base ? t("end.won_text", { base: summary.base }) : t(won ? "end.won_text_plain" : `end.${end}_text`)),
      h("div", { class: "stats" },
        h("div", { class: "stat" }, h("strong", {}, String(summary.rounds)), h("span", {}, t("end.rounds", { n: summary.rounds }))),
        h("div", { class: "stat" }, h("strong", {}, String(total)), h("span", {}, t("end.mined", { n: total }))),
        h("div", { class: "stat" }, h("strong", {}, String(summary.deaths.length)), h("span", {}, t("end.deaths", { n: summary.deaths.length }))),
        h("div", { class: "stat" }, h("strong", {}, String(summary.explosions)), h("span", {}, t("end.explosions", { n: summary.explosions })))),
      h("div", { class: "mined" }, ...mined),
      h("h3", {}, t("end.deaths_title")),
      deaths,
      h("div", { class: "buttons" },
        onReplay ? h("button", { type: "button", class: "primary", onclick: onReplay }, icon(ICONS.replay), t("end.replay")) : null,
        h("button", { type: "button", onclick: () => this.close() }, icon(ICONS.eye), t("end.look")),
        h("button", { type: "button", onclick: onLobby }, icon(ICONS.back), t("end.lobby"))));
    this.show("end", card, null);
  }

  /** The help: touch gestures first on a touch screen (keys on a keyboard's), the map's legend, the players' colours. */
  help(seats: number[] = []): void {
    const touch = matchMedia("(pointer: coarse)").matches;
    const keys = helpRows();
    const gestures = h("div", {}, h("h3", {}, t("help.touch")),
      h("ul", { class: "legend gestures" }, ...["help.tap_asteroid", "help.tap_button", "help.drag", "help.pinch", "help.tabs"]
        .map((k) => h("li", {}, h("span", {}, t(k))))));
    const keyTable = h("div", {}, h("h3", {}, t("help.keys")),
      h("table", { class: "keys" }, ...keys.map(([k, label]) => h("tr", {}, h("td", {}, h("kbd", {}, k)), h("td", {}, t(label))))));
    const legend: [Node, string][] = [
      [coreIcon("ice"), "kind.ice"], [coreIcon("iron"), "kind.iron"], [coreIcon("carbon"), "kind.carbon"],
      [coreIcon("uranium"), "kind.uranium"], [coreIcon("hollow"), "core.hollow"], [coreIcon("unknown"), "core.unknown"],
      [h("span", { class: "legend-halo" }), "legend.near"], [h("span", { class: "legend-rings" }), "legend.mantle"],
      [icon(ICONS.shelter, "icon shelter-icon"), "legend.shelter"], [icon(ICONS.storm, "icon storm-icon"), "legend.storm"],
      [icon(ICONS.gates, "icon gate-icon"), "legend.gate"], [h("span", { class: "legend-robot" }, "R"), "legend.robot"],
    ];
    const card = h("div", { class: "card help" },
      h("h2", { id: "overlay-title" }, t("help.title")),
      h("div", { class: "help-cols" },
        touch ? gestures : keyTable,
        h("div", {}, h("h3", {}, t("help.legend")),
          h("ul", { class: "legend" }, ...legend.map(([ic, label]) => h("li", {}, ic, h("span", {}, t(label))))),
          h("p", { class: "small muted" }, t("help.glyphs")),
          seatLegend(seats),
          h("p", { class: "small muted" }, t("help.goal")))),
      h("div", { class: "buttons" }, h("button", { type: "button", class: "primary", onclick: () => this.close() }, t("help.close"))));
    this.show("help", card, null);
  }
}

function seatCss(seat: number): string {
  return css(SEAT_COLOUR[(seat - 1) % SEAT_COLOUR.length]!);
}

/** The name of a seat's colour ("blue"), said beside the colour itself. */
export function colourName(seat: number): string {
  return t(`colour.${(seat - 1) % SEAT_COLOUR.length}`);
}

/** Which colour is which player: a swatch, the player's name and the colour's name. */
function seatLegend(seats: number[]): HTMLElement | null {
  if (seats.length < 2) return null;
  return h("div", { class: "seat-legend" }, h("h3", {}, t("help.players")),
    h("ul", { class: "legend" }, ...seats.map((seat) => h("li", { dataset: { seat: String(seat) } },
      h("span", { class: "seat-swatch", style: { background: seatCss(seat) } }),
      h("span", {}, `${seatName(seat)} — ${colourName(seat)}`)))));
}
