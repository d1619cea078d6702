// The side panels of the game screen: the settler whose step it is (cargo, gates), the asteroid it stands on
// with the base's progress there, the places it can move to, the forecasts and every base in progress.

import { type Reaction, reactionOf } from "../choices";
import { getLang, t } from "../i18n";
import type { Model } from "../model";
import { css, SEAT_COLOUR } from "../render/palette";
import type { AsteroidView, SettlerView } from "../types";
import { CARGO_LIMIT, KINDS, WIN_TARGET } from "../types";
import { coreName, kindName, refusalText, seatName, settlerName, settlerNumber } from "../words";
import type { Controller, Ctx } from "./context";
import { ICONS, coreIcon, fill, h, icon } from "./dom";

/** A touch screen: the list's hint speaks of taps, not of keys (their badges are hidden there). */
const touch = (): boolean => window.matchMedia("(pointer: coarse)").matches;

export function token(id: string, seat: number, alive = true): HTMLElement {
  return h("span", {
    class: `token${alive ? "" : " dead"}`,
    style: { background: css(SEAT_COLOUR[seat % SEAT_COLOUR.length]!) },
    "aria-hidden": "true",
  }, settlerNumber(id));
}

/** "near the Sun · far in 2 rounds", "far · near in 3", "always far". */
export function sunText(model: Model, a: AsteroidView): string {
  const near = a.near === true;
  const change = a.next_change;
  if (change == null) return t(near ? "sun.always_near" : "sun.always_far");
  const n = change - model.round;
  return t(near ? "sun.near_for" : "sun.far_for", { n });
}

function sunBadge(model: Model, a: AsteroidView): HTMLElement {
  return h("span", { class: `badge sun ${a.near ? "near" : "far"}` }, icon(ICONS.sun), sunText(model, a));
}

/** "explodes in 3 rounds", "sublimates at this round's end". */
export function reactionText(r: Reaction): string {
  return r.in_rounds <= 0 ? t(`react.${r.effect}_now`) : t(`react.${r.effect}_in`, { n: r.in_rounds });
}

export function dangerBadge(model: Model, id: string): HTMLElement | null {
  const r = reactionOf(model, id);
  if (!r) return null;
  return h("span", { class: `badge danger-badge ${r.in_rounds <= 0 ? "now" : ""}`, dataset: { reacts: String(r.in_rounds) } },
    icon(ICONS.sun), reactionText(r));
}

function mantleText(a: AsteroidView): string {
  const m = a.mantle ?? 0;
  return m === 0 ? t("mantle.none") : t("mantle.layers", { n: m });
}

export function asteroidFacts(model: Model, a: AsteroidView, compact = false): HTMLElement {
  const core = a.core ?? "unknown";
  const storm = model.stormIn(a.id);
  const facts = h("div", { class: "facts" },
    h("span", { class: `badge core core-${core}` }, coreIcon(core), coreName(core)),
    dangerBadge(model, a.id),
    h("span", { class: "badge mantle" }, h("span", { class: "layers", "aria-hidden": "true" }), mantleText(a)),
    sunBadge(model, a),
    a.shelter ? h("span", { class: "badge shelter" }, icon(ICONS.shelter), t("shelter.yes")) : null,
    storm !== undefined ? h("span", { class: "badge storm" }, icon(ICONS.storm), storm <= 0 ? t("storm.now") : t("storm.in", { n: storm })) : null,
    !compact && (a.exposures ?? 0) > 0
      ? h("span", { class: "badge warn" }, t("fuse.count", { n: a.exposures ?? 0, fuse: model.view.options.uranium_fuse }))
      : null,
  );
  return facts;
}

/** Pooled cargo of the settlers on an asteroid against 3 of every kind (R14). */
export function baseProgress(model: Model, id: string): HTMLElement {
  const pooled = model.pooled(id);
  const rows = KINDS.map((k) => {
    const n = pooled[k];
    const done = n >= WIN_TARGET;
    const pips = [];
    for (let i = 0; i < WIN_TARGET; i++) pips.push(h("span", { class: `pip ${i < n ? "on" : ""}` }));
    return h("div", { class: `need ${done ? "done" : ""}`, title: `${kindName(k)} ${n}/${WIN_TARGET}` },
      coreIcon(k), h("span", { class: "pips", "aria-hidden": "true" }, ...pips),
      h("span", { class: "num" }, `${Math.min(n, 99)}/${WIN_TARGET}`));
  });
  const total = KINDS.reduce((s, k) => s + Math.min(WIN_TARGET, pooled[k]), 0);
  return h("div", { class: "progress", role: "group", "aria-label": t("base.aria", { id, n: total, of: WIN_TARGET * 4 }) }, ...rows);
}

export class SettlerPanel {
  readonly el = h("section", { class: "panel settler-panel", "aria-labelledby": "settler-title" });

  update(ctx: Ctx): void {
    const s = ctx.current ?? this.mine(ctx);
    if (!s) {
      fill(this.el, h("h2", { id: "settler-title" }, t("settler.none")));
      return;
    }
    const seat = ctx.seatOf(s.id);
    const total = KINDS.reduce((n, k) => n + (s.cargo[k] ?? 0), 0);
    const cargo = KINDS.map((k) =>
      h("div", { class: `cargo-item ${s.cargo[k] ? "" : "zero"}`, title: kindName(k) },
        coreIcon(k), h("span", { class: "n" }, String(s.cargo[k] ?? 0)), h("span", { class: "k" }, kindName(k))));
    const gates = s.gates.length
      ? s.gates.map((g) => h("span", { class: "badge gate" }, icon(ICONS.gates), g))
      : [h("span", { class: "muted" }, t("gates.none"))];
    // The step badge only where that settler is played; a spectator sees that it is watching.
    const isTurn = ctx.current?.id === s.id && ctx.mySettlers.has(s.id);
    fill(this.el,
      h("div", { class: "who" },
        token(s.id, seat, s.alive),
        h("div", {},
          h("h2", { id: "settler-title" }, settlerName(s.id)),
          h("div", { class: "muted" }, `${seatName(seat + 1)} · ${s.at ? t("settler.on", { at: s.at }) : t("settler.dead")}`)),
        isTurn ? h("span", { class: "turn-flag" }, t("turn.now"))
          : ctx.spectator ? h("span", { class: "badge watch" }, t("watch.badge")) : null),
      h("div", { class: "cargo-head" }, h("span", {}, t("cargo.title")),
        h("span", { class: `cap ${total >= CARGO_LIMIT ? "full" : ""}` }, `${total}/${CARGO_LIMIT}`)),
      // in a box of its own: the cargo's columns follow the panel's width (a container query, style.css)
      h("div", { class: "cargo-box" }, h("div", { class: "cargo" }, ...cargo)),
      h("div", { class: "gates-row" }, h("span", { class: "muted" }, t("gates.title")), ...gates));
  }

  private mine(ctx: Ctx): SettlerView | undefined {
    return ctx.model.view.settlers.find((s) => s.alive && ctx.mySettlers.has(s.id)) ??
      ctx.model.view.settlers.find((s) => s.alive);
  }
}

export class HerePanel {
  readonly el = h("section", { class: "panel here-panel", "aria-labelledby": "here-title" });

  update(ctx: Ctx): void {
    const s = ctx.current;
    const a = s?.at ? ctx.model.asteroids.get(s.at) : undefined;
    if (!a) {
      fill(this.el);
      this.el.hidden = true;
      return;
    }
    this.el.hidden = false;
    const others = ctx.model.settlersOn(a.id).filter((o) => o.id !== s!.id);
    fill(this.el,
      h("h2", { id: "here-title" }, h("span", { class: "muted" }, t("here.title")), " ", a.id),
      asteroidFacts(ctx.model, a),
      h("div", { class: "sub-title with-tokens" }, h("span", {}, t("base.here")),
        others.length ? h("span", { class: "who-mini", title: t("base.with", { who: others.map((o) => settlerName(o.id)).join(", ") }) },
          ...others.map((o) => token(o.id, ctx.seatOf(o.id)))) : null),
      baseProgress(ctx.model, a.id));
  }
}

/** Marks a destination's row as the keyboard's choice (its button `aria-current`) or not. */
function markCurrent(li: HTMLElement, current: boolean): void {
  const button = li.querySelector("button");
  if (current) button?.setAttribute("aria-current", "true");
  else button?.removeAttribute("aria-current");
}

export class DestinationsPanel {
  readonly el = h("section", { class: "panel dest-panel", "aria-labelledby": "dest-title" });
  // A list of buttons, not a listbox: an option holding a button is a control inside a control, which a screen
  // reader cannot tell apart (axe: nested-interactive). The keyboard's choice is the row its button marks current.
  private readonly list = h("ol", { class: "dests", "aria-labelledby": "dest-title" });
  private readonly search = h("input", { type: "search", class: "dest-search", autocomplete: "off" });
  private hovered: string | null = null;

  constructor(private readonly ctl: Controller) {
    this.search.addEventListener("input", () => this.applySearch());
    // Keys typed in the search box are the box's, not the game's shortcuts.
    this.search.addEventListener("keydown", (e) => e.stopPropagation());
  }

  /** Hides the rows whose asteroid (or gate) does not contain the search text. */
  private applySearch(): void {
    const q = this.search.value.trim().toLowerCase();
    this.list.querySelectorAll<HTMLElement>(".dest").forEach((li) => {
      li.hidden = Boolean(q) && !(li.dataset.search ?? "").includes(q);
    });
  }

  private signature = "";
  private sameModel: Model | null = null;

  private lastDests: unknown = null;
  private lastFocus = -2;

  update(ctx: Ctx): void {
    const dests = ctx.destinations;
    if (dests === this.lastDests && this.sameModel === ctx.model && this.signature.includes(`"${getLang()}"`)) {
      // The same list: only the focus may have moved; restyle the two rows concerned.
      if (ctx.focus !== this.lastFocus) {
        const rows = this.list.children;
        for (const i of [this.lastFocus, ctx.focus]) {
          const li = rows[i] as HTMLElement | undefined;
          if (!li) continue;
          li.classList.toggle("focused", i === ctx.focus);
          markCurrent(li, i === ctx.focus);
        }
        this.lastFocus = ctx.focus;
      }
      return;
    }
    this.lastDests = dests;
    this.lastFocus = ctx.focus;
    // Only the keyboard focus changed: restyle the rows in place (re-creating them would eat a click).
    const signature = JSON.stringify([ctx.model.view.round, ctx.model.view.turn, ctx.canAct, getLang(),
      dests.map((d) => [d.target, d.refusal?.code])]) + ctx.model.view.asteroids.length;
    if (signature === this.signature && this.sameModel === ctx.model) {
      this.list.querySelectorAll<HTMLElement>(".dest").forEach((li, i) => {
        li.classList.toggle("focused", i === ctx.focus);
        markCurrent(li, i === ctx.focus);
      });
      return;
    }
    this.signature = signature;
    this.sameModel = ctx.model;
    const rows = dests.map((d, i) => {
      const target = d.target ?? "";
      const a = ctx.model.asteroids.get(target);
      const gate = ctx.model.gates.get(target);
      const via = gate ? ctx.model.gatesHere(ctx.current?.at ?? "").find((g) => g.gate.id === target)?.to : null;
      const dest = a ?? (via ? ctx.model.asteroids.get(via) : undefined);
      const ok = ctx.canAct && !d.refusal;
      const name = gate ? t("dest.gate", { gate: target, to: via ?? "?" }) : target;
      const storm = dest ? ctx.model.stormIn(dest.id) : undefined;
      const reaction = dest ? reactionOf(ctx.model, dest.id, ctx.all?.reactions) : null;
      const li = h("li", {
        class: `dest ${ok ? "" : "refused"} ${i === ctx.focus ? "focused" : ""}`,
        dataset: { target, search: `${target} ${via ?? ""} ${dest?.core ?? ""}`.toLowerCase() },
      }, h("button", {
        type: "button",
        "aria-disabled": ok ? "false" : "true",
        "aria-current": i === ctx.focus ? "true" : null,
        title: d.refusal ? refusalText(d.refusal) : t("dest.go", { to: name }),
        onclick: () => {
          this.ctl.setFocus(i);
          this.ctl.act(d);
          this.hovered = null;
          this.ctl.inspect(null);
        },
        onfocus: () => this.ctl.setFocus(i, false),
        // Only a moving mouse shows the card: a row that appears under a still pointer (after a click redrew
        // the list) must not pop one up over the map.
        onpointermove: (e: PointerEvent) => {
          if (e.pointerType !== "mouse" || this.hovered === (dest?.id ?? null)) return;
          this.hovered = dest?.id ?? null;
          this.ctl.inspect(this.hovered);
        },
        onmouseleave: () => {
          this.hovered = null;
          this.ctl.inspect(null);
        },
      },
        h("kbd", {}, i < 9 ? String(i + 1) : "·"),
        gate ? icon(ICONS.gates, "icon gate-icon") : coreIcon(dest?.core ?? "unknown"),
        h("span", { class: "dname" }, name),
        dest ? h("span", { class: "dmeta" },
          h("span", { class: "m", title: t("mantle.title") }, String(dest.mantle ?? 0)),
          h("span", { class: `s ${dest.near ? "near" : "far"}`, title: sunText(ctx.model, dest) },
            icon(ICONS.sun), dest.next_change == null ? "" : String(dest.next_change - ctx.model.round)),
          dest.shelter ? icon(ICONS.shelter, "icon shelter-icon") : null,
          storm !== undefined ? h("span", { class: "st" }, icon(ICONS.storm), String(storm)) : null,
          reaction ? h("span", { class: "react" }, reactionText(reaction)) : null) : null,
        d.refusal ? h("span", { class: "why" }, refusalText(d.refusal)) : null));
      return li;
    });
    const hadFocus = this.el.contains(document.activeElement);
    fill(this.list, ...rows);
    this.search.placeholder = t("dest.search");
    this.search.setAttribute("aria-label", t("dest.search"));
    fill(this.el,
      h("h2", { id: "dest-title" }, t("dest.title"), h("span", { class: "count" }, String(dests.length))),
      dests.length >= 12 ? this.search : null,
      dests.length ? this.list : h("p", { class: "muted" }, t("dest.none")),
      h("p", { class: "hint" }, t(touch() ? "dest.hint_touch" : "dest.hint")));
    this.applySearch();
    const again = hadFocus && ctx.focus >= 0 ? this.list.querySelectorAll("button")[ctx.focus] : undefined;
    if (again && document.activeElement !== again) again.focus({ preventScroll: false });
  }
}

export class SidePanel {
  readonly el = h("section", { class: "panel side-panel" });

  constructor(private readonly ctl: Controller) {}

  update(ctx: Ctx): void {
    const m = ctx.model;
    const forecasts = [...m.view.forecasts].sort((a, b) => a.round - b.round).map((f) => {
      const n = f.round - m.round;
      const caught = ctx.model.view.settlers.filter((s) => s.alive && s.at && f.asteroids.includes(s.at));
      const safe = caught.filter((s) => ctx.model.asteroids.get(s.at!)?.shelter);
      const exposed = caught.filter((s) => !ctx.model.asteroids.get(s.at!)?.shelter);
      const names = (list: typeof caught): string => list.map((s) => settlerName(s.id)).join(", ");
      return h("li", { class: `forecast ${n <= 0 ? "imminent" : ""}`, dataset: { round: String(f.round) } },
        icon(ICONS.storm),
        h("div", {},
          h("strong", {}, n <= 0 ? t("forecast.now") : t("forecast.in", { n })),
          h("div", { class: "muted" }, !f.sector ? t("forecast.asteroids", { n: f.asteroids.length })
            : f.sector[1] >= 360 ? t("forecast.whole", { n: f.asteroids.length })
              : t("forecast.marked", { n: f.asteroids.length })),
          h("div", { class: "storm-who" },
            exposed.length ? h("span", { class: "exposed" }, t("forecast.exposed", { who: names(exposed) })) : null,
            safe.length ? h("span", { class: "safe" }, t("forecast.sheltered", { who: names(safe) })) : null,
            !caught.length ? h("span", { class: "safe" }, t("forecast.nobody")) : null),
          h("button", { type: "button", class: "linkish small", onclick: () => this.ctl.show(f.asteroids) }, t("forecast.show"))));
    });
    const bases = m.occupied().map((id) => {
      const people = m.settlersOn(id);
      return h("li", { class: "base" },
        h("button", { type: "button", class: "linkish", onclick: () => this.ctl.centre(id), title: t("base.show") },
          h("strong", {}, id)),
        h("span", { class: "who-mini" }, ...people.map((p) => token(p.id, ctx.seatOf(p.id)))),
        baseProgress(m, id));
    });
    const alive = m.view.settlers.filter((s) => s.alive).length;
    fill(this.el,
      h("h2", {}, t("forecast.title")),
      forecasts.length ? h("ul", { class: "forecasts" }, ...forecasts) : h("p", { class: "muted" }, t("forecast.none")),
      h("h2", {}, t("base.title")),
      h("p", { class: `winnable ${m.view.winnable ? "yes" : "no"}` }, t(m.view.winnable ? "winnable.yes" : "winnable.no"),
        h("span", { class: "muted" }, ` · ${t("team.alive", { n: alive, of: m.view.settlers.length })}`)),
      h("ul", { class: "bases" }, ...bases));
  }
}

export function inspectorCard(model: Model, a: AsteroidView, seatOf: (s: string) => number): HTMLElement {
  const here = model.settlersOn(a.id);
  const robots = (a.robots ?? []).length;
  const ufos = (a.ufos ?? []).length;
  const gates = model.gatesHere(a.id);
  return h("div", { class: "inspector-card" },
    h("h3", {}, a.id, model.isHub(a) ? h("span", { class: "muted" }, ` · ${t("hub", { n: a.neighbours?.length ?? 0 })}`) : null),
    asteroidFacts(model, a),
    a.orbit ? h("div", { class: "muted small" }, t("orbit.text", { orbit: a.orbit })) : null,
    here.length || robots || ufos
      ? h("div", { class: "occupants" }, ...here.map((s) => token(s.id, seatOf(s.id))),
        robots ? h("span", { class: "badge" }, t("robots.n", { n: robots })) : null,
        ufos ? h("span", { class: "badge" }, t("ufos.n", { n: ufos })) : null)
      : null,
    gates.length ? h("div", { class: "small" }, ...gates.map((g) => h("div", {}, icon(ICONS.gates),
      g.to ? t("gate.to", { gate: g.gate.id, to: g.to }) : t("gate.inactive", { gate: g.gate.id })))) : null,
    here.length ? baseProgress(model, a.id) : null);
}
