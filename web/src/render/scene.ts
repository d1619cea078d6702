// The belt on a WebGL canvas (PixiJS 8): the Sun and the stars, and the layers that share its layout and camera
// (render/core.ts) — storms, links and gates, asteroids, highlights, tokens, effects and labels, each in
// render/layers/. Static things live in spatial chunks inside one render group, so panning and zooming only
// move the group and hide the chunks off screen. Frames are drawn only while something changes or moves: the
// scene's own animation-frame loop stops when the scene is still and starts again on the next change (an idle
// belt costs no frames, which on a phone, or wherever WebGL is drawn in software, leaves the page free to answer
// the player at once).

import { Application, Container, Graphics, type Sprite } from "pixi.js";
import type { Model } from "../model";
import type { AsteroidView, GameEvent } from "../types";
import { Atlas } from "./atlas";
import { Camera } from "./camera";
import { type Highlights, SceneCore, type SceneText } from "./core";
import { Effects } from "./effects";
import { AsteroidLayer } from "./layers/asteroids";
import { HighlightLayer } from "./layers/highlights";
import { type LabelBox, LabelLayer } from "./layers/labels";
import { LinkLayer } from "./layers/links";
import { StormLayer } from "./layers/storms";
import { TokenLayer } from "./layers/tokens";
import { computeLayout, type Layout } from "./layout";
import { BACKGROUND } from "./palette";
import { QualityGovernor } from "./quality";
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
  private readonly effectLayer = new Container({ isRenderGroup: true });
  private readonly effects: Effects;
  private existing = -1;
  /** When the labels were last laid out (performance.now()). */
  private lastLabels = -Infinity;
  private lastZoom = -1;
  /** What the sprites were last drawn from: asteroid records, the forecasts and the round. */
  private readonly drawnRecords = new Map<string, AsteroidView>();
  private drawnForecasts: unknown = null;
  private drawnRound = -1;
  /** Called after each frame of the scene with its start and end (performance.now(); for the benchmark). */
  onFrame: ((start: number, end: number) => void) | null = null;
  /** The animation frame asked for, or 0; and the time of the last frame while frames run (-1: stopped). */
  private frameId = 0;
  private lastFrame = -1;
  /** Until when frames are held back (performance.now()), and the timer that resumes them. */
  private heldUntil = 0;
  private resume = 0;
  /** Something changed since the last frame drawn: the next tick draws. */
  private dirty = true;
  /** The resolution and the pulse, lowered while handing frames over to the screen costs the page too much. */
  private readonly governor: QualityGovernor;
  /** Measures a frame's hand-over: a message posted after the render is taken once the frame is done. */
  private readonly handover = new MessageChannel();
  private renderedAt = 0;

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
    this.labels.stormTexts = () => this.storms.texts;
    this.labels.obstacles = () => this.tokens.boxes();
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
    this.camera.onGlide = () => this.requestFrame();
    this.tweens.onStart = () => this.requestFrame();
    this.governor = new QualityGovernor(window.devicePixelRatio || 1);
    this.handover.port1.onmessage = () => this.handedOver();
  }

  /** Creates the WebGL canvas inside `host`. */
  static async create(host: HTMLElement, text: SceneText, reducedMotion: boolean): Promise<BeltScene> {
    const app = new Application();
    await app.init({
      resizeTo: host,
      antialias: false,
      background: BACKGROUND,
      preference: "webgl",
      resolution: new QualityGovernor(window.devicePixelRatio || 1).quality.resolution,
      autoDensity: true,
      // The scene runs its own frames (see `animationFrame`): PixiJS's ticker would draw one on every refresh.
      autoStart: false,
    });
    app.canvas.setAttribute("aria-hidden", "true");
    app.canvas.classList.add("belt-canvas");
    host.appendChild(app.canvas);
    const scene = new BeltScene(app, text);
    scene.tweens.reducedMotion = reducedMotion;
    scene.camera.resize(host.clientWidth, host.clientHeight);
    app.renderer.on("resize", (w: number, h: number) => scene.camera.resize(w, h));
    app.canvas.addEventListener("webglcontextrestored", () => scene.requestFrame());
    scene.requestFrame();
    return scene;
  }

  /** Draws the next frame (and keeps drawing while anything moves); call after changing what the scene shows. */
  requestFrame(): void {
    this.dirty = true;
    if (!this.frameId) this.frameId = requestAnimationFrame(this.animationFrame);
  }

  /** One animation frame: advances what moves, draws when anything changed, and asks for the next frame only
   * while something still moves. */
  private readonly animationFrame = (now: number): void => {
    this.frameId = 0;
    const start = performance.now();
    if (start < this.heldUntil) {
      // Held back while an answer is on its way: it is taken as soon as it comes, not after a frame.
      if (!this.resume) this.resume = window.setTimeout(() => this.release(), this.heldUntil - start);
      return;
    }
    // The first frame after a pause advances by one display refresh; later ones by the time since the last
    // (at most 100 ms, so that a stalled page does not jump its animations to their end).
    const dt = this.lastFrame < 0 ? 1000 / 60 : Math.min(100, Math.max(0, now - this.lastFrame));
    this.lastFrame = now;
    const more = this.tick(dt);
    // A change during the tick (the camera moved, a tween started) may have asked for the next frame already.
    if (more || this.frameId) {
      if (!this.frameId) this.frameId = requestAnimationFrame(this.animationFrame);
    } else {
      this.lastFrame = -1;
    }
    this.onFrame?.(start, performance.now());
  };

  /** The resolution the belt is drawn with (canvas pixels per CSS pixel). */
  get resolution(): number {
    return this.app.renderer.resolution;
  }

  /** Whether the highlights pulse (not where frames cost the page too much; see quality.ts). */
  get pulsing(): boolean {
    return this.governor.quality.pulse && !this.tweens.reducedMotion;
  }

  /** A frame drawn after `renderedAt` has been handed over to the screen (its commit done): the governor hears
   * what that cost, and lowers the resolution, then stops the pulse, when it keeps costing too much. */
  private handedOver(): void {
    const next = this.governor.record(performance.now() - this.renderedAt);
    if (next === null) return;
    const r = this.app.renderer;
    if (next.resolution !== r.resolution) r.resize(r.screen.width, r.screen.height, next.resolution);
    if (!next.pulse) this.highlightLayer.rest();
    this.requestFrame();
  }

  /** True while the scene draws frames (something changed or moves). */
  get animating(): boolean {
    return this.frameId !== 0;
  }

  /** The player has acted: the highlights' pulse ends, and no frame is drawn (animations wait) until the answer
   * comes, or `ms` at most — where a frame costs the page tens of milliseconds, the answer would otherwise wait
   * for the frame under way when it arrives. */
  hold(ms = 200): void {
    this.highlightLayer.rest();
    this.heldUntil = performance.now() + ms;
  }

  /** Frames go on (the answer came, or the hold timed out). */
  release(): void {
    this.heldUntil = 0;
    if (this.resume) window.clearTimeout(this.resume);
    this.resume = 0;
    if (this.dirty || this.lastFrame >= 0) this.requestFrame();
  }

  destroy(): void {
    if (this.frameId) cancelAnimationFrame(this.frameId);
    this.frameId = -1; // no frame is asked for any more
    window.clearTimeout(this.resume);
    this.handover.port1.close();
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
    this.requestFrame();
  }

  /** Marks an asteroid briefly: the player's own action there was done. */
  acknowledge(id: string): void {
    const p = this.position(id);
    if (p) this.effects.acknowledge(p.x, p.y, this.radius, () => this.requestFrame());
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
    // The same highlights again (the panels were drawn again, or an action was sent) draw no frame.
    if (sameHighlights(before, h)) return;
    core.highlights = h;
    this.highlightLayer.apply();
    // Labels are written again only when what they show can change (the destinations, the settler's place);
    // a new focus or hover only lays them out again.
    if (before.targets !== h.targets || before.here !== h.here || before.current !== h.current) core.stamp++;
    core.labelsDirty = true;
    this.requestFrame();
  }

  /** The language changed: texts drawn on the map (storm labels, countdowns) are written again. */
  invalidateText(): void {
    this.drawnForecasts = null;
    this.core.stamp++;
    this.core.labelsDirty = true;
    this.requestFrame();
  }

  /** The labels on the map now, each with its box in CSS pixels of the map (tests read them: the labels are
   * drawn on the canvas, out of the page's reach). */
  labelBoxes(): LabelBox[] {
    return this.labels.boxes();
  }

  get dangerOverlay(): boolean {
    return this.labels.dangerOverlay;
  }

  /** The danger overlay: every countdown of an exposed reactive core labelled, at any zoom. */
  setDangerOverlay(on: boolean): void {
    this.labels.dangerOverlay = on;
    this.core.stamp++;
    this.core.labelsDirty = true;
    this.requestFrame();
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
    this.requestFrame();
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

  /** Shows these asteroids whole (an asteroid and its neighbours, a settler and its target), inside the part of
   * the map that `insets` (CSS px covered at each edge: a banner, the map's buttons) leave free. */
  frame(ids: string[], smooth = true, insets: Insets = NO_INSETS): void {
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
    const free = this.freeArea(insets);
    const fw = free.x1 - free.x0;
    const fh = free.y1 - free.y0;
    // a margin for the labels under the asteroids at the edge (less of it on a small screen)
    const margin = Math.min(60, fw * 0.12, fh * 0.12);
    const zoom = Math.min(1.6, (fw - margin * 2) / Math.max(1, r.x1 - r.x0), (fh - margin * 2) / Math.max(1, r.y1 - r.y0));
    const z = Math.min(this.camera.maxZoom, Math.max(this.camera.minZoom, zoom));
    // the rectangle's centre on the free area's centre
    const cx = (r.x0 + r.x1) / 2 - ((free.x0 + free.x1) / 2 - width / 2) / z;
    const cy = (r.y0 + r.y1) / 2 - ((free.y0 + free.y1) / 2 - height / 2) / z;
    this.camera.lookAt(cx, cy, z, smooth);
  }

  /** Whether these asteroids are all on screen, inside the part of the map that `insets` leave free (where the
   * camera is gliding to, while it glides). */
  shows(ids: string[], insets: Insets = NO_INSETS): boolean {
    const free = this.freeArea(insets);
    const { width, height } = this.camera.size;
    const d = this.camera.destination;
    const pad = this.radius * d.zoom;
    for (const id of ids) {
      const p = this.position(id);
      if (!p) continue;
      const sx = (p.x - d.x) * d.zoom + width / 2;
      const sy = (p.y - d.y) * d.zoom + height / 2;
      if (sx < free.x0 + pad || sx > free.x1 - pad || sy < free.y0 + pad || sy > free.y1 - pad) return false;
    }
    return true;
  }

  private freeArea(insets: Insets): { x0: number; y0: number; x1: number; y1: number } {
    const { width, height } = this.camera.size;
    const x0 = Math.min(insets.left, width * 0.4);
    const x1 = Math.max(x0 + 80, width - Math.min(insets.right, width * 0.4));
    const y0 = Math.min(insets.top, height * 0.6);
    const y1 = Math.max(y0 + 80, height - Math.min(insets.bottom, height * 0.4));
    return { x0, y0, x1, y1 };
  }

  fitAll(smooth = true): void {
    const l = this.core.layout;
    if (!l) return;
    const r = l.outer + l.radius * 6;
    this.camera.fit({ x0: -r, y0: -r, x1: r, y1: r }, 20, smooth);
  }

  /** Advances and draws one frame; true while anything still moves (another frame is needed). */
  private tick(dt: number): boolean {
    // A glide, a tween or a particle changes the picture on this tick.
    let changed = this.camera.gliding || this.tweens.busy || this.effects.busy;
    this.camera.tick(dt);
    this.tweens.tick(dt);
    this.effects.tick(dt);
    // While the camera moves, labels follow at most ten times a second (by the clock: the scene's frames pause
    // when it is still, and the first frame after a pause lays them out at once).
    const now = performance.now();
    if (this.core.labelsDirty && (now - this.lastLabels > 100 || !this.camera.moving)) {
      this.lastLabels = now;
      this.labels.refresh();
      changed = true;
    }
    const pulsing = this.pulsing && this.highlightLayer.tick(dt);
    if (changed || pulsing || this.dirty) {
      this.dirty = false;
      this.app.render();
      if (!this.governor.settled) {
        this.renderedAt = performance.now();
        this.handover.port2.postMessage(null);
      }
    }
    // Still: nothing more to draw until something changes again.
    return pulsing || this.camera.gliding || this.tweens.busy || this.effects.busy || this.core.labelsDirty;
  }
}

/** CSS pixels covered at each edge of the map (by a banner, the map's buttons). */
export interface Insets {
  top: number;
  right: number;
  bottom: number;
  left: number;
}

const NO_INSETS: Insets = { top: 0, right: 0, bottom: 0, left: 0 };

/** Whether two highlights show the same: the same places, the same destinations with the same legality. */
function sameHighlights(a: Highlights, b: Highlights): boolean {
  if (a.here !== b.here || a.current !== b.current || a.focus !== b.focus || a.hover !== b.hover) return false;
  if (a.targets === b.targets) return true;
  if (a.targets.size !== b.targets.size) return false;
  for (const [id, ok] of a.targets) if (b.targets.get(id) !== ok) return false;
  return true;
}
