// The belt on a WebGL canvas (PixiJS 8): the Sun, storm sectors, links, asteroids (mantle strata, core glyph,
// near-Sun halo, shelter dome, storm mark), gates, settlers, robots and UFOs, with highlights, labels and
// animations. Static things live in spatial chunks inside one render group, so panning and zooming only
// move the group and hide the chunks off screen.

import { Application, BitmapText, Container, Graphics, Sprite, Text, type Texture } from "pixi.js";
import { HUB_DEGREE, type Model } from "../model";
import type { AsteroidView, GameEvent } from "../types";
import { Atlas, BODY_VARIANTS, CELL, MAX_RINGS } from "./atlas";
import { Camera, type Rect } from "./camera";
import { computeLayout, type Layout } from "./layout";
import { Effects } from "./effects";
import { BACKGROUND, CORE_COLOUR, GATE, HIGHLIGHT, LINK, NEIGHBOUR, SEAT_COLOUR, STORM } from "./palette";
import { Tweens, easeOut } from "./tween";

export interface Highlights {
  /** The asteroid of the settler whose step it is. */
  here: string | null;
  /** The settler whose step it is. */
  current: string | null;
  /** Move targets from `here` (asteroids), true when the move is legal now. */
  targets: Map<string, boolean>;
  /** The destination chosen with the keyboard. */
  focus: string | null;
  /** The asteroid under the pointer. */
  hover: string | null;
}

export interface SceneText {
  storm(rounds: number): string;
  settlerLabel(id: string): string;
  /** "explodes in 3", "sublimates now": the countdown of an asteroid's exposed reactive core, or null. */
  reaction(id: string): string | null;
}

interface AsteroidSprites {
  dot: Sprite;
  halo: Sprite;
  body: Sprite;
  core: Sprite;
  shelter: Sprite;
  storm: Sprite;
  hub: Sprite | null;
  cell: string;
  variant: number;
  radius: number;
}

interface Chunk {
  key: string;
  rect: Rect;
  parts: Container[];
  /** The links whose middle lies in the chunk: drawn wide when zoomed in, as 1-pixel lines when zoomed out. */
  links: Graphics;
  thin: Graphics;
}

interface Label {
  root: Container;
  stamp: string;
  layers: Graphics;
  name: BitmapText;
  sun: Sprite;
  sunText: BitmapText;
  mantle: BitmapText;
  react: BitmapText;
}

const CHUNK = 640;
/** From this zoom up, links are drawn as wide lines; below it as 1-pixel lines. */
const WIDE_LINKS = 0.7;
/** Below this zoom, the links of hubs are not drawn (the hub's own mark shows it is one). */
const HUB_LINKS = 1.0;
/** Below this on-screen radius (pixels), asteroids are drawn as dots. */
const DOTS_BELOW = 4.5;
const LABEL_FONT = "Inter Variable, DejaVu Sans, sans-serif";

export class BeltScene {
  readonly app: Application;
  readonly camera: Camera;
  readonly tweens = new Tweens();
  private readonly atlas: Atlas;
  private readonly world = new Container({ isRenderGroup: true });
  private readonly stars = new Graphics();
  private readonly stormLayer = new Container();
  private readonly stormGraphics = new Graphics();
  private readonly linkLayer = new Container();
  private readonly hubLinks = new Container();
  /** Each hub's links, with the box they span (to hide those off screen). */
  private hubs: { g: Graphics; box: Rect }[] = [];
  private readonly highlightLinks = new Graphics();
  private readonly gateLinks = new Graphics();
  private readonly haloLayer = new Container();
  private readonly bodyLayer = new Container();
  private readonly coreLayer = new Container();
  private readonly badgeLayer = new Container();
  /** Zoomed far out, one dot per asteroid (coloured by its core) stands in for body, core and badges. */
  private readonly dotLayer = new Container();
  private readonly ringLayer = new Container();
  private readonly gateLayer = new Container();
  private readonly actorLayer = new Container();
  private readonly effectLayer = new Container();
  private readonly labelLayer = new Container();
  private readonly effects: Effects;
  private layout: Layout | null = null;
  private model: Model | null = null;
  private readonly sprites = new Map<string, AsteroidSprites>();
  private readonly chunks = new Map<string, Chunk>();
  private readonly tokens = new Map<string, Container>();
  private readonly gateSprites = new Map<string, Sprite>();
  private readonly labels: Label[] = [];
  private readonly labelOf = new Map<string, Label>();
  private readonly freeLabels: Label[] = [];
  /** Changes with every new view or highlight, so that labels know to lay out their text again. */
  private modelStamp = 0;
  private lastLabels = 0;
  private readonly stormTexts: Text[] = [];
  private readonly rings: Sprite[] = [];
  private hereRing: Sprite;
  private focusRing: Sprite;
  private hoverRing: Sprite;
  private grid = new Map<string, string[]>();
  private existing = -1;
  private highlights: Highlights = { here: null, current: null, targets: new Map(), focus: null, hover: null };
  private time = 0;
  private labelsDirty = true;
  private lastZoom = -1;
  private seatOf: (settler: string) => number = () => 0;
  /** Milliseconds spent in the last frames' render calls (for the benchmark). */
  readonly frameTimes: number[] = [];

  private constructor(app: Application, private readonly text: SceneText) {
    this.app = app;
    this.atlas = new Atlas();
    this.camera = new Camera(this.world);
    this.effects = new Effects(this.effectLayer, this.atlas, this.tweens);
    this.hereRing = this.sprite("ring", HIGHLIGHT);
    this.focusRing = this.sprite("ring", 0xffffff);
    this.hoverRing = this.sprite("ring-thin", 0xffffff);
    this.ringLayer.addChild(this.hereRing, this.focusRing, this.hoverRing);
    this.stormLayer.addChild(this.stormGraphics);
    this.linkLayer.addChild(this.hubLinks);
    this.world.addChild(
      this.stars, this.stormLayer, this.linkLayer, this.gateLinks, this.highlightLinks, this.haloLayer,
      this.bodyLayer, this.coreLayer, this.badgeLayer, this.dotLayer, this.ringLayer, this.gateLayer, this.actorLayer,
      this.effectLayer, this.labelLayer,
    );
    app.stage.addChild(this.world);
    const sun = this.sprite("sun");
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
    this.seatOf = seatOf;
  }

  get radius(): number {
    return this.layout?.radius ?? 15;
  }

  /** Where an asteroid is drawn (world units). */
  position(id: string): { x: number; y: number } | undefined {
    return this.layout?.pos.get(id);
  }

  // ---- the model -------------------------------------------------------------------------------------

  /** Shows a new view; `events` (what led to it) are animated. */
  setModel(model: Model, events: GameEvent[] = []): void {
    const first = this.layout === null;
    if (first) {
      this.layout = computeLayout(model.view.asteroids);
      this.buildStatic(model);
    }
    this.model = model;
    const existing = model.view.asteroids.reduce((n, a) => n + (a.exists ? 1 : 0), 0);
    if (existing !== this.existing) {
      this.existing = existing;
      this.buildLinks(model);
    }
    // A view keeps the records that did not change (applyDiff): only new records, or every one when the
    // forecasts changed (each asteroid's storm mark), are drawn again; the storms only when they or the round did.
    const stormsChanged = model.view.forecasts !== this.drawnForecasts || model.round !== this.drawnRound;
    this.drawnForecasts = model.view.forecasts;
    this.drawnRound = model.round;
    for (const a of model.view.asteroids) {
      if (!stormsChanged && this.drawnRecords.get(a.id) === a) continue;
      this.drawnRecords.set(a.id, a);
      this.updateAsteroid(a);
    }
    this.updateGates(model);
    if (stormsChanged) this.updateStorms(model);
    this.updateTokens(model, events);
    this.effects.play(events, (id) => this.position(id), this.radius, model);
    this.applyHighlights();
    this.modelStamp++;
    this.labelsDirty = true;
    if (first) this.viewChanged();
  }

  private sprite(name: string, tint = 0xffffff): Sprite {
    const s = new Sprite(this.atlas.get(name));
    s.anchor.set(0.5);
    s.tint = tint;
    return s;
  }

  private tex(name: string): Texture {
    return this.atlas.get(name);
  }

  private chunkOf(x: number, y: number): Chunk {
    const cx = Math.floor(x / CHUNK);
    const cy = Math.floor(y / CHUNK);
    const key = `${cx},${cy}`;
    let chunk = this.chunks.get(key);
    if (!chunk) {
      const parts = [new Container(), new Container(), new Container(), new Container(), new Container()];
      const links = new Graphics();
      const thin = new Graphics();
      this.haloLayer.addChild(parts[0]!);
      this.bodyLayer.addChild(parts[1]!);
      this.coreLayer.addChild(parts[2]!);
      this.badgeLayer.addChild(parts[3]!);
      this.dotLayer.addChild(parts[4]!);
      this.linkLayer.addChild(links, thin);
      chunk = { key, rect: { x0: cx * CHUNK, y0: cy * CHUNK, x1: (cx + 1) * CHUNK, y1: (cy + 1) * CHUNK }, parts, links, thin };
      this.chunks.set(key, chunk);
    }
    return chunk;
  }

  private buildStatic(model: Model): void {
    const layout = this.layout!;
    const R = layout.radius;
    this.drawStars(layout);
    const sun = this.world.getChildByLabel("sun") as Sprite;
    const sunSize = Math.max(R * 10, layout.inner * 0.55);
    sun.width = sun.height = sunSize;
    for (const a of model.view.asteroids) {
      const p = layout.pos.get(a.id);
      if (!p) continue;
      const chunk = this.chunkOf(p.x, p.y);
      const hub = model.isHub(a);
      const radius = hub ? R * 1.7 : R;
      const variant = hash(a.id) % BODY_VARIANTS;
      const s: AsteroidSprites = {
        dot: this.sprite("dot"),
        halo: this.sprite("halo"),
        body: this.sprite(`body-${variant}-0`),
        core: this.sprite("core-unknown"),
        shelter: this.sprite("shelter"),
        storm: this.sprite("storm-mark"),
        hub: hub ? this.sprite("hub") : null,
        cell: chunk.key,
        variant,
        radius,
      };
      const d = (radius * 2 * CELL) / (CELL - 2);
      s.halo.position.set(p.x, p.y);
      s.halo.width = s.halo.height = d * 2.15;
      s.body.position.set(p.x, p.y);
      s.body.width = s.body.height = d;
      s.body.rotation = (hash(a.id + "r") % 628) / 100;
      s.core.position.set(p.x, p.y);
      s.shelter.position.set(p.x, p.y);
      s.shelter.width = s.shelter.height = d * 1.3;
      s.storm.position.set(p.x - radius * 0.95, p.y - radius * 0.95);
      s.storm.width = s.storm.height = radius * 0.95;
      chunk.parts[0]!.addChild(s.halo);
      chunk.parts[1]!.addChild(s.body);
      chunk.parts[2]!.addChild(s.core);
      chunk.parts[3]!.addChild(s.shelter, s.storm);
      s.dot.position.set(p.x, p.y);
      s.dot.width = s.dot.height = d * 1.5;
      chunk.parts[4]!.addChild(s.dot);
      if (s.hub) {
        s.hub.position.set(p.x, p.y);
        s.hub.width = s.hub.height = d * 1.35;
        chunk.parts[3]!.addChild(s.hub);
      }
      this.sprites.set(a.id, s);
      const gk = `${Math.floor(p.x / (R * 4))},${Math.floor(p.y / (R * 4))}`;
      const list = this.grid.get(gk);
      if (list) list.push(a.id);
      else this.grid.set(gk, [a.id]);
    }
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

  private buildLinks(model: Model): void {
    const layout = this.layout!;
    for (const c of this.chunks.values()) {
      c.links.clear();
      c.thin.clear();
    }
    for (const h of this.hubs) h.g.destroy();
    this.hubs = [];
    const hubGraphics = new Map<string, { g: Graphics; box: Rect }>();
    const used = new Set<Graphics>();
    for (const a of model.view.asteroids) {
      if (!a.exists) continue;
      const p = layout.pos.get(a.id);
      if (!p) continue;
      const hub = model.isHub(a);
      for (const n of a.neighbours ?? []) {
        if (n < a.id) continue; // links are symmetric (R2): each once
        const b = model.asteroids.get(n);
        if (!b || !b.exists) continue;
        const q = layout.pos.get(n);
        if (!q) continue;
        if (hub || model.isHub(b)) {
          const owner = hub ? a.id : n;
          let entry = hubGraphics.get(owner);
          if (!entry) {
            entry = { g: new Graphics(), box: { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity } };
            hubGraphics.set(owner, entry);
          }
          entry.g.moveTo(p.x, p.y).lineTo(q.x, q.y);
          const box = entry.box;
          box.x0 = Math.min(box.x0, p.x, q.x);
          box.y0 = Math.min(box.y0, p.y, q.y);
          box.x1 = Math.max(box.x1, p.x, q.x);
          box.y1 = Math.max(box.y1, p.y, q.y);
        } else {
          const c = this.chunkOf((p.x + q.x) / 2, (p.y + q.y) / 2);
          c.links.moveTo(p.x, p.y).lineTo(q.x, q.y);
          c.thin.moveTo(p.x, p.y).lineTo(q.x, q.y);
          used.add(c.links);
          used.add(c.thin);
        }
      }
    }
    for (const c of this.chunks.values()) {
      if (used.has(c.links)) c.links.stroke({ width: 2.2, color: LINK, alpha: 0.45 });
      if (used.has(c.thin)) c.thin.stroke({ width: 1, color: LINK, alpha: 0.55, pixelLine: true });
    }
    // Hubs have hundreds of long links: thin lines, and only when zoomed in far enough to tell them apart
    // (zoomed out they would only veil the belt, and cost a software renderer dearly).
    for (const entry of hubGraphics.values()) {
      entry.g.stroke({ width: 1, color: LINK, alpha: 0.1, pixelLine: true });
      this.hubLinks.addChild(entry.g);
      this.hubs.push(entry);
    }
  }

  private updateAsteroid(a: AsteroidView): void {
    const s = this.sprites.get(a.id);
    if (!s) return;
    if (!a.exists) {
      for (const sp of [s.dot, s.halo, s.body, s.core, s.shelter, s.storm, s.hub]) if (sp) sp.visible = false;
      return;
    }
    const mantle = a.mantle ?? 0;
    s.body.texture = this.tex(`body-${s.variant}-${Math.min(MAX_RINGS, mantle)}`);
    const core = a.core ?? "unknown";
    s.core.texture = this.tex(`core-${core}`);
    const exposed = mantle === 0;
    const coreSize = (s.radius * (exposed ? 1.12 : 0.86) * CELL) / (CELL - 2);
    s.core.width = s.core.height = coreSize;
    s.core.alpha = exposed || core === "unknown" ? 1 : 0.92;
    s.halo.visible = a.near === true;
    s.dot.tint = CORE_COLOUR[core] ?? 0xffffff;
    s.shelter.visible = a.shelter === true;
    s.storm.visible = this.model?.stormAt.has(a.id) ?? false;
  }

  private updateGates(model: Model): void {
    const layout = this.layout!;
    const R = layout.radius;
    const seen = new Set<string>();
    this.gateLinks.clear();
    const perAsteroid = new Map<string, number>();
    for (const g of model.view.gates) {
      if (!g.exists || !g.at) continue;
      const p = layout.pos.get(g.at);
      if (!p) continue;
      seen.add(g.id);
      let sp = this.gateSprites.get(g.id);
      if (!sp) {
        sp = this.sprite("gate");
        this.gateLayer.addChild(sp);
        this.gateSprites.set(g.id, sp);
      }
      const k = perAsteroid.get(g.at) ?? 0;
      perAsteroid.set(g.at, k + 1);
      const ang = Math.PI * 0.8 + k * 0.55;
      sp.texture = this.tex(g.active ? "gate" : "gate-off");
      sp.tint = g.haywire ? STORM : 0xffffff;
      sp.width = R * 1.0;
      sp.height = R * 1.0;
      sp.position.set(p.x + Math.cos(ang) * R * 1.55, p.y + Math.sin(ang) * R * 1.55);
      const partner = model.gates.get(g.partner);
      if (g.active && partner?.at && g.id < partner.id) {
        const q = layout.pos.get(partner.at);
        if (q) this.arc(this.gateLinks, p, q);
      }
    }
    this.gateLinks.stroke({ width: 3, color: GATE, alpha: 0.85, cap: "round" });
    for (const [id, sp] of this.gateSprites) {
      if (!seen.has(id)) {
        sp.destroy();
        this.gateSprites.delete(id);
      }
    }
  }

  /** A dashed arc between two points, bowed outwards from the Sun. */
  private arc(g: Graphics, p: { x: number; y: number }, q: { x: number; y: number }): void {
    const mx = (p.x + q.x) / 2;
    const my = (p.y + q.y) / 2;
    const len = Math.hypot(q.x - p.x, q.y - p.y);
    let nx = -(q.y - p.y) / (len || 1);
    let ny = (q.x - p.x) / (len || 1);
    if (nx * mx + ny * my < 0) {
      nx = -nx;
      ny = -ny;
    }
    const bow = len * 0.18;
    const cx = mx + nx * bow;
    const cy = my + ny * bow;
    const steps = Math.max(12, Math.floor(len / 14));
    for (let i = 0; i < steps; i += 2) {
      const a = bez(p, { x: cx, y: cy }, q, i / steps);
      const b = bez(p, { x: cx, y: cy }, q, Math.min(1, (i + 1) / steps));
      g.moveTo(a.x, a.y).lineTo(b.x, b.y);
    }
  }

  private updateStorms(model: Model): void {
    const layout = this.layout!;
    const g = this.stormGraphics;
    g.clear();
    for (const t of this.stormTexts) t.destroy();
    this.stormTexts.length = 0;
    const r0 = Math.max(layout.radius * 6, layout.inner - layout.radius * 3);
    const r1 = layout.outer + layout.radius * 3;
    for (const f of model.view.forecasts) {
      const rounds = f.round - model.round;
      if (f.sector && layout.laidOut) {
        const [start, width] = f.sector;
        const a0 = (-(start + width) * Math.PI) / 180;
        const a1 = (-start * Math.PI) / 180;
        g.moveTo(Math.cos(a0) * r0, Math.sin(a0) * r0);
        g.arc(0, 0, r1, a0, a1);
        g.arc(0, 0, r0, a1, a0, true);
        g.closePath();
        g.fill({ color: STORM, alpha: rounds <= 0 ? 0.2 : 0.1 });
        g.moveTo(Math.cos(a0) * r0, Math.sin(a0) * r0).lineTo(Math.cos(a0) * r1, Math.sin(a0) * r1);
        g.moveTo(Math.cos(a1) * r0, Math.sin(a1) * r0).lineTo(Math.cos(a1) * r1, Math.sin(a1) * r1);
        g.stroke({ width: 3, color: STORM, alpha: 0.75 });
        const mid = (a0 + a1) / 2;
        const label = new Text({
          text: this.text.storm(rounds),
          style: {
            fontFamily: LABEL_FONT, fontSize: 15, fontWeight: "700", fill: 0xffffff,
            stroke: { color: 0x000000, width: 4 }, align: "center",
          },
          resolution: 2,
        });
        label.anchor.set(0.5);
        const want = { x: Math.cos(mid) * (r1 + layout.radius * 2.2), y: Math.sin(mid) * (r1 + layout.radius * 2.2) };
        (label as Text & { want?: { x: number; y: number } }).want = want;
        label.position.set(want.x, want.y);
        label.label = "storm-label";
        this.stormLayer.addChild(label);
        this.stormTexts.push(label);
      } else {
        for (const id of f.asteroids) {
          const p = layout.pos.get(id);
          if (p) g.circle(p.x, p.y, layout.radius * 2.1);
        }
        g.fill({ color: STORM, alpha: 0.16 });
      }
    }
    this.scaleOverlays();
  }

  // ---- actors ----------------------------------------------------------------------------------------

  private tokenFor(kind: "settler" | "robot" | "ufo", id: string): Container {
    let t = this.tokens.get(id);
    if (t) return t;
    t = new Container();
    t.label = id;
    const R = this.radius;
    if (kind === "settler") {
      const seat = this.seatOf(id) % SEAT_COLOUR.length;
      const body = this.sprite(`ship-${seat}`);
      body.width = body.height = R * 1.0;
      const num = new BitmapText({
        text: this.text.settlerLabel(id),
        style: { fontFamily: LABEL_FONT, fontSize: 24, fontWeight: "800", fill: 0x05070d },
      });
      num.anchor.set(0.5);
      num.scale.set((R * 0.56) / 24);
      num.y = R * 0.02;
      t.addChild(body, num);
    } else {
      const body = this.sprite(kind);
      body.width = body.height = kind === "ufo" ? R * 1.3 : R * 1.0;
      t.addChild(body);
    }
    this.actorLayer.addChild(t);
    this.tokens.set(id, t);
    return t;
  }

  private slot(model: Model, id: string, kind: "settler" | "robot" | "ufo", at: string): { x: number; y: number } {
    const p = this.layout!.pos.get(at)!;
    const a = model.asteroids.get(at);
    const R = this.sprites.get(at)?.radius ?? this.radius;
    const list = kind === "settler" ? a?.settlers : kind === "robot" ? a?.robots : a?.ufos;
    const k = Math.max(0, list?.indexOf(id) ?? 0);
    const base = kind === "settler" ? -Math.PI * 0.78 : kind === "robot" ? Math.PI * 0.62 : Math.PI * 0.35;
    const step = kind === "settler" ? 0.62 : 0.55;
    const ring = R * (1.38 + Math.floor(k / 6) * 0.55);
    const ang = base + (k % 6) * step;
    return { x: p.x + Math.cos(ang) * ring, y: p.y + Math.sin(ang) * ring };
  }

  private updateTokens(model: Model, events: GameEvent[]): void {
    const live = new Set<string>();
    const moved = new Map<string, { from: string; delay: number; gate: boolean }>();
    let delay = 0;
    for (const e of events) {
      if ((e.type === "moved" || e.type === "landed") && typeof e.actor === "string") {
        moved.set(e.actor, { from: String(e.origin), delay, gate: Boolean(e.via) });
        delay += 140;
      }
    }
    const place = (kind: "settler" | "robot" | "ufo", id: string, at: string | null, alive: boolean): void => {
      if (!alive || !at || !this.layout!.pos.has(at)) return;
      live.add(id);
      const t = this.tokenFor(kind, id);
      const dest = this.slot(model, id, kind, at);
      const m = moved.get(id);
      const fromAst = m ? this.layout!.pos.get(m.from) : undefined;
      if (m && fromAst && !this.tweens.reducedMotion) {
        const sx = m.gate ? dest.x : t.x || fromAst.x;
        const sy = m.gate ? dest.y : t.y || fromAst.y;
        if (m.gate) {
          t.alpha = 0;
          this.tweens.add(420, (p) => {
            t.alpha = p;
            t.scale.set(0.4 + 0.6 * p);
          }, { delay: m.delay, ease: easeOut });
          t.position.set(sx, sy);
        } else {
          this.tweens.add(520, (p) => {
            t.position.set(sx + (dest.x - sx) * p, sy + (dest.y - sy) * p);
          }, { delay: m.delay });
        }
      } else {
        t.position.set(dest.x, dest.y);
        t.alpha = 1;
        t.scale.set(1);
      }
    };
    for (const s of model.view.settlers) place("settler", s.id, s.at, s.alive);
    for (const r of model.view.robots) place("robot", r.id, r.at, r.alive);
    for (const u of model.view.ufos) place("ufo", u.id, u.at, u.alive);
    for (const [id, t] of this.tokens) {
      if (!live.has(id)) {
        this.tokens.delete(id);
        this.tweens.add(500, (p) => {
          t.alpha = 1 - p;
          t.scale.set(1 + p * 0.6);
        }, { done: () => t.destroy({ children: true }), delay: 200 });
      }
    }
  }

  // ---- highlights ------------------------------------------------------------------------------------

  setHighlights(h: Highlights): void {
    const before = this.highlights;
    this.highlights = h;
    this.applyHighlights();
    // Labels are written again only when what they show can change (the destinations, the settler's place);
    // a new focus or hover only lays them out again.
    if (!before || before.targets !== h.targets || before.here !== h.here || before.current !== h.current) this.modelStamp++;
    this.labelsDirty = true;
  }

  private applyHighlights(): void {
    const h = this.highlights;
    const layout = this.layout;
    if (!layout) return;
    const R = layout.radius;
    const put = (sp: Sprite, id: string | null, scale: number): void => {
      const p = id ? layout.pos.get(id) : undefined;
      const s = id ? this.sprites.get(id) : undefined;
      sp.visible = Boolean(p && this.model?.asteroids.get(id!)?.exists);
      if (p) {
        sp.position.set(p.x, p.y);
        sp.width = sp.height = (s?.radius ?? R) * scale;
      }
    };
    put(this.hereRing, h.here, 3.1);
    put(this.focusRing, h.focus, 3.5);
    put(this.hoverRing, h.hover && h.hover !== h.focus ? h.hover : null, 3.2);
    this.focusRing.tint = NEIGHBOUR;
    const g = this.highlightLinks;
    g.clear();
    let i = 0;
    const here = h.here ? layout.pos.get(h.here) : undefined;
    const sameTargets = h.targets === this.ringsFor && h.here === this.ringsHere;
    this.ringsFor = h.targets;
    this.ringsHere = h.here;
    // From a hub, a line to each of hundreds of destinations would veil the belt: only the chosen or hovered
    // destination gets its line there.
    const lines = h.targets.size < HUB_DEGREE;
    for (const [id, ok] of sameTargets && !lines ? [] : h.targets) {
      const p = layout.pos.get(id);
      if (!p) continue;
      let ring = this.rings[i];
      if (!ring) {
        ring = this.sprite("ring-dashed", NEIGHBOUR);
        this.ringLayer.addChild(ring);
        this.rings.push(ring);
      }
      i++;
      const s = this.sprites.get(id);
      ring.visible = true;
      ring.tint = ok ? NEIGHBOUR : 0x7a8294;
      ring.alpha = ok ? 1 : 0.6;
      ring.position.set(p.x, p.y);
      ring.width = ring.height = (s?.radius ?? R) * 2.9;
      if (here && lines) g.moveTo(here.x, here.y).lineTo(p.x, p.y);
    }
    if (!lines && here && h.hover && h.targets.has(h.hover)) {
      const p = layout.pos.get(h.hover);
      if (p) g.moveTo(here.x, here.y).lineTo(p.x, p.y);
    }
    if (!(sameTargets && !lines)) for (; i < this.rings.length; i++) this.rings[i]!.visible = false;
    g.stroke({ width: 3.5, color: NEIGHBOUR, alpha: 0.85, cap: "round" });
    if (h.focus && here) {
      const p = layout.pos.get(h.focus);
      if (p) g.moveTo(here.x, here.y).lineTo(p.x, p.y).stroke({ width: 6, color: 0xffffff, alpha: 0.9, cap: "round" });
    }
  }

  // ---- camera, culling, labels -----------------------------------------------------------------------

  private viewChanged(): void {
    const layout = this.layout;
    if (!layout) return;
    const vis = this.camera.visible(this.radius * 3);
    const detailed = this.radius * this.camera.zoom >= DOTS_BELOW;
    if (this.bodyLayer.visible !== detailed || this.dotLayer.visible === detailed) {
      this.bodyLayer.visible = this.coreLayer.visible = this.badgeLayer.visible = detailed;
      this.dotLayer.visible = !detailed;
    }
    const hubsOn = this.camera.zoom >= HUB_LINKS;
    for (const h of this.hubs) {
      const on = hubsOn && h.box.x1 >= vis.x0 && h.box.x0 <= vis.x1 && h.box.y1 >= vis.y0 && h.box.y0 <= vis.y1;
      if (h.g.visible !== on) h.g.visible = on;
    }
    for (const c of this.chunks.values()) {
      const on = c.rect.x1 >= vis.x0 && c.rect.x0 <= vis.x1 && c.rect.y1 >= vis.y0 && c.rect.y0 <= vis.y1;
      const linkOn = c.rect.x1 >= vis.x0 - CHUNK && c.rect.x0 <= vis.x1 + CHUNK &&
        c.rect.y1 >= vis.y0 - CHUNK && c.rect.y0 <= vis.y1 + CHUNK;
      for (const p of c.parts) if (p.visible !== on) p.visible = on;
      const wide = this.camera.zoom >= WIDE_LINKS;
      if (c.links.visible !== (linkOn && wide)) c.links.visible = linkOn && wide;
      if (c.thin.visible !== (linkOn && !wide)) c.thin.visible = linkOn && !wide;
    }
    if (this.camera.zoom !== this.lastZoom) {
      this.lastZoom = this.camera.zoom;
      this.scaleOverlays();
    }
    this.keepStormLabelsInView();
    this.labelsDirty = true;
  }

  private scaleOverlays(): void {
    const z = this.camera.zoom;
    for (const t of this.stormTexts) t.scale.set(1 / Math.max(0.25, z));
    this.keepStormLabelsInView();
    for (const l of this.labels) l.root.scale.set(1 / z);
  }

  /** Each storm label sits at its sector's outer edge, moved along the sector's middle line into the view
   * when that edge is off screen, so a forecast's label is never cut by the map's border. */
  private keepStormLabelsInView(): void {
    const vis = this.camera.visible(-40 / Math.max(0.05, this.camera.zoom));
    for (const label of this.stormTexts) {
      const want = (label as Text & { want?: { x: number; y: number } }).want;
      if (!want) continue;
      const halfW = label.width / 2;
      const halfH = label.height / 2;
      const x = Math.min(Math.max(want.x, vis.x0 + halfW), vis.x1 - halfW);
      const y = Math.min(Math.max(want.y, vis.y0 + halfH), vis.y1 - halfH);
      label.position.set(vis.x0 + halfW > vis.x1 - halfW ? want.x : x, vis.y0 + halfH > vis.y1 - halfH ? want.y : y);
    }
  }

  /** What the sprites were last drawn from: asteroid records, the forecasts and the round. */
  private readonly drawnRecords = new Map<string, AsteroidView>();
  private drawnForecasts: unknown = null;
  private drawnRound = -1;

  /** The language changed: texts drawn on the map (storm labels, countdowns) are written again. */
  invalidateText(): void {
    this.drawnForecasts = null;
    this.modelStamp++;
    this.labelsDirty = true;
  }

  /** The targets (and the asteroid) the rings were last laid out for. */
  private ringsFor: Map<string, boolean> | null = null;
  private ringsHere: string | null = null;

  /** The danger overlay: every countdown of an exposed reactive core labelled, at any zoom. */
  dangerOverlay = false;

  setDangerOverlay(on: boolean): void {
    this.dangerOverlay = on;
    this.modelStamp++;
    this.labelsDirty = true;
  }

  private refreshLabels(): void {
    this.labelsDirty = false;
    const layout = this.layout;
    const model = this.model;
    if (!layout || !model) return;
    const z = this.camera.zoom;
    const vis = this.camera.visible(this.radius * 2);
    const h = this.highlights;
    const px = this.radius * z; // an asteroid's radius on screen
    const wanted: string[] = [];
    const important = new Set<string>();
    const key = new Set<string>([h.here, h.focus, h.hover].filter((x): x is string => Boolean(x)));
    for (const id of key) important.add(id);
    if (px >= 5) for (const id of h.targets.keys()) important.add(id);
    // Every exposed ice or uranium core counts down on the map; the danger overlay labels them at any zoom.
    if (this.dangerOverlay || px >= 5) {
      for (const a of model.view.asteroids) {
        if (a.exists && a.mantle === 0 && (a.core === "ice" || a.core === "uranium") && this.text.reaction(a.id)) {
          const p = layout.pos.get(a.id);
          if (this.dangerOverlay || (p && p.x >= vis.x0 && p.x <= vis.x1 && p.y >= vis.y0 && p.y <= vis.y1)) important.add(a.id);
        }
      }
    }
    for (const id of important) wanted.push(id);
    const everyLabel = px >= 9;
    if (everyLabel) {
      for (const a of model.view.asteroids) {
        if (!a.exists || important.has(a.id)) continue;
        const p = layout.pos.get(a.id);
        if (!p || p.x < vis.x0 || p.x > vis.x1 || p.y < vis.y0 || p.y > vis.y1) continue;
        wanted.push(a.id);
        if (wanted.length >= 320) break;
      }
    } else if (px >= 5) {
      for (const id of model.occupied()) if (!important.has(id)) wanted.push(id);
    }
    // Each asteroid keeps its label while it stays wanted; its text is laid out again only when the view or
    // the highlights changed, so that panning costs little.
    const keep = new Set<string>();
    // Labels must not cover each other: the important ones are placed first, the rest only where there is room.
    const taken = new Map<string, { x0: number; y0: number; x1: number; y1: number }[]>();
    const CELL_PX = 48;
    const fits = (box: { x0: number; y0: number; x1: number; y1: number }, force: boolean): boolean => {
      const cells: string[] = [];
      for (let cx = Math.floor(box.x0 / CELL_PX); cx <= Math.floor(box.x1 / CELL_PX); cx++) {
        for (let cy = Math.floor(box.y0 / CELL_PX); cy <= Math.floor(box.y1 / CELL_PX); cy++) cells.push(`${cx},${cy}`);
      }
      if (!force) {
        for (const c of cells) {
          for (const o of taken.get(c) ?? []) {
            if (box.x0 < o.x1 && box.x1 > o.x0 && box.y0 < o.y1 && box.y1 > o.y0) return false;
          }
        }
      }
      for (const c of cells) {
        const list = taken.get(c);
        if (list) list.push(box);
        else taken.set(c, [box]);
      }
      return true;
    };
    for (const id of wanted) {
      const a = model.asteroids.get(id);
      const p = layout.pos.get(id);
      if (!a || !a.exists || !p) continue;
      const strongOne = important.has(id);
      const detailOne = key.has(id) || (strongOne ? px >= 7 : px >= 13);
      const sp = this.camera.toScreen(p.x, p.y);
      const top = sp.y + (this.sprites.get(id)?.radius ?? this.radius) * 1.05 * z;
      const half = Math.max(id.length * 4 + 4, detailOne ? 30 : 0);
      const react = this.text.reaction(id);
      const tall = (detailOne ? 34 : 17) + (react ? 16 : 0);
      if (!fits({ x0: sp.x - half, y0: top, x1: sp.x + half, y1: top + tall }, key.has(id) || Boolean(react && this.dangerOverlay))) continue;
      keep.add(id);
      let label = this.labelOf.get(id);
      const fresh = !label;
      if (!label) {
        label = this.freeLabels.pop() ?? this.newLabel();
        this.labelOf.set(id, label);
        const R = this.sprites.get(id)?.radius ?? this.radius;
        label.root.position.set(p.x, p.y + R * 1.05);
      }
      label.root.visible = true;
      label.root.scale.set(1 / z);
      const strong = strongOne;
      const detail = detailOne;
      const stamp = `${this.modelStamp}|${strong}|${detail}|${everyLabel}|${react}`;
      if (!fresh && label.stamp === stamp) continue;
      label.stamp = stamp;
      this.fillLabel(label, a, model.round, strong, detail, everyLabel);
      label.react.text = react ?? "";
      label.react.visible = Boolean(react);
      label.react.x = -label.react.width / 2;
      label.react.y = detail ? 36 : 19;
    }
    for (const [id, label] of this.labelOf) {
      if (keep.has(id)) continue;
      label.root.visible = false;
      this.labelOf.delete(id);
      this.freeLabels.push(label);
    }
  }

  private fillLabel(label: Label, a: AsteroidView, round: number, strong: boolean, detail: boolean, every: boolean): void {
    label.name.text = a.id;
    const near = a.near === true;
    label.sun.texture = this.tex(near ? "sun-near" : "sun-far");
    const change = a.next_change;
    label.sunText.text = change == null ? "" : String(change - round);
    label.sunText.tint = near ? 0xf5b94a : 0xaab4c6;
    label.mantle.text = String(a.mantle ?? 0);
    label.name.x = -label.name.width / 2;
    const info = 14 + 3 + label.sunText.width + 10 + label.mantle.width + 12;
    let x = -info / 2;
    label.mantle.x = x + 12;
    label.layers.x = x + 12;
    x += 12 + label.mantle.width + 10;
    label.sun.x = x + 7;
    label.sunText.x = x + 17;
    label.layers.visible = label.mantle.visible = label.sun.visible = label.sunText.visible = detail;
    label.name.tint = strong ? 0xffffff : 0xc8d0de;
    label.root.alpha = strong || every ? 1 : 0.85;
  }

  private newLabel(): Label {
    const root = new Container();
    const style = { fontFamily: LABEL_FONT, fontSize: 13, fontWeight: "600" as const, fill: 0xffffff };
    const name = new BitmapText({ text: "", style });
    name.y = 2;
    const mantle = new BitmapText({ text: "", style: { ...style, fontSize: 12 } });
    mantle.y = 19;
    mantle.tint = 0xc9ced9;
    const layers = new Graphics();
    layers.rect(-12, 21, 9, 2).rect(-12, 25, 9, 2).rect(-12, 29, 9, 2).fill({ color: 0xc9ced9 });
    const sun = new Sprite(this.tex("sun-far"));
    sun.anchor.set(0.5);
    sun.width = sun.height = 15;
    sun.y = 26;
    const sunText = new BitmapText({ text: "", style: { ...style, fontSize: 12 } });
    sunText.y = 19;
    const react = new BitmapText({ text: "", style: { ...style, fontSize: 12, fontWeight: "700" as const } });
    react.tint = 0xff9a5c;
    root.addChild(name, layers, mantle, sun, sunText, react);
    this.labelLayer.addChild(root);
    const label = { root, layers, name, sun, sunText, mantle, react, stamp: "" };
    this.labels.push(label);
    return label;
  }

  // ---- picking and navigation ------------------------------------------------------------------------

  /** The asteroid under a screen point, if any. */
  pick(sx: number, sy: number): string | null {
    const layout = this.layout;
    if (!layout || !this.model) return null;
    const w = this.camera.toWorld(sx, sy);
    const R = layout.radius;
    const cell = R * 4;
    const gx = Math.floor(w.x / cell);
    const gy = Math.floor(w.y / cell);
    let best: string | null = null;
    let bestD = Infinity;
    const reach = Math.max(R * 1.6, 12 / this.camera.zoom);
    for (let dx = -2; dx <= 2; dx++) {
      for (let dy = -2; dy <= 2; dy++) {
        for (const id of this.grid.get(`${gx + dx},${gy + dy}`) ?? []) {
          if (!this.model.asteroids.get(id)?.exists) continue;
          const p = layout.pos.get(id)!;
          const d = Math.hypot(p.x - w.x, p.y - w.y);
          const r = Math.max(reach, this.sprites.get(id)?.radius ?? R);
          if (d < r && d < bestD) {
            best = id;
            bestD = d;
          }
        }
      }
    }
    return best;
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
    const l = this.layout;
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
    if (this.labelsDirty && (this.time - this.lastLabels > 100 || !this.camera.moving)) {
      this.lastLabels = this.time;
      this.refreshLabels();
    }
    // Gentle pulses on the current asteroid and the keyboard focus.
    if (!this.tweens.reducedMotion) {
      const pulse = 0.75 + 0.25 * Math.sin(this.time / 260);
      this.hereRing.alpha = pulse;
      for (const r of this.rings) if (r.visible) r.rotation = this.time / 3000;
      this.focusRing.rotation = -this.time / 2000;
    }
  }
}

function bez(p: { x: number; y: number }, c: { x: number; y: number }, q: { x: number; y: number }, t: number) {
  const u = 1 - t;
  return { x: u * u * p.x + 2 * u * t * c.x + t * t * q.x, y: u * u * p.y + 2 * u * t * c.y + t * t * q.y };
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}
