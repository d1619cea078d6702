// The replay viewer: a game step by step from its log. Step back and forth, play at a chosen speed, or scrub
// the timeline; the map animates each step and the log shows what happened up to the current step.

import { onLangChange, t } from "../i18n";
import { Model } from "../model";
import { reactionOf } from "../choices";
import { type Replay, type SeatPublic, api, applyDiff } from "../net";
import { BeltScene } from "../render/scene";
import type { GameView } from "../types";
import { eventText, seatName, settlerName, settlerNumber } from "../words";
import { ICONS, fill, h, icon } from "./dom";
import { baseProgress, token } from "./panels";
import { langSwitch } from "./topbar";

export class ReplayScreen {
  private shownModel: Model | null = null;
  readonly el: HTMLElement;
  private scene: BeltScene | null = null;
  private replay: Replay | null = null;
  private views: GameView[] = [];
  private index = 0;
  private playing = 0;
  private speed = 1;
  private readonly mapHost = h("div", { class: "map-host" });
  private readonly slider = h("input", { type: "range", min: "0", max: "0", value: "0", class: "timeline", "aria-label": "timeline" });
  private readonly position = h("div", { class: "position", "aria-live": "polite" });
  private readonly log = h("ol", { class: "log" });
  private readonly side = h("div", { class: "replay-side-top" });
  private readonly playBtn: HTMLButtonElement;
  private readonly title = h("div", { class: "info" });
  private readonly unsubs: (() => void)[] = [];
  private readonly keyHandler = (e: KeyboardEvent) => this.onKey(e);

  constructor(private readonly gameId: string) {
    const btn = (path: string, label: string, fn: () => void, id: string): HTMLButtonElement =>
      h("button", { type: "button", class: "icon-btn", title: t(label), "aria-label": t(label), id, onclick: fn }, icon(path));
    this.playBtn = btn(ICONS.play, "replay.play", () => this.toggle(), "replay-play");
    this.slider.addEventListener("input", () => this.go(Number(this.slider.value), false));
    const speed = h("select", { class: "speed", "aria-label": t("replay.speed"), onchange: (e: Event) => {
      this.speed = Number((e.target as HTMLSelectElement).value);
    } }, ...[0.5, 1, 2, 4, 8].map((s) => h("option", { value: String(s), selected: s === 1 }, `${s}×`)));
    this.el = h("div", { class: "replay-screen" },
      h("header", { class: "topbar" },
        h("a", { class: "brand", href: "#/", title: t("nav.lobby") }, h("span", { class: "logo", "aria-hidden": "true" }),
          h("span", { class: "brand-name" }, t("app.name"))),
        this.title, h("div", { class: "spacer" }), langSwitch()),
      h("main", { class: "map", tabindex: "0" }, this.mapHost),
      h("aside", { class: "right" }, this.side, h("section", { class: "panel log-panel" }, h("h2", {}, t("log.title")), this.log)),
      h("footer", { class: "timeline-bar" },
        btn(ICONS.prev, "replay.first", () => this.go(0), "replay-first"),
        btn(ICONS.back, "replay.back", () => this.go(this.index - 1), "replay-back"),
        this.playBtn,
        btn(ICONS.next, "replay.forward", () => this.go(this.index + 1), "replay-forward"),
        this.slider, this.position, speed));
    this.unsubs.push(onLangChange(() => this.draw(false)));
  }

  async start(): Promise<void> {
    document.addEventListener("keydown", this.keyHandler);
    let replay: Replay;
    try {
      replay = await api.replay(this.gameId);
    } catch (e) {
      fill(this.mapHost, h("div", { class: "problem" }, h("div", { class: "card" }, h("h2", {}, t("replay.unavailable")),
        h("p", {}, (e as Error).message), h("a", { class: "button primary", href: "#/" }, t("nav.lobby")))));
      return;
    }
    this.replay = replay;
    this.views = [replay.state];
    for (const s of replay.steps) this.views.push(applyDiff(this.views[this.views.length - 1]!, s.diff));
    this.slider.max = String(replay.steps.length);
    this.scene = await BeltScene.create(this.mapHost, {
      storm: (n) => (n <= 0 ? t("storm.label_now") : t("storm.label", { n })),
      settlerLabel: (id) => settlerNumber(id),
      reaction: (id) => {
        const r = this.shownModel ? reactionOf(this.shownModel, id) : null;
        return r ? (r.in_rounds <= 0 ? t(`react.${r.effect}_short_now`) : t(`react.${r.effect}_short`, { n: r.in_rounds })) : null;
      },
    }, window.matchMedia("(prefers-reduced-motion: reduce)").matches);
    this.scene.setSeats((id) => seatIndex(replay.seats, id));
    this.scene.camera.attach(this.mapHost, () => {}, () => {});
    this.shownModel = new Model(this.views[0]!);
    this.scene.setModel(this.shownModel);
    this.frameGame();
    window.__am.scene = this.scene;
    this.draw(false);
    document.body.dataset.ready = "1";
  }

  /** Opens on where the game starts: the settlers' asteroids and their neighbours (the first steps' stage), near
   * enough to read the names, not the whole belt, in which a game's corner is a speck on a large one. */
  private frameGame(): void {
    if (!this.scene || !this.shownModel) return;
    const start = new Set<string>();
    for (const s of this.views[0]?.settlers ?? []) if (s.at) start.add(s.at);
    const ids = [...start];
    for (const id of start) ids.push(...(this.shownModel.asteroids.get(id)?.neighbours ?? []).slice(0, 30));
    if (ids.length) this.scene.frame(ids, false);
    else this.scene.fitAll(false);
  }

  destroy(): void {
    window.clearInterval(this.playing);
    document.removeEventListener("keydown", this.keyHandler);
    for (const u of this.unsubs) u();
    this.scene?.destroy();
    window.__am.scene = null;
  }

  private go(i: number, animate = true): void {
    if (!this.replay) return;
    const n = this.replay.steps.length;
    const next = Math.max(0, Math.min(n, i));
    const stepForward = next === this.index + 1;
    this.index = next;
    const events = stepForward && animate ? this.replay.steps[next - 1]!.events : [];
    this.shownModel = new Model(this.views[next]!);
    this.scene?.setModel(this.shownModel, events);
    this.draw(true);
    if (next >= n) this.stop();
  }

  private toggle(): void {
    if (this.playing) this.stop();
    else {
      if (this.replay && this.index >= this.replay.steps.length) this.go(0);
      const tick = (): void => {
        this.go(this.index + 1);
        if (this.playing) this.playing = window.setTimeout(tick, 700 / this.speed);
      };
      this.playing = window.setTimeout(tick, 300);
      fill(this.playBtn, icon(ICONS.pause));
      this.playBtn.title = t("replay.pause");
    }
  }

  private stop(): void {
    window.clearTimeout(this.playing);
    this.playing = 0;
    fill(this.playBtn, icon(ICONS.play));
    this.playBtn.title = t("replay.play");
  }

  private draw(scroll: boolean): void {
    const replay = this.replay;
    if (!replay) return;
    const view = this.views[this.index]!;
    const model = new Model(view);
    this.slider.value = String(this.index);
    fill(this.title, h("span", { class: "belt-name" }, t("replay.title")),
      h("span", { class: "muted" }, `\u00a0· ${t(`status.${replay.status}`)}`));
    fill(this.position, t("replay.position", { step: this.index, of: replay.steps.length, round: view.round }));
    const rows: HTMLElement[] = [];
    replay.steps.slice(0, this.index).forEach((s, i) => {
      for (const e of s.events) {
        if (e.type === "waited" && s.events.length > 6) continue;
        rows.push(h("li", { class: `${i === this.index - 1 ? "current" : ""} ${e.type === "round" ? "round" : ""}` },
          e.type === "round" ? h("span", {}, t("log.round", { round: Number(e.round) })) : eventText(e)));
      }
    });
    fill(this.log, ...rows.slice(-300));
    if (scroll) this.log.scrollTop = this.log.scrollHeight;
    const alive = view.settlers.filter((s) => s.alive);
    fill(this.side, h("section", { class: "panel" },
      h("h2", {}, t("replay.team")),
      h("ul", { class: "team" }, ...view.settlers.map((s) => h("li", { class: s.alive ? "" : "dead" },
        token(s.id, seatIndex(replay.seats, s.id), s.alive),
        h("span", {}, `${settlerName(s.id)} · ${seatName(seatIndex(replay.seats, s.id) + 1)}`),
        h("span", { class: "muted" }, s.alive ? ` · ${s.at}` : ` · ${t("settler.dead")}`)))),
      ...model.occupied().slice(0, 2).map((id) => h("div", {}, h("div", { class: "sub-title" }, id), baseProgress(model, id))),
      h("p", { class: "muted small" }, t("team.alive", { n: alive.length, of: view.settlers.length }))));
  }

  private onKey(e: KeyboardEvent): void {
    if ((e.target as HTMLElement)?.tagName === "INPUT" && (e.key === "ArrowLeft" || e.key === "ArrowRight")) return;
    switch (e.key) {
      case "ArrowRight":
      case ".":
        this.go(this.index + 1);
        break;
      case "ArrowLeft":
      case ",":
        this.go(this.index - 1);
        break;
      case " ":
      case "k":
        e.preventDefault();
        this.toggle();
        break;
      case "Home":
        this.go(0);
        break;
      case "End":
        this.go(this.replay?.steps.length ?? 0);
        break;
      default:
        return;
    }
  }
}

function seatIndex(seats: SeatPublic[], settler: string): number {
  const s = seats.find((x) => x.settlers.includes(settler));
  return s ? s.seat - 1 : 0;
}
