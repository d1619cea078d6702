// The belt on a WebGL canvas (PixiJS 8): the Sun and the stars, and the layers that share its layout and camera
// (render/core.ts) — storms, links and gates, asteroids, highlights, tokens, effects and labels, each in
// render/layers/. Static things live in spatial chunks inside one render group, so panning and zooming only
// move the group and hide the chunks off screen.

import { Application, Container, Graphics, type Sprite } from "pixi.js";
import type { Model } from "../model";
import type { AsteroidView, GameEvent } from "../types";
import { Atlas } from "./atlas";
import { Camera } from "./camera";
import { type Highlights, SceneCore, type SceneText } from "./core";
import { Effects } from "./effects";
import { AsteroidLayer } from "./layers/asteroids";
import { HighlightLayer } from "./layers/highlights";
import { LabelLayer } from "./layers/labels";
import { LinkLayer } from "./layers/links";
import { StormLayer } from "./layers/storms";
import { TokenLayer } from "./layers/tokens";
import { computeLayout, type Layout } from "./layout";
import { BACKGROUND } from "./palette";
import { Tweens } from "./tween";

export type { Highlights, SceneText } from "./core";

export class BeltScene {
  readonly app: Application;
  readonly camera: Camera;
  readonly tweens = new Tweens();
  private readonly core: SceneCore;
  private readonly world = new Container({ isRenderGroup: true });
  private readonly stars = new Graphics();
  private readonly storms: StormLayer;
  private readonly links: LinkLayer;
  private readonly asteroids: AsteroidLayer;
  private readonly highlightLayer: HighlightLayer;
  private readonly tokens: TokenLayer;
  private readonly labels: LabelLayer;
  private readonly effectLayer = new Container();
  private readonly effects: Effects;
  private existing = -1;
  private time = 0;
  private lastLabels = 0;
  private lastZoom = -1;
  /** What the sprites were last drawn from: asteroid records, the forecasts and the round. */
  private readonly drawnRecords = new Map<string, AsteroidView>();
  private drawnForecasts: unknown = null;
  private drawnRound = -1;
  /** Milliseconds spent in the last frames' render calls (for the benchmark). */
  readonly frameTimes: number[] = [];

  private constructor(app: Application, text: SceneText) {
    this.app = app;
    const atlas = new Atlas();
    this.camera = new Camera(this.world);
    this.core = new SceneCore(atlas, this.camera, this.tweens, text);
    this.effects = new Effects(this.effectLayer, atlas, this.tweens);
    this.storms = new StormLayer(this.core);
    this.links = new LinkLayer(this.core);
    this.asteroids = new AsteroidLayer(this.core);
    this.highlightLayer = new HighlightLayer(this.core);
    this.tokens = new TokenLayer(this.core);
    this.labels = new LabelLayer(this.core);
    const a = this.asteroids;
    this.world.addChild(
      this.stars, this.storms.container, this.links.container, this.links.gateLinks, this.highlightLayer.lines,
      a.halos, a.bodies, a.cores, a.badges, a.dots, this.highlightLayer.container, this.links.gates,
      this.tokens.container, this.effectLayer, this.labels.container,
    );
    app.stage.addChild(this.world);
    const sun = this.core.sprite("sun");
    sun.label = "sun";
    this.world.addChildAt(sun, 1);
    this.camera.onChange = () => this.viewChanged();
  }

  /** Creates the WebGL canvas inside `host`. */
  static async create(host: HTMLElement, text: SceneText, reducedMotion: boolean): Promise<BeltScene> {
    const app = new Application();
    await app.init({
      resizeTo: host,
      antialias: false,
      background: BACKGROUND,
      preference: "webgl",
      resolution: Math.min(2, window.devicePixelRatio || 1),
      autoDensity: true,
    });
    app.canvas.setAttribute("aria-hidden", "true");
    app.canvas.classList.add("belt-canvas");
    host.appendChild(app.canvas);
    const scene = new BeltScene(app, text);
    scene.tweens.reducedMotion = reducedMotion;
    scene.camera.resize(host.clientWidth, host.clientHeight);
    app.renderer.on("resize", (w: number, h: number) => scene.camera.resize(w, h));
    app.ticker.add((ticker) => scene.tick(ticker.deltaMS));
    const render = app.renderer.render.bind(app.renderer);
    app.renderer.render = ((...args: Parameters<typeof render>) => {
      const t0 = performance.now();
      render(...args);
      scene.frameTimes.push(performance.now() - t0);
      if (scene.frameTimes.length > 600) scene.frameTimes.splice(0, 300);
    }) as typeof render;
    return scene;
  }

  destroy(): void {
    this.app.destroy({ removeView: true }, { children: true });
  }

  setSeats(seatOf: (settler: string) => number): void {
    this.core.seatOf = seatOf;
  }

  get radius(): number {
    return this.core.radius;
  }

  /** Where an asteroid is drawn (world units). */
  position(id: string): { x: number; y: number } | undefined {
    return this.core.layout?.pos.get(id);
  }

  // ---- the model -------------------------------------------------------------------------------------

  /** Shows a new view; `events` (of the step that led to it) animate. */
  setModel(model: Model, events: GameEvent[] = []): void {
    const core = this.core;
    const first = core.layout === null;
    if (first) {
      core.layout = computeLayout(model.view.asteroids);
      this.buildStatic(model);
    }
    core.model = model;
    const existing = model.view.asteroids.reduce((n, x) => n + (x.exists ? 1 : 0), 0);
    if (existing !== this.existing) {
      this.existing = existing;
      this.links.build(model);
    }
    // A view keeps the records that did not change (applyDiff): only new records, or every one when the
    // forecasts changed (each asteroid's storm mark), are drawn again; the storms only when they or the round did.
    const stormsChanged = model.view.forecasts !== this.drawnForecasts || model.round !== this.drawnRound;
    this.drawnForecasts = model.view.forecasts;
    this.drawnRound = model.round;
    for (const x of model.view.asteroids) {
      if (!stormsChanged && this.drawnRecords.get(x.id) === x) continue;
      this.drawnRecords.set(x.id, x);
      this.asteroids.update(x);
    }
    this.links.updateGates(model);
    if (stormsChanged) this.storms.update(model);
    this.tokens.update(model, events);
    this.effects.play(events, (id) => this.position(id), this.radius, model);
    this.highlightLayer.apply();
    core.stamp++;
    core.labelsDirty = true;
    if (first) this.viewChanged();
  }

  private buildStatic(model: Model): void {
    const layout = this.core.layout!;
    this.drawStars(layout);
    const sun = this.world.getChildByLabel("sun") as Sprite;
    sun.width = sun.height = Math.max(layout.radius * 10, layout.inner * 0.55);
    this.asteroids.build(model);
    const minZoomForBelt = Math.min(
      this.camera.size.width / (layout.outer * 2.3 + 1),
      this.camera.size.height / (layout.outer * 2.3 + 1),
    );
    this.camera.minZoom = Math.max(0.01, Math.min(0.5, minZoomForBelt * 0.6));
  }

  private drawStars(layout: Layout): void {
    const g = this.stars;
    const extent = Math.max(layout.outer * 1.6, 1200);
    let seed = 12345;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    const count = 700;
    for (let i = 0; i < count; i++) {
      const x = (rand() * 2 - 1) * extent;
      const y = (rand() * 2 - 1) * extent;
      const r = 0.6 + rand() * rand() * 2.2;
      g.circle(x, y, r);
    }
    g.fill({ color: 0xaab8d8, alpha: 0.35 });
    // Faint guides of the belt's inner and outer edge.
    g.circle(0, 0, layout.inner - layout.radius * 2).stroke({ width: 1.5, color: 0x32405e, alpha: 0.5 });
    g.circle(0, 0, layout.outer + layout.radius * 2).stroke({ width: 1.5, color: 0x32405e, alpha: 0.5 });
  }

  // ---- highlights, texts, the danger overlay ----------------------------------------------------------

  setHighlights(h: Highlights): void {
    const core = this.core;
    const before = core.highlights;
    core.highlights = h;
    this.highlightLayer.apply();
    // Labels are written again only when what they show can change (the destinations, the settler's place);
    // a new focus or hover only lays them out again.
    if (before.targets !== h.targets || before.here !== h.here || before.current !== h.current) core.stamp++;
    core.labelsDirty = true;
  }

  /** The language changed: texts drawn on the map (storm labels, countdowns) are written again. */
  invalidateText(): void {
    this.drawnForecasts = null;
    this.core.stamp++;
    this.core.labelsDirty = true;
  }

  get dangerOverlay(): boolean {
    return this.labels.dangerOverlay;
  }

  /** The danger overlay: every countdown of an exposed reactive core labelled, at any zoom. */
  setDangerOverlay(on: boolean): void {
    this.labels.dangerOverlay = on;
    this.core.stamp++;
    this.core.labelsDirty = true;
  }

  // ---- camera and culling ----------------------------------------------------------------------------

  private viewChanged(): void {
    if (!this.core.layout) return;
    const vis = this.camera.visible(this.radius * 3);
    this.asteroids.cull(vis);
    this.links.cull(vis);
    if (this.camera.zoom !== this.lastZoom) {
      this.lastZoom = this.camera.zoom;
      this.storms.scale();
      this.labels.scale();
    }
    this.storms.keepInView();
    this.core.labelsDirty = true;
  }

  // ---- picking and navigation ------------------------------------------------------------------------

  /** The asteroid under a screen point, if any. */
  pick(sx: number, sy: number): string | null {
    return this.asteroids.pick(sx, sy);
  }

  centerOn(id: string, smooth = true, zoom?: number): void {
    const p = this.position(id);
    if (p) this.camera.lookAt(p.x, p.y, zoom ?? Math.max(this.camera.zoom, 0.9), smooth);
  }

  /** Shows an asteroid and its neighbours. */
  frame(ids: string[], smooth = true): void {
    const pts = ids.map((id) => this.position(id)).filter((p): p is { x: number; y: number } => Boolean(p));
    if (!pts.length) return;
    const R = this.radius * 4;
    const r = {
      x0: Math.min(...pts.map((p) => p.x)) - R,
      y0: Math.min(...pts.map((p) => p.y)) - R,
      x1: Math.max(...pts.map((p) => p.x)) + R,
      y1: Math.max(...pts.map((p) => p.y)) + R,
    };
    const { width, height } = this.camera.size;
    const zoom = Math.min(1.6, (width - 120) / Math.max(1, r.x1 - r.x0), (height - 120) / Math.max(1, r.y1 - r.y0));
    this.camera.lookAt((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2, zoom, smooth);
  }

  fitAll(smooth = true): void {
    const l = this.core.layout;
    if (!l) return;
    const r = l.outer + l.radius * 6;
    this.camera.fit({ x0: -r, y0: -r, x1: r, y1: r }, 20, smooth);
  }

  private tick(dt: number): void {
    this.time += dt;
    this.camera.tick(dt);
    this.tweens.tick(dt);
    this.effects.tick(dt);
    // While the camera moves, labels follow at most ten times a second.
    if (this.core.labelsDirty && (this.time - this.lastLabels > 100 || !this.camera.moving)) {
      this.lastLabels = this.time;
      this.labels.refresh();
    }
    if (!this.tweens.reducedMotion) this.highlightLayer.tick(this.time);
  }
}
