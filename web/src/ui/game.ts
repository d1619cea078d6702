// The game screen: wires a play session (the connections, the view, the server's choices, the pending action;
// play.ts) to the map, the panels, the action bar, the log, the tabs of small screens, the hand-over and end
// screens and the keyboard (whose keys are the table in keymap.ts).

import { getLang, onLangChange, setLang, t } from "../i18n";
import { Model } from "../model";
import { api } from "../net";
import { PlaySession } from "../play";
import { SEAT_COLOUR, css } from "../render/palette";
import { BeltScene, type Highlights, type Insets } from "../render/scene";
import { type Choice, type Choices, actOf, actions as actionsOf, moves as movesOf, reactionOf, viewMoves } from "../choices";
import { wantsHandover } from "../session";
import { type GameEvent, type GameView, KINDS, type Kind, type Status, WIN_TARGET } from "../types";
import { refusalText, seatName, serverErrorText, settlerName, settlerNumber } from "../words";
import { threats } from "../danger";
import { outcomeOf, warningHere } from "../outcome";
import { ActionBar } from "./actionbar";
import type { Controller, Ctx } from "./context";
import { ICONS, fill, h, icon } from "./dom";
import { commandFor } from "./keymap";
import { HintButton } from "./hint";
import { EventLog } from "./log";
import { Overlay, colourName, summarise } from "./overlays";
import { DestinationsPanel, HerePanel, SettlerPanel, SidePanel, inspectorCard } from "./panels";
import { TopBar } from "./topbar";

/** One action answered, as the page saw it (performance.now() times, ms). */
export interface TapTimes {
  /** The input that led to it: the finger lifted, the button released, or the key pressed (the event's own
   * time stamp, which counts the time the event waited for the page). */
  input: number;
  /** The action sent on the WebSocket. */
  sent: number;
  /** The server's answer received (and parsed). */
  received: number;
  /** The answer folded into the view, the panels and the map's scene updated. */
  handled: number;
  /** The frame that shows it drawn and committed: the first task after that frame's animation callbacks. */
  shown: number;
}

export interface Perf {
  ready: boolean;
  readyAt: number;
  lastActMs: number | null;
  /** From the input of an action of this browser to the frame that shows the server's answer (ms). */
  acts: number[];
  /** The same, in steps. */
  taps: TapTimes[];
  /** The page's own work per update: the message handled, the view folded in and the screen redrawn (ms). */
  updates: number[];
  /** From sending an action to the server's answer arriving (ms): the network and the server's part of a tap. */
  rtts: number[];
  seq: number;
  /** The seq up to which the log's history has come from the server (-1: not yet). */
  logLoaded: number;
  /** The seq up to which a lesson's guide has checked its goals. */
  lessonSeq: number;
  /** Per seat played here: the seq of the last message that brought its settlers' choices. */
  choicesSeq: Record<number, number>;
  /** The choices this screen shows, by settler (for tests). */
  choices: () => Record<string, Choices | null>;
  scene: BeltScene | null;
  /** Where an asteroid is drawn, in page coordinates (for tests and the benchmark). */
  where: (id: string) => { x: number; y: number } | null;
  /** The asteroids the map marked, one per own action done (for tests). */
  acknowledged: string[];
}

declare global {
  interface Window {
    __am: Perf;
  }
}

window.__am = { ready: false, readyAt: 0, lastActMs: null, acts: [], taps: [], updates: [], rtts: [], seq: -1, logLoaded: -1, lessonSeq: -1, choicesSeq: {}, choices: () => ({}), scene: null, where: () => null, acknowledged: [] };

/** How long an action may wait for its answer before the action bar says it is on its way (ms). */
const SENDING_SHOWN_AFTER_MS = 150;

/** When the player last finished an input (the event's time stamp): a finger lifted or a button released (a tap
 * or a click is complete then; how long it was held is not the page's time), or a key pressed. */
let lastInput = -Infinity;
for (const type of ["pointerup", "keydown"] as const) {
  document.addEventListener(type, (e) => {
    lastInput = e.timeStamp;
  }, { capture: true, passive: true });
}

/** Runs `fn` once the next frame has been drawn: after its animation callbacks (the map's render among them),
 * style, layout and paint, and its commit, which all run in one task before the next task is taken. */
function afterNextFrame(fn: () => void): void {
  requestAnimationFrame(() => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      fn();
    };
    channel.port2.postMessage(null);
  });
}

export class GameScreen implements Controller {
  readonly el: HTMLElement;
  private scene: BeltScene | null = null;
  private model: Model | null = null;
  /** The connections, the view, the server's choices and the pending action. */
  readonly session: PlaySession;
  private readonly top: TopBar;
  private readonly bar: ActionBar;
  private readonly settlerPanel = new SettlerPanel();
  private readonly herePanel = new HerePanel();
  private readonly destPanel: DestinationsPanel;
  private readonly sidePanel: SidePanel;
  private readonly log = new EventLog();
  private readonly overlay = new Overlay();
  private readonly mapHost = h("div", { class: "map-host" });
  /** "What would a good player do?": the planner's action for this browser's settler, on the map. */
  private readonly hints: HintButton;
  private mapTools!: HTMLElement;
  private readonly inspector = h("div", { class: "inspector", hidden: true, "aria-live": "polite" });
  private readonly toast = h("div", { class: "toast", role: "alert", hidden: true });
  private readonly mapList = h("p", { class: "sr-only", "aria-live": "polite" });
  private focus = -1;
  private hover: string | null = null;
  private inspected: string | null = null;
  private ackSeat: number | null = null;
  private skipHandover = false;
  private lastTurn: string | null = null;
  private endShown = false;
  private ctx: Ctx | null = null;
  private readonly unsubs: (() => void)[] = [];
  private readonly keyHandler = (e: KeyboardEvent) => this.onKey(e);
  private destroyed = false;
  private title = "";
  private rules = "classic";
  private readonly tabs: HTMLElement;
  private tab = "map";
  /** Shown above the game by a lesson or puzzle (its goal, hint and progress). */
  readonly banner = h("div", { class: "lesson-banner", hidden: true, "aria-live": "polite" });
  /** The danger to this player's settlers (a storm, an explosion): over the map, in a place of its own. */
  private readonly danger = h("div", { class: "danger-banner", role: "alert", hidden: true });
  /** In hot-seat: whose turn it is, in the player's colour and name, over the map's top right corner. */
  private readonly turnCue = h("div", { class: "turn-cue", role: "status", hidden: true });
  /** A lesson's guide shows its own success card instead of the end screen. */
  customEnd = false;
  /** What a lesson's step asks to press (`move:ID`, `drill`, `deposit:ice`, …), highlighted on screen. */
  private pointed: string | null = null;
  /** Called with every new view (lessons check their goals). */
  onView: ((view: GameView, events: GameEvent[]) => void) | null = null;

  constructor(private readonly gameId: string, private readonly tokens: Map<number, string>) {
    this.beltName = new Promise((resolve) => {
      this.gotBelt = resolve;
    });
    this.session = new PlaySession(gameId, tokens, {
      state: (view, first) => {
        window.__am.seq = this.session.seq;
        this.bar.disarm();
        this.setView(view, [], first);
        if (first) void this.loadTitle();
        void this.loadHistory();
      },
      update: (view, events, seq, mine, received) => {
        window.__am.seq = seq;
        if (mine) window.__am.rtts.push(received - mine.t0);
        this.log.add(seq, events);
        if (mine) this.scene?.release();
        // The game changed: a drill waiting for its second press was judged on what it was before.
        this.bar.disarm();
        this.setView(view, events, false);
        if (mine && this.actedBy && this.model) this.tellOutcome(this.actedBy, events, this.model);
        const handled = performance.now();
        window.__am.updates.push(handled - received);
        if (mine) {
          const input = this.actInput;
          afterNextFrame(() => {
            const shown = performance.now();
            window.__am.lastActMs = shown - input;
            window.__am.acts.push(shown - input);
            window.__am.taps.push({ input, sent: mine.t0, received, handled, shown });
          });
        }
      },
      choices: () => this.refresh(),
      error: (code, message) => this.onError(code, message),
      status: (st, detail) => {
        if (st !== "failed") this.top.setConnection(st);
        else this.showToast(detail === "4401" || /token/.test(detail ?? "") ? t("error.bad_token") : t("error.connection"));
      },
    });
    this.top = new TopBar(() => this.overlay.help(this.session.seats.map((x) => x.seat)));
    this.bar = new ActionBar(this);
    this.destPanel = new DestinationsPanel(this);
    this.sidePanel = new SidePanel(this);
    const zoom = h("div", { class: "map-tools", role: "group" },
      h("button", { type: "button", class: "icon-btn", dataset: { tool: "in", label: "map.zoom_in" }, onclick: () => this.scene?.camera.zoomAt(1.3) }, icon(ICONS.zoomIn)),
      h("button", { type: "button", class: "icon-btn", dataset: { tool: "out", label: "map.zoom_out" }, onclick: () => this.scene?.camera.zoomAt(1 / 1.3) }, icon(ICONS.zoomOut)),
      h("button", { type: "button", class: "icon-btn", dataset: { tool: "centre", label: "map.centre" }, onclick: () => this.centreOnTurn() }, icon(ICONS.target)),
      h("button", { type: "button", class: "icon-btn overlay-toggle", dataset: { tool: "danger", label: "keys.danger" }, "aria-pressed": "false",
        onclick: (e: Event) => {
          const b = e.currentTarget as HTMLElement;
          const on = b.getAttribute("aria-pressed") !== "true";
          b.setAttribute("aria-pressed", on ? "true" : "false");
          b.classList.toggle("on", on);
          this.scene?.setDangerOverlay(on);
        } }, icon(ICONS.sun)));
    this.hints = new HintButton({
      mine: () => {
        const c = this.model?.current();
        return c && this.ctx?.mySettlers.has(c.id) ? c.id : null;
      },
      token: (settler) => this.tokens.get(this.session.seatOf(settler)),
      at: (settler) => this.model?.settlers.get(settler)?.at ?? null,
      show: (ids) => this.show(ids),
      pointAt: (press) => this.pointAt(press),
    }, gameId);
    zoom.appendChild(this.hints.button);
    const map = h("main", { class: "map", id: "map", tabindex: "0", "aria-describedby": "map-desc" },
      this.mapHost, zoom, this.inspector, this.toast, h("div", { class: "map-foot" }, this.danger, this.turnCue), h("p", { id: "map-desc", class: "sr-only" }), this.mapList);
    this.tabs = h("nav", { class: "tabs", "aria-label": "panels" });
    this.el = h("div", { class: "game-screen", dataset: { tab: "map" } },
      this.top.el,
      h("aside", { class: "left" }, this.settlerPanel.el, this.herePanel.el, this.destPanel.el),
      map,
      h("aside", { class: "right" }, this.sidePanel.el, this.log.el),
      this.tabs,
      this.bar.el,
      this.overlay.el);
    map.appendChild(this.banner);
    map.querySelector(".map-foot")?.appendChild(this.hints.card);
    this.mapTools = zoom;
    for (const el of [this.mapHost, this.banner, zoom]) this.insetWatch.observe(el);
    this.labelMapTools();
    this.drawTabs();
    this.unsubs.push(onLangChange(() => this.relabel()));
  }

  async start(): Promise<void> {
    document.addEventListener("keydown", this.keyHandler);
    const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    this.scene = await BeltScene.create(this.mapHost, {
      storm: (n) => (n <= 0 ? t("storm.label_now") : t("storm.label", { n })),
      settlerLabel: (id) => settlerNumber(id),
      reaction: (id) => {
        // the server's word for the settler whose turn it is (its choices came with the view), else the view's
        const turn = this.model?.view.turn;
        const r = this.model ? reactionOf(this.model, id, turn ? this.session.choices[turn]?.reactions : null) : null;
        return r ? (r.in_rounds <= 0 ? t(`react.${r.effect}_short_now`) : t(`react.${r.effect}_short`, { n: r.in_rounds })) : null;
      },
    }, reduced);
    if (this.destroyed) {
      this.scene.destroy();
      return;
    }
    window.__am.scene = this.scene;
    window.__am.choices = () => this.session.choices;
    window.__am.choicesSeq = this.session.choicesSeq;
    window.__am.where = (id) => {
      const p = this.scene?.position(id);
      if (!p || !this.scene) return null;
      const s = this.scene.camera.toScreen(p.x, p.y);
      const r = this.mapHost.getBoundingClientRect();
      return { x: r.left + s.x, y: r.top + s.y };
    };
    this.labelMapTools();  // the canvas is there now
    this.scene.setSeats((id) => this.seatOf(id));
    this.scene.camera.attach(this.mapHost, (x, y) => this.onMapClick(x, y), (x, y) => this.onMapHover(x, y));
    this.mapHost.addEventListener("pointerleave", () => this.onMapHover(-1e6, -1e6));
    this.session.connect();
  }

  destroy(): void {
    this.destroyed = true;
    document.removeEventListener("keydown", this.keyHandler);
    this.session.close();
    this.hints.destroy();
    this.insetWatch.disconnect();
    for (const u of this.unsubs) u();
    this.scene?.destroy();
    window.__am.scene = null;
    window.__am.ready = false;
    window.__am.logLoaded = -1;
    window.__am.lessonSeq = -1;
    window.__am.choicesSeq = {};
  }

  /** The log's history from the server: every step so far (on load, reload and for late spectators). */
  private async loadHistory(): Promise<void> {
    try {
      const h = await api.events(this.gameId);
      if (this.destroyed) return;
      this.log.history(h.steps);
      window.__am.logLoaded = h.seq;
    } catch {
      /* the log then shows what this page sees from now on */
    }
  }

  /** Resolves with the belt's name once the game's details have come (puzzles are recognised by it). */
  readonly beltName: Promise<string>;
  private gotBelt: (name: string) => void = () => {};

  private async loadTitle(): Promise<void> {
    try {
      const d = await api.game(this.gameId);
      this.gotBelt(d.belt || "");
      this.title = d.belt || "";
      this.rules = d.rules;
      this.top.update(this.ctx!);
      this.refresh();
    } catch {
      /* the title is decoration */
    }
  }

  private onError(code: string, message: string): void {
    this.scene?.release();
    // Prefer the client's own sentence for a refusal it can explain, in the player's language.
    let text = serverErrorText(code, message);
    const c = this.lastChoice;
    if (c?.refusal && c.refusal.code === code) text = refusalText(c.refusal);
    this.bar.error(text);
    this.showToast(text);
    this.refresh();
  }

  private lastChoice: Choice | null = null;
  /** The settler whose action is on its way (its outcome is told when the answer comes). */
  private actedBy: string | null = null;

  /** Tells what the player's own action did: in words on the action bar (green: it happened), and on the map
   * with a brief mark on the asteroid it concerns. */
  private tellOutcome(actor: string, events: GameEvent[], model: Model): void {
    const outcome = outcomeOf(events, actor, model);
    // A browser that plays several settlers says whose action it was (the next step may be another's).
    const first = outcome.parts[0];
    if (first?.tone === "done" && (this.ctx?.mySettlers.size ?? 0) > 1) first.text = `${settlerName(actor)} · ${first.text}`;
    this.bar.done(outcome.parts);
    if (outcome.at) {
      this.scene?.acknowledge(outcome.at);
      window.__am.acknowledged.push(outcome.at);
    }
  }
  /** When the input that sent the pending action happened (performance.now() time). */
  private actInput = 0;

  private setView(view: GameView, events: GameEvent[], first: boolean): void {
    const model = new Model(view);
    this.model = model;
    this.hints.viewChanged();
    this.log.setSettlers(view.settlers.map((s) => s.id));
    this.onView?.(view, events);
    this.scene?.setModel(model, events);
    const turn = view.status === "running" ? view.turn : null;
    const turnChanged = turn !== this.lastTurn;
    this.lastTurn = turn;
    if (turnChanged || first) this.focus = -1;
    this.refresh();
    if (first) {
      const cur = model.current();
      if (cur?.at) this.frameTurn(false);
      else this.scene?.fitAll(false);
      window.__am.ready = true;
      window.__am.readyAt = performance.now();
      document.body.dataset.ready = "1";
    } else if (turnChanged && turn) {
      this.frameTurn(true);
    } else if (turn) {
      this.keepFramed();  // the same settler again (one settler, or a step that ended nobody's turn)
    }
    if (turnChanged || first) this.maybeHandover();
    if (view.status !== "running" && !this.endShown && !this.customEnd) {
      this.endShown = true;
      // Let the last animation (an explosion, a storm, the base) play before the end screen covers it.
      const pause = first || this.scene?.tweens.reducedMotion ? 0 : 1800;
      window.setTimeout(() => void this.showEnd(view.status), pause);
    }
  }

  /** A card over the game (a lesson's success). */
  showCard(card: HTMLElement): void {
    this.overlay.card(card);
  }

  /** Highlights what a lesson's step asks to press: an action button, a deposit kind or a destination. */
  pointAt(press: string | null): void {
    const before = this.pointed;
    this.pointed = press;
    this.markPointed();
    if (this.ctx) this.updateHighlights(this.ctx);
    if (press !== before) this.keepFramed();
  }

  /** The deposit's kinds are drawn anew each time the menu opens: the kind a lesson names is marked again. */
  menuOpened(): void {
    this.markPointed();
  }

  private markPointed(): void {
    for (const el of this.el.querySelectorAll(".lesson-target")) el.classList.remove("lesson-target");
    const press = this.pointed;
    if (!press) return;
    const [name, arg] = press.split(":");
    if (name === "move") {
      this.el.querySelector(`.dest[data-target="${CSS.escape(arg ?? "")}"] button`)?.classList.add("lesson-target");
      this.el.querySelector('.tabs button[data-tab="go"]')?.classList.add("lesson-target");
      return;
    }
    this.el.querySelector(`.action[data-action="${CSS.escape(name ?? "")}"]`)?.classList.add("lesson-target");
    if (arg) this.el.querySelector(`.deposit-kind[data-kind="${CSS.escape(arg)}"]`)?.classList.add("lesson-target");
  }

  /** Frames the current settler with its neighbours and what a lesson points at, in the part of the map that
   * the lesson's banner and the map's buttons leave free. */
  private frameTurn(smooth: boolean): void {
    const cur = this.model?.current();
    if (!cur?.at || !this.scene || !this.model) return;
    const a = this.model.asteroids.get(cur.at);
    const ids = [cur.at, ...(a?.neighbours ?? []).slice(0, 30)];
    for (const g of this.model.gatesHere(cur.at)) if (g.to) ids.push(g.to);
    const pointed = this.pointedAsteroid();
    if (pointed) ids.push(pointed);
    this.scene.frame(ids.length > 1 ? ids : [cur.at], smooth, this.mapInsets());
  }

  /** Frames the current settler again when it, or what a lesson points at, is out of the map's free part. */
  private keepFramed(): void {
    const at = this.model?.current()?.at;
    if (!at || !this.scene) return;
    const ids = [at];
    const pointed = this.pointedAsteroid();
    if (pointed) ids.push(pointed);
    if (!this.scene.shows(ids, this.mapInsets())) this.frameTurn(true);
  }

  /** The asteroid a lesson's step points at (where to fly), if any. */
  private pointedAsteroid(): string | null {
    const id = this.pointed?.startsWith("move:") ? this.pointed.slice(5) : null;
    return id && this.model?.asteroids.has(id) ? id : null;
  }

  /** The map's edges covered by what floats over it, as last measured (null: not measured yet). */
  private insets: Insets | null = null;
  /** Measures the insets again when the map, the lesson's banner or the map's buttons change size (shown, hidden,
   * new words, a rotated phone). Reading them then costs nothing: the page has just been laid out. Reading them
   * while a view is handled would lay the page out a second time in that frame (the panels were just written). */
  private readonly insetWatch = new ResizeObserver(() => {
    const before = this.insets;
    this.insets = this.measureInsets();
    const i = this.insets;
    const moved = before && (before.top !== i.top || before.right !== i.right || before.bottom !== i.bottom || before.left !== i.left);
    // the free part of the map changed (a new banner, its introduction dismissed): the settler kept in it
    if (moved && this.model && this.scene && !this.destroyed) this.keepFramed();
  });

  /** The map's edges covered by what floats over it (CSS px): the lesson's banner over its top (unless it
   * covers most of the map: an introduction, soon dismissed), the column of buttons along its right edge. */
  private mapInsets(): Insets {
    return this.insets ??= this.measureInsets();
  }

  private measureInsets(): Insets {
    const m = this.mapHost.getBoundingClientRect();
    const out = { top: 0, right: 0, bottom: 0, left: 0 };
    if (!this.banner.hidden) {
      const b = this.banner.getBoundingClientRect();
      const top = b.bottom - m.top;
      if (b.height > 0 && top > 0 && top < m.height * 0.5) out.top = top;
    }
    const tools = this.mapTools.getBoundingClientRect();
    if (tools.width > 0 && tools.width < m.width * 0.3) out.right = Math.max(0, m.right - tools.left);
    return out;
  }

  private centreOnTurn(): void {
    this.frameTurn(true);
  }

  seatOf(settler: string): number {
    const seat = this.session.seatOf(settler);
    return seat ? seat - 1 : 0;
  }

  /** The soonest danger to this player's settlers, with its countdown and where to go. */
  private showDanger(ctx: Ctx): void {
    const threat = ctx.model.view.status === "running" && !ctx.spectator ? threats(ctx.model, ctx.mySettlers)[0] : undefined;
    this.danger.hidden = !threat;
    this.danger.closest(".map")?.classList.toggle("has-danger", Boolean(threat));
    if (!threat) return;
    const when = threat.rounds === 0 ? t("danger.now") : t("danger.in", { n: threat.rounds });
    const what = threat.kind === "explosion" ? t("danger.explosion", { at: threat.at, when })
      : threat.shelter ? t("danger.storm", { at: threat.at, when, shelter: threat.shelter })
        : t("danger.storm_nowhere", { at: threat.at, when });
    const who = ctx.mySettlers.size > 1 ? `${settlerName(threat.settler)} · ` : "";
    fill(this.danger, icon(threat.kind === "storm" ? ICONS.storm : ICONS.sun), h("span", {}, who + what));
    this.danger.dataset.kind = threat.kind;
  }

  /** Hot-seat (this page plays more than one seat): the player whose step it is, with their colour. */
  private showTurnCue(ctx: Ctx): void {
    const cur = ctx.current;
    const show = this.tokens.size > 1 && cur !== undefined && ctx.mySettlers.has(cur.id);
    this.turnCue.hidden = !show;
    if (!show) return;
    const seat = this.seatOf(cur.id) + 1;
    if (this.turnCue.dataset.seat !== String(seat)) {
      this.turnCue.dataset.seat = String(seat);
      this.turnCue.style.borderColor = css(SEAT_COLOUR[(seat - 1) % SEAT_COLOUR.length]!);
    }
    fill(this.turnCue, h("span", { class: "seat-swatch", style: { background: this.turnCue.style.borderColor } }),
      h("span", {}, t("turn.cue", { seat: seatName(seat), colour: colourName(seat) })));
  }

  private maybeHandover(): void {
    const cur = this.model?.current();
    if (!cur) return;
    const seat = this.seatOf(cur.id) + 1;
    // A co-operative game with public information: no hand-over screen unless the lobby asked for one.
    const hotseat = this.tokens.size > 1 && wantsHandover(this.gameId);
    if (!hotseat || !this.tokens.has(seat) || this.skipHandover) {
      this.ackSeat = seat;
      return;
    }
    if (seat === this.ackSeat) return;
    if (this.overlay.kind === "end") return;
    this.overlay.handover(seat, cur.id, cur.at, this.session.seats.map((x) => x.seat), () => {
      this.ackSeat = seat;
      this.refresh();
      this.mapHost.parentElement?.focus();
    }, () => {
      this.skipHandover = true;
    });
    this.refresh();
  }

  private async showEnd(status: Status): Promise<void> {
    let events = this.log.events;
    try {
      const replay = await api.replay(this.gameId);
      events = replay.steps.flatMap((f) => f.events);
    } catch {
      /* without the replay endpoint the summary counts what this page saw */
    }
    const rounds = this.model?.round ?? 0;
    this.overlay.end(status, summarise(events, rounds), () => {
      location.hash = `#/replay/${encodeURIComponent(this.gameId)}`;
    }, () => {
      location.hash = "#/";
    });
  }

  // ---- the context the panels are drawn from ------------------------------------------------------------

  private buildCtx(model: Model): Ctx {
    const mySeats = new Set(this.tokens.keys());
    const mySettlers = new Set(this.session.seats.filter((s) => mySeats.has(s.seat)).flatMap((s) => s.settlers));
    const current = model.current();
    const spectator = mySeats.size === 0;
    let waitingReason: string | null = null;
    let sending = false;
    if (model.view.status !== "running") waitingReason = t(`wait.${model.view.status}`);
    else if (spectator) waitingReason = t("wait.spectator");
    else if (!current) waitingReason = t("wait.robots");
    else if (!mySettlers.has(current.id)) {
      const seat = this.session.seats.find((s) => s.settlers.includes(current.id));
      waitingReason = seat?.kind === "bot"
        ? t("wait.bot", { settler: settlerName(current.id), seat: seatName(seat.seat) })
        : t("wait.other", { settler: settlerName(current.id), seat: seatName(this.seatOf(current.id) + 1) });
    } else if (this.session.pending) {
      waitingReason = t("wait.sending");
      sending = true;
    }
    else if (this.overlay.kind === "handover") waitingReason = t("wait.handover");
    const canAct = waitingReason === null;
    // A settler without choices (null: it cannot act now, or none arrived yet) shows its places from the view.
    const all = current ? this.session.choices[current.id] ?? null : null;
    const moves = all && !all.refusal ? movesOf(all) : current ? viewMoves(model, current.id) : [];
    return {
      model, seats: this.session.seats, mySeats, mySettlers, current, canAct, sending, waitingReason, all,
      choices: actionsOf(all), destinations: this.sortDestinations(model, moves),
      focus: this.focus, spectator, seatOf: (s) => this.seatOf(s),
    };
  }

  private refresh(): void {
    const model = this.model;
    if (!model) return;
    const ctx = this.buildCtx(model);
    this.ctx = ctx;
    this.top.mode = this.rules;
    this.top.title = this.title;
    this.top.update(ctx);
    this.top.setClock(model.view.status === "running" ? this.session.deadline : null, this.session.turnSeconds);
    this.settlerPanel.update(ctx);
    this.herePanel.update(ctx);
    this.destPanel.update(ctx);
    this.sidePanel.update(ctx);
    const cur = ctx.current;
    const mine = ctx.choices.find((c) => c.action === "mine");
    this.bar.setWarning(ctx.canAct && cur ? warningHere(model, cur.id, Boolean(mine && !mine.refusal)) : null);
    this.bar.update(ctx);
    this.showDanger(ctx);
    this.showTurnCue(ctx);
    this.updateHighlights(ctx);
    this.updateInspector();
    this.describeMap(ctx);
    this.markPointed();
  }

  private targetsOf: { ctx: Ctx; targets: Map<string, boolean> } | null = null;

  private updateHighlights(ctx: Ctx): void {
    if (!this.scene) return;
    // The same context gives the same targets: the map then keeps its rings and redraws only the lines.
    let targets = this.targetsOf?.ctx === ctx ? this.targetsOf.targets : null;
    if (!targets) {
      targets = new Map<string, boolean>();
      for (const d of ctx.destinations) {
        const id = this.exitOf(d);
        // While an action is on its way the map keeps its rings as they were: greying them for the few
        // milliseconds of the answer would only cost a frame on the way to it.
        if (id) targets.set(id, (ctx.canAct || ctx.sending) && !d.refusal);
      }
      this.targetsOf = { ctx, targets };
    }
    const pointedMove = this.pointed?.startsWith("move:") ? this.pointed.slice(5) : null;
    const pointedDest = pointedMove ? ctx.destinations.find((d) => d.target === pointedMove) : undefined;
    const focused = ctx.destinations[this.focus] ?? pointedDest;
    const h: Highlights = {
      here: ctx.current?.at ?? null,
      current: ctx.current?.id ?? null,
      targets,
      focus: focused ? this.exitOf(focused) : null,
      hover: this.hover ?? this.inspected,
    };
    this.scene.setHighlights(h);
  }

  /** The asteroid a destination leads to (through a gate: where its partner orbits). */
  private exitOf(d: Choice): string | null {
    const m = this.model;
    if (!m || !d.target) return null;
    if (m.asteroids.has(d.target)) return d.target;
    const g = m.gates.get(d.target);
    const partner = g ? m.gates.get(g.partner) : undefined;
    return partner?.at ?? null;
  }

  private describeMap(ctx: Ctx): void {
    const desc = this.el.querySelector("#map-desc");
    if (desc) desc.textContent = t("map.desc");
    const cur = ctx.current;
    this.mapList.textContent = cur
      ? t("map.turn", { settler: settlerName(cur.id), at: cur.at ?? "?", n: ctx.destinations.length })
      : "";
  }

  /** The map's icon buttons named in words (each its `data-label` key), and its canvas as a picture of the belt:
   * an icon alone names nothing to a screen reader. */
  private labelMapTools(): void {
    for (const b of this.mapTools.querySelectorAll<HTMLElement>("button[data-label]")) {
      const name = t(b.dataset.label ?? "");
      b.setAttribute("aria-label", name);
      b.title = name;
    }
    const canvas = this.mapHost.querySelector("canvas");
    canvas?.setAttribute("role", "img");
    canvas?.setAttribute("aria-label", t("map.canvas"));
  }

  private relabel(): void {
    this.labelMapTools();
    this.log.relabel();
    this.scene?.invalidateText();
    if (this.model) this.scene?.setModel(this.model, []);
    this.refresh();
    document.title = `${t("app.name")}`;
  }

  // ---- Controller --------------------------------------------------------------------------------------

  act(choice: Choice): void {
    const ctx = this.ctx;
    const cur = ctx?.current;
    if (!ctx || !cur) return;
    this.lastChoice = choice;
    if (!ctx.canAct) {
      this.bar.error(ctx.waitingReason ?? "");
      return;
    }
    if (choice.refusal) {
      this.bar.error(`${t(`action.${choice.action}`)}: ${refusalText(choice.refusal)}`);
      return;
    }
    const seat = this.seatOf(cur.id) + 1;
    if (!this.tokens.has(seat)) return;
    this.bar.sent();
    // The choice goes back exactly as the server offered it (all its fields but the hints): nothing is rebuilt.
    if (!this.session.act(seat, actOf(cur.id, choice))) {
      this.bar.error(t("error.connection"));
      return;
    }
    this.actedBy = cur.id;
    // An action's time runs from the input that sent it (a tap, a click, a key) to the frame that shows the
    // answer; an action sent without an input just before it counts from its sending.
    const sent = this.session.pending?.t0 ?? performance.now();
    this.actInput = sent - lastInput < 1000 ? lastInput : sent;
    // The pulse of the rings has done its job, and no frame is drawn while the answer is on its way.
    this.scene?.hold();
    // The screen changes with the answer, a few milliseconds later: drawing anything now would only hold that
    // answer up. The action bar says the action is on its way only when the answer is slow to come.
    if (this.model) this.ctx = this.buildCtx(this.model);
    const pending = this.session.pending;
    window.setTimeout(() => {
      if (this.ctx && this.session.pending === pending && pending) this.bar.update(this.ctx);
    }, SENDING_SHOWN_AFTER_MS);
  }

  setFocus(index: number, show = true): void {
    const n = this.ctx?.destinations.length ?? 0;
    if (!n) return;
    const next = ((index % n) + n) % n;
    if (next === this.focus && !show) return;
    this.focus = next;
    const d = this.ctx!.destinations[this.focus]!;
    const exit = this.exitOf(d);
    this.inspected = exit;
    // Only the choice of destination changed: the list's focus, the map's highlight and the card (on a hub of
    // hundreds of neighbours, drawing every panel again would cost many times more).
    if (this.ctx) {
      this.ctx.focus = this.focus;
      this.destPanel.update(this.ctx);
      this.updateHighlights(this.ctx);
      this.updateInspector();
      this.markPointed();
    }
    if (show && exit && this.scene) {
      const p = this.scene.position(exit);
      const vis = this.scene.camera.visible(-40);
      if (p && (p.x < vis.x0 || p.x > vis.x1 || p.y < vis.y0 || p.y > vis.y1)) this.scene.centerOn(exit, true);
    }
  }

  inspect(id: string | null): void {
    this.inspected = id;
    this.updateInspector();
    if (this.ctx) this.updateHighlights(this.ctx);
  }

  show(ids: string[]): void {
    if (ids.length) this.scene?.frame(ids, true, this.mapInsets());
    if (this.tab !== "map") this.showTab("map");
  }

  centre(id: string): void {
    this.scene?.centerOn(id, true);
    this.inspect(id);
  }

  private updateInspector(): void {
    const m = this.model;
    const id = this.hover ?? this.inspected;
    const a = id ? m?.asteroids.get(id) : undefined;
    if (!m || !a || !a.exists) {
      this.inspector.hidden = true;
      return;
    }
    fill(this.inspector, inspectorCard(m, a, (s) => this.seatOf(s)));
    this.inspector.hidden = false;
  }

  // ---- the map and the keyboard ------------------------------------------------------------------------

  private onMapClick(x: number, y: number): void {
    const id = this.scene?.pick(x, y) ?? null;
    const ctx = this.ctx;
    // A tap on the map is not the drill's second press: a confirmation waiting for it ends.
    this.bar.disarm();
    if (!id || !ctx) {
      this.inspect(null);
      return;
    }
    const i = ctx.destinations.findIndex((d) => d.target === id);
    const j = i >= 0 ? i : ctx.destinations.findIndex((d) => this.exitOf(d) === id && !d.refusal);
    if (j >= 0 && ctx.current) {
      this.focus = j;
      this.act(ctx.destinations[j]!);
      return;
    }
    if (ctx.current && id !== ctx.current.at && ctx.canAct) {
      this.bar.error(t("refusal.not_neighbour", { target: id, asteroid: ctx.current.at ?? "" }));
    }
    this.inspect(id);
  }

  private onMapHover(x: number, y: number): void {
    const id = this.scene?.pick(x, y) ?? null;
    if (id === this.hover) return;
    this.hover = id;
    this.mapHost.style.cursor = id ? "pointer" : "";
    if (this.ctx) this.updateHighlights(this.ctx);
    this.updateInspector();
  }

  private showToast(text: string): void {
    this.toast.textContent = text;
    this.toast.hidden = false;
    window.clearTimeout((this.toast as HTMLElement & { timer?: number }).timer);
    (this.toast as HTMLElement & { timer?: number }).timer = window.setTimeout(() => {
      this.toast.hidden = true;
    }, 4000);
  }

  private onKey(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target as HTMLElement | null;
    const key = e.key;
    if (this.overlay.open) {
      if (key === "Escape" && this.overlay.kind !== "handover") this.overlay.close();
      if (key === "Enter" && this.overlay.kind === "handover" && target?.tagName !== "BUTTON") {
        e.preventDefault();
        this.overlay.close();
      }
      return;
    }
    if (target && (target.tagName === "INPUT" || target.tagName === "SELECT" || target.tagName === "TEXTAREA")) return;
    if (this.bar.depositOpen) {
      const n = Number(key);
      if (n >= 1 && n <= 4) {
        e.preventDefault();
        this.bar.press("deposit", (["ice", "iron", "carbon", "uranium"] as const)[n - 1]);
        return;
      }
      if (key === "Escape") {
        this.bar.closeDeposit();
        return;
      }
    }
    if (key === "Escape" && this.bar.pending) {
      this.bar.disarm();
      return;
    }
    const command = commandFor(key);
    if (!command) return;
    const cam = this.scene?.camera;
    const onButton = target?.tagName === "BUTTON" || target?.tagName === "A";
    if (command.startsWith("act:")) {
      e.preventDefault();
      this.bar.press(command.slice(4));
      return;
    }
    switch (command) {
      case "next":
      case "prev":
        e.preventDefault();
        this.setFocus(this.focus + (command === "prev" ? -1 : 1));
        return;
      case "go":
        if (onButton && key === "Enter") return;
        if (this.ctx && this.focus >= 0 && this.ctx.destinations[this.focus]) {
          e.preventDefault();
          this.act(this.ctx.destinations[this.focus]!);
        }
        return;
      case "pan:left":
      case "pan:right":
      case "pan:up":
      case "pan:down": {
        const d = { "pan:left": [80, 0], "pan:right": [-80, 0], "pan:up": [0, 80], "pan:down": [0, -80] }[command];
        cam?.panBy(d[0]!, d[1]!);
        e.preventDefault();
        return;
      }
      case "zoom:in":
        cam?.zoomAt(1.25);
        return;
      case "zoom:out":
        cam?.zoomAt(0.8);
        return;
      case "centre":
        this.centreOnTurn();
        return;
      case "fit":
        this.scene?.fitAll(true);
        return;
      case "lang":
        setLang(getLang() === "en" ? "hu" : "en");
        return;
      case "help":
        this.overlay.help(this.session.seats.map((x) => x.seat));
        return;
      case "close":
        this.focus = -1;
        this.inspect(null);
        this.refresh();
        return;
      case "move:n": {
        const n = Number(key);
        if (this.ctx?.destinations[n - 1]) {
          e.preventDefault();
          this.focus = n - 1;
          this.act(this.ctx.destinations[n - 1]!);
        }
        return;
      }
      default:
        return;
    }
  }

  // ---- the tabs of small screens ---------------------------------------------------------------------

  private drawTabs(): void {
    const names: [string, string][] = [["map", "tab.map"], ["settler", "tab.settler"], ["here", "tab.here"],
      ["go", "tab.go"], ["storms", "tab.storms"], ["log", "tab.log"]];
    fill(this.tabs, ...names.map(([name, label]) => h("button", {
      type: "button", class: name === this.tab ? "on" : "", dataset: { tab: name },
      "aria-pressed": name === this.tab ? "true" : "false",
      onclick: () => this.showTab(name === this.tab ? "map" : name),
    }, t(label))));
  }

  /** Opens a panel as a sheet over the map (small screens), or closes the sheet with "map". */
  showTab(name: string): void {
    this.tab = name;
    this.el.dataset.tab = name;
    this.drawTabs();
  }

  /** Destinations on a hub (hundreds of neighbours) sorted by how far each is from what the team still needs:
   * a core of a kind the living settlers do not yet carry 3 of comes first, nearest (fewest layers to drill)
   * first; then unsurveyed cores; then the rest. Refused moves go last. */
  private sortDestinations(model: Model, moves: Choice[]): Choice[] {
    if (moves.length < 12) return moves;
    const carried = { ice: 0, iron: 0, carbon: 0, uranium: 0 };
    for (const st of model.view.settlers) if (st.alive) for (const k of KINDS) carried[k] += st.cargo[k] ?? 0;
    const score = (c: Choice): number => {
      const a = model.asteroids.get(c.target ?? "");
      if (!a) return 50;
      const core = a.core ?? "unknown";
      const needed = (KINDS as readonly string[]).includes(core) && carried[core as Kind] < WIN_TARGET;
      return (c.refusal ? 100 : 0) + (needed ? 0 : core === "unknown" ? 10 : 20) + (a.mantle ?? 0);
    };
    return [...moves].sort((x, y) => score(x) - score(y));
  }
}

/** A short message screen (no such game, bad link). */
export function problemScreen(message: string): HTMLElement {
  return h("div", { class: "problem" }, h("div", { class: "card" }, h("h2", {}, t("problem.title")), h("p", {}, message),
    h("a", { class: "button primary", href: "#/" }, t("nav.lobby"))));
}
