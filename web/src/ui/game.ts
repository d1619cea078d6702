// The game screen: connects to a game (one WebSocket per seat played here, or one to watch), keeps the view
// up to date from the server's state and updates, and wires the map, the panels, the action bar, the log,
// the hand-over and end screens and the keyboard together.

import { getLang, onLangChange, setLang, t } from "../i18n";
import { Model } from "../model";
import { GameSocket, type SeatPublic, type ServerMessage, api, applyDiff } from "../net";
import { BeltScene, type Highlights } from "../render/scene";
import { type Choice, choices as choicesOf, destinations as destinationsOf } from "../rules";
import type { GameEvent, GameView } from "../types";
import { refusalText, seatName, serverErrorText, settlerName, settlerNumber } from "../words";
import { ActionBar } from "./actionbar";
import type { Controller, Ctx } from "./context";
import { ICONS, fill, h, icon } from "./dom";
import { EventLog } from "./log";
import { Overlay, summarise } from "./overlays";
import { DestinationsPanel, HerePanel, SettlerPanel, SidePanel, inspectorCard } from "./panels";
import { TopBar } from "./topbar";

export interface Perf {
  ready: boolean;
  readyAt: number;
  lastActMs: number | null;
  acts: number[];
  seq: number;
  scene: BeltScene | null;
  /** Where an asteroid is drawn, in page coordinates (for tests and the benchmark). */
  where: (id: string) => { x: number; y: number } | null;
}

declare global {
  interface Window {
    __am: Perf;
  }
}

window.__am = { ready: false, readyAt: 0, lastActMs: null, acts: [], seq: -1, scene: null, where: () => null };

export class GameScreen implements Controller {
  readonly el: HTMLElement;
  private scene: BeltScene | null = null;
  private model: Model | null = null;
  private seats: SeatPublic[] = [];
  private readonly sockets = new Map<number, GameSocket>();
  private primary: GameSocket | null = null;
  private readonly top: TopBar;
  private readonly bar: ActionBar;
  private readonly settlerPanel = new SettlerPanel();
  private readonly herePanel = new HerePanel();
  private readonly destPanel: DestinationsPanel;
  private readonly sidePanel: SidePanel;
  private readonly log = new EventLog();
  private readonly overlay = new Overlay();
  private readonly mapHost = h("div", { class: "map-host" });
  private readonly inspector = h("div", { class: "inspector", hidden: true, "aria-live": "polite" });
  private readonly toast = h("div", { class: "toast", role: "alert", hidden: true });
  private readonly mapList = h("p", { class: "sr-only", "aria-live": "polite" });
  private focus = -1;
  private hover: string | null = null;
  private inspected: string | null = null;
  private pending: { ref: number; t0: number } | null = null;
  private ackSeat: number | null = null;
  private skipHandover = false;
  private lastTurn: string | null = null;
  private endShown = false;
  private ctx: Ctx | null = null;
  private readonly unsubs: (() => void)[] = [];
  private readonly keyHandler = (e: KeyboardEvent) => this.onKey(e);
  private destroyed = false;
  private deadline: number | null = null;
  private turnSeconds: number | null = null;
  private title = "";
  private rules = "classic";

  constructor(private readonly gameId: string, private readonly tokens: Map<number, string>) {
    this.top = new TopBar(() => this.overlay.help());
    this.bar = new ActionBar(this);
    this.destPanel = new DestinationsPanel(this);
    this.sidePanel = new SidePanel(this);
    const zoom = h("div", { class: "map-tools", role: "group" },
      h("button", { type: "button", class: "icon-btn", dataset: { tool: "in" }, onclick: () => this.scene?.camera.zoomAt(1.3) }, icon(ICONS.zoomIn)),
      h("button", { type: "button", class: "icon-btn", dataset: { tool: "out" }, onclick: () => this.scene?.camera.zoomAt(1 / 1.3) }, icon(ICONS.zoomOut)),
      h("button", { type: "button", class: "icon-btn", dataset: { tool: "centre" }, onclick: () => this.centreOnTurn() }, icon(ICONS.target)));
    const map = h("main", { class: "map", id: "map", tabindex: "0", "aria-describedby": "map-desc" },
      this.mapHost, zoom, this.inspector, this.toast, h("p", { id: "map-desc", class: "sr-only" }), this.mapList);
    this.el = h("div", { class: "game-screen" },
      this.top.el,
      h("aside", { class: "left" }, this.settlerPanel.el, this.herePanel.el, this.destPanel.el),
      map,
      h("aside", { class: "right" }, this.sidePanel.el, this.log.el),
      this.bar.el,
      this.overlay.el);
    this.unsubs.push(onLangChange(() => this.relabel()));
  }

  async start(): Promise<void> {
    document.addEventListener("keydown", this.keyHandler);
    const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    this.scene = await BeltScene.create(this.mapHost, {
      storm: (n) => (n <= 0 ? t("storm.label_now") : t("storm.label", { n })),
      settlerLabel: (id) => settlerNumber(id),
    }, reduced);
    if (this.destroyed) {
      this.scene.destroy();
      return;
    }
    window.__am.scene = this.scene;
    window.__am.where = (id) => {
      const p = this.scene?.position(id);
      if (!p || !this.scene) return null;
      const s = this.scene.camera.toScreen(p.x, p.y);
      const r = this.mapHost.getBoundingClientRect();
      return { x: r.left + s.x, y: r.top + s.y };
    };
    this.scene.setSeats((id) => this.seatOf(id));
    this.scene.camera.attach(this.mapHost, (x, y) => this.onMapClick(x, y), (x, y) => this.onMapHover(x, y));
    this.mapHost.addEventListener("pointerleave", () => this.onMapHover(-1e6, -1e6));
    this.connect();
  }

  destroy(): void {
    this.destroyed = true;
    document.removeEventListener("keydown", this.keyHandler);
    for (const s of this.sockets.values()) s.close();
    this.primary?.close();
    for (const u of this.unsubs) u();
    this.scene?.destroy();
    window.__am.scene = null;
    window.__am.ready = false;
  }

  private connect(): void {
    const seats = [...this.tokens.keys()].sort((a, b) => a - b);
    if (!seats.length) {
      this.primary = new GameSocket(this.gameId, null);
      this.wire(this.primary, true);
      this.primary.connect();
      return;
    }
    for (const seat of seats) {
      const sock = new GameSocket(this.gameId, this.tokens.get(seat)!);
      this.sockets.set(seat, sock);
      const primary = this.primary === null;
      if (primary) this.primary = sock;
      this.wire(sock, primary);
      sock.connect();
    }
  }

  private wire(sock: GameSocket, primary: boolean): void {
    sock.onStatus = (s, detail) => {
      if (primary) this.top.setConnection(s);
      if (s === "failed") this.showToast(detail === "4401" || /token/.test(detail ?? "") ? t("error.bad_token") : t("error.connection"));
    };
    sock.onMessage = (m) => {
      if (m.type === "error") {
        this.onError(m.code, m.message, m.ref);
        return;
      }
      if (!primary) return;
      this.onMessage(m);
    };
  }

  private onMessage(m: ServerMessage): void {
    if (m.type === "ack") {
      if (this.pending && m.ref === this.pending.ref) this.pending = null;
      this.refresh();
      return;
    }
    if (m.type === "state") {
      this.seats = m.seats;
      this.deadline = m.deadline;
      this.turnSeconds = m.turn_seconds;
      window.__am.seq = m.seq;
      const first = this.model === null;
      this.setView(m.state, [], first);
      if (first) void this.loadTitle();
      return;
    }
    if (m.type === "update") {
      if (!this.model) return;
      this.deadline = m.deadline;
      window.__am.seq = m.seq;
      const view = applyDiff(this.model.view, m.diff);
      this.log.add(m.seq, m.events);
      const mine = this.pending && m.ref === this.pending.ref ? this.pending : null;
      if (mine) this.pending = null;
      this.setView(view, m.events, false);
      if (mine) {
        requestAnimationFrame(() => {
          const ms = performance.now() - mine.t0;
          window.__am.lastActMs = ms;
          window.__am.acts.push(ms);
        });
      }
    }
  }

  private async loadTitle(): Promise<void> {
    try {
      const d = await api.game(this.gameId);
      this.title = d.belt || "";
      this.rules = d.rules;
      this.top.update(this.ctx!);
      this.refresh();
    } catch {
      /* the title is decoration */
    }
  }

  private onError(code: string, message: string, ref?: string | number): void {
    if (this.pending && (ref === undefined || ref === this.pending.ref)) this.pending = null;
    // Prefer the client's own sentence for a refusal it can explain, in the player's language.
    let text = serverErrorText(code, message);
    const c = this.lastChoice;
    if (c?.refusal && c.refusal.code === code) text = refusalText(c.refusal);
    this.bar.error(text);
    this.showToast(text);
    this.refresh();
  }

  private lastChoice: Choice | null = null;

  private setView(view: GameView, events: GameEvent[], first: boolean): void {
    const model = new Model(view);
    this.model = model;
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
    }
    if (turnChanged || first) this.maybeHandover();
    if (view.status !== "running" && !this.endShown) {
      this.endShown = true;
      // Let the last animation (an explosion, a storm, the base) play before the end screen covers it.
      const pause = first || this.scene?.tweens.reducedMotion ? 0 : 1800;
      window.setTimeout(() => void this.showEnd(view.status === "won"), pause);
    }
  }

  private frameTurn(smooth: boolean): void {
    const cur = this.model?.current();
    if (!cur?.at || !this.scene || !this.model) return;
    const a = this.model.asteroids.get(cur.at);
    const ids = [cur.at, ...(a?.neighbours ?? []).slice(0, 30)];
    for (const g of this.model.gatesHere(cur.at)) if (g.to) ids.push(g.to);
    this.scene.frame(ids.length > 1 ? ids : [cur.at], smooth);
  }

  private centreOnTurn(): void {
    this.frameTurn(true);
  }

  seatOf(settler: string): number {
    const seat = this.seats.find((s) => s.settlers.includes(settler));
    return seat ? seat.seat - 1 : 0;
  }

  private maybeHandover(): void {
    const cur = this.model?.current();
    if (!cur) return;
    const seat = this.seatOf(cur.id) + 1;
    const hotseat = this.tokens.size > 1;
    if (!hotseat || !this.tokens.has(seat) || this.skipHandover) {
      this.ackSeat = seat;
      return;
    }
    if (seat === this.ackSeat) return;
    if (this.overlay.kind === "end") return;
    this.overlay.handover(seat, cur.id, cur.at, () => {
      this.ackSeat = seat;
      this.refresh();
      this.mapHost.parentElement?.focus();
    }, () => {
      this.skipHandover = true;
    });
    this.refresh();
  }

  private async showEnd(won: boolean): Promise<void> {
    let events = this.log.events;
    try {
      const replay = await api.replay(this.gameId);
      events = replay.steps.flatMap((f) => f.events);
    } catch {
      /* without the replay endpoint the summary counts what this page saw */
    }
    const rounds = this.model?.round ?? 0;
    this.overlay.end(won, summarise(events, rounds), () => {
      location.hash = `#/replay/${encodeURIComponent(this.gameId)}`;
    }, () => {
      location.hash = "#/";
    });
  }

  // ---- the context the panels are drawn from ------------------------------------------------------------

  private buildCtx(model: Model): Ctx {
    const mySeats = new Set(this.tokens.keys());
    const mySettlers = new Set(this.seats.filter((s) => mySeats.has(s.seat)).flatMap((s) => s.settlers));
    const current = model.current();
    const spectator = mySeats.size === 0;
    let waitingReason: string | null = null;
    if (model.view.status !== "running") waitingReason = t(`wait.${model.view.status}`);
    else if (spectator) waitingReason = t("wait.spectator");
    else if (!current) waitingReason = t("wait.robots");
    else if (!mySettlers.has(current.id)) {
      const seat = this.seats.find((s) => s.settlers.includes(current.id));
      waitingReason = seat?.kind === "bot"
        ? t("wait.bot", { settler: settlerName(current.id), seat: seatName(seat.seat) })
        : t("wait.other", { settler: settlerName(current.id), seat: seatName(this.seatOf(current.id) + 1) });
    } else if (this.pending) waitingReason = t("wait.sending");
    else if (this.overlay.kind === "handover") waitingReason = t("wait.handover");
    const canAct = waitingReason === null;
    const choices = current ? choicesOf(model, current.id) : [];
    const destinations = current ? destinationsOf(model, current.id) : [];
    return {
      model, seats: this.seats, mySeats, mySettlers, current, canAct, waitingReason, choices, destinations,
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
    this.top.setClock(model.view.status === "running" ? this.deadline : null, this.turnSeconds);
    this.settlerPanel.update(ctx);
    this.herePanel.update(ctx);
    this.destPanel.update(ctx);
    this.sidePanel.update(ctx);
    this.bar.update(ctx);
    this.updateHighlights(ctx);
    this.updateInspector();
    this.describeMap(ctx);
  }

  private updateHighlights(ctx: Ctx): void {
    if (!this.scene) return;
    const targets = new Map<string, boolean>();
    for (const d of ctx.destinations) {
      const id = this.exitOf(d);
      if (id) targets.set(id, ctx.canAct && !d.refusal);
    }
    const focused = ctx.destinations[this.focus];
    const h: Highlights = {
      here: ctx.current?.at ?? null,
      current: ctx.current?.id ?? null,
      targets,
      focus: focused ? this.exitOf(focused) : null,
      hover: this.hover,
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

  private relabel(): void {
    this.log.relabel();
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
    const sock = this.sockets.get(seat);
    if (!sock) return;
    const msg: { settler: string; action: string; target?: string; kind?: string; gate?: string } = {
      settler: cur.id,
      action: choice.action,
    };
    if (choice.target) msg.target = choice.target;
    if (choice.kind) msg.kind = choice.kind;
    if (choice.gate) msg.gate = choice.gate;
    const t0 = performance.now();
    const ref = sock.act(msg);
    if (ref === null) {
      this.bar.error(t("error.connection"));
      return;
    }
    this.pending = { ref, t0 };
    this.refresh();
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
    this.refresh();
    if (show && exit && this.scene) {
      const p = this.scene.position(exit);
      const vis = this.scene.camera.visible(-40);
      if (p && (p.x < vis.x0 || p.x > vis.x1 || p.y < vis.y0 || p.y > vis.y1)) this.scene.centerOn(exit, true);
    }
  }

  inspect(id: string | null): void {
    this.inspected = id;
    this.updateInspector();
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
      this.bar.error(t("refusal.not_neighbour", { target: id, here: ctx.current.at ?? "" }));
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
    const lower = key.toLowerCase();
    const actions: Record<string, string> = { d: "drill", m: "mine", e: "deposit", b: "build_robot", g: "build_gates", p: "place", w: "wait" };
    if (actions[lower]) {
      e.preventDefault();
      this.bar.press(actions[lower]!);
      return;
    }
    const cam = this.scene?.camera;
    const onButton = target?.tagName === "BUTTON" || target?.tagName === "A";
    switch (key) {
      case "n":
      case "N":
      case "]":
        e.preventDefault();
        this.setFocus(this.focus + (key === "N" ? -1 : 1));
        return;
      case "[":
        e.preventDefault();
        this.setFocus(this.focus - 1);
        return;
      case "Enter":
      case "v":
        if (onButton && key === "Enter") return;
        if (this.ctx && this.focus >= 0 && this.ctx.destinations[this.focus]) {
          e.preventDefault();
          this.act(this.ctx.destinations[this.focus]!);
        }
        return;
      case "ArrowLeft":
        cam?.panBy(80, 0);
        e.preventDefault();
        return;
      case "ArrowRight":
        cam?.panBy(-80, 0);
        e.preventDefault();
        return;
      case "ArrowUp":
        cam?.panBy(0, 80);
        e.preventDefault();
        return;
      case "ArrowDown":
        cam?.panBy(0, -80);
        e.preventDefault();
        return;
      case "+":
      case "=":
        cam?.zoomAt(1.25);
        return;
      case "-":
      case "_":
        cam?.zoomAt(0.8);
        return;
      case "c":
      case "C":
        this.centreOnTurn();
        return;
      case "f":
      case "F":
        this.scene?.fitAll(true);
        return;
      case "l":
      case "L":
        setLang(getLang() === "en" ? "hu" : "en");
        return;
      case "h":
      case "H":
      case "?":
        this.overlay.help();
        return;
      case "Escape":
        this.focus = -1;
        this.inspect(null);
        this.refresh();
        return;
      default:
        break;
    }
    const n = Number(key);
    if (Number.isInteger(n) && n >= 1 && n <= 9 && this.ctx?.destinations[n - 1]) {
      e.preventDefault();
      this.focus = n - 1;
      this.act(this.ctx.destinations[n - 1]!);
    }
  }
}

/** A short message screen (no such game, bad link). */
export function problemScreen(message: string): HTMLElement {
  return h("div", { class: "problem" }, h("div", { class: "card" }, h("h2", {}, t("problem.title")), h("p", {}, message),
    h("a", { class: "button primary", href: "#/" }, t("nav.lobby"))));
}
