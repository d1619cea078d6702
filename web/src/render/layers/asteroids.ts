// The asteroids layer: each asteroid's near-Sun halo, body (its mantle's strata), core glyph, shelter and storm
// badges and hub mark, in spatial chunks (hidden off screen), or a dot coloured by its core when zoomed far out;
// and picking the asteroid under a point.

import { Container } from "pixi.js";
import type { Model } from "../../model";
import type { AsteroidView } from "../../types";
import { BODY_VARIANTS, CELL, MAX_RINGS } from "../atlas";
import type { Rect } from "../camera";
import { type AsteroidSprites, CHUNK, type SceneCore } from "../core";
import { CORE_COLOUR } from "../palette";

/** Below this on-screen radius (pixels), asteroids are drawn as dots. */
const DOTS_BELOW = 4.5;

interface Chunk {
  key: string;
  rect: Rect;
  /** halo, body, core, badges, dot */
  parts: Container[];
}

export class AsteroidLayer {
  readonly halos = new Container();
  readonly bodies = new Container();
  readonly cores = new Container();
  readonly badges = new Container();
  /** Zoomed far out, one dot per asteroid (coloured by its core) stands in for body, core and badges. */
  readonly dots = new Container();
  private readonly chunks = new Map<string, Chunk>();
  /** Asteroids by grid cell (4 radii wide), for picking. */
  private readonly grid = new Map<string, string[]>();

  constructor(private readonly core: SceneCore) {}

  private chunkOf(x: number, y: number): Chunk {
    const cx = Math.floor(x / CHUNK);
    const cy = Math.floor(y / CHUNK);
    const key = `${cx},${cy}`;
    let chunk = this.chunks.get(key);
    if (!chunk) {
      const parts = [new Container(), new Container(), new Container(), new Container(), new Container()];
      this.halos.addChild(parts[0]!);
      this.bodies.addChild(parts[1]!);
      this.cores.addChild(parts[2]!);
      this.badges.addChild(parts[3]!);
      this.dots.addChild(parts[4]!);
      chunk = { key, rect: { x0: cx * CHUNK, y0: cy * CHUNK, x1: (cx + 1) * CHUNK, y1: (cy + 1) * CHUNK }, parts };
      this.chunks.set(key, chunk);
    }
    return chunk;
  }

  /** Shows the chunks in view only, in detail or as dots by the zoom. */
  cull(vis: Rect): void {
    const detailed = this.core.radius * this.core.camera.zoom >= DOTS_BELOW;
    if (this.bodies.visible !== detailed || this.dots.visible === detailed) {
      this.bodies.visible = this.cores.visible = this.badges.visible = detailed;
      this.dots.visible = !detailed;
    }
    for (const c of this.chunks.values()) {
      const on = c.rect.x1 >= vis.x0 && c.rect.x0 <= vis.x1 && c.rect.y1 >= vis.y0 && c.rect.y0 <= vis.y1;
      for (const p of c.parts) if (p.visible !== on) p.visible = on;
    }
  }

  build(model: Model): void {
    const layout = this.core.layout!;
    const R = layout.radius;
    for (const a of model.view.asteroids) {
      const p = layout.pos.get(a.id);
      if (!p) continue;
      const chunk = this.chunkOf(p.x, p.y);
      const hub = model.isHub(a);
      const radius = hub ? R * 1.7 : R;
      const variant = hash(a.id) % BODY_VARIANTS;
      const s: AsteroidSprites = {
        dot: this.core.sprite("dot"),
        halo: this.core.sprite("halo"),
        body: this.core.sprite(`body-${variant}-0`),
        core: this.core.sprite("core-unknown"),
        shelter: this.core.sprite("shelter"),
        storm: this.core.sprite("storm-mark"),
        hub: hub ? this.core.sprite("hub") : null,
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
      this.core.sprites.set(a.id, s);
      const gk = `${Math.floor(p.x / (R * 4))},${Math.floor(p.y / (R * 4))}`;
      const list = this.grid.get(gk);
      if (list) list.push(a.id);
      else this.grid.set(gk, [a.id]);
    }
  }

  update(a: AsteroidView): void {
    const s = this.core.sprites.get(a.id);
    if (!s) return;
    if (!a.exists) {
      for (const sp of [s.dot, s.halo, s.body, s.core, s.shelter, s.storm, s.hub]) if (sp) sp.visible = false;
      return;
    }
    const mantle = a.mantle ?? 0;
    s.body.texture = this.core.tex(`body-${s.variant}-${Math.min(MAX_RINGS, mantle)}`);
    const core = a.core ?? "unknown";
    s.core.texture = this.core.tex(`core-${core}`);
    const exposed = mantle === 0;
    const coreSize = (s.radius * (exposed ? 1.12 : 0.86) * CELL) / (CELL - 2);
    s.core.width = s.core.height = coreSize;
    s.core.alpha = exposed || core === "unknown" ? 1 : 0.92;
    s.halo.visible = a.near === true;
    s.dot.tint = CORE_COLOUR[core] ?? 0xffffff;
    s.shelter.visible = a.shelter === true;
    s.storm.visible = this.core.model?.stormAt.has(a.id) ?? false;
  }

  /** The asteroid under a screen point, if any. */
  pick(sx: number, sy: number): string | null {
    const layout = this.core.layout;
    if (!layout || !this.core.model) return null;
    const w = this.core.camera.toWorld(sx, sy);
    const R = layout.radius;
    const cell = R * 4;
    const gx = Math.floor(w.x / cell);
    const gy = Math.floor(w.y / cell);
    let best: string | null = null;
    let bestD = Infinity;
    const reach = Math.max(R * 1.6, 12 / this.core.camera.zoom);
    for (let dx = -2; dx <= 2; dx++) {
      for (let dy = -2; dy <= 2; dy++) {
        for (const id of this.grid.get(`${gx + dx},${gy + dy}`) ?? []) {
          if (!this.core.model.asteroids.get(id)?.exists) continue;
          const p = layout.pos.get(id)!;
          const d = Math.hypot(p.x - w.x, p.y - w.y);
          const r = Math.max(reach, this.core.sprites.get(id)?.radius ?? R);
          if (d < r && d < bestD) {
            best = id;
            bestD = d;
          }
        }
      }
    }
    return best;
  }
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return h >>> 0;
}
