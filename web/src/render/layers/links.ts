// The links layer: the belt's links in spatial chunks (wide lines zoomed in, 1-pixel lines zoomed out), the
// hubs' hundreds of links apart (faint, only zoomed in), and the gates with the dashed arcs of open pairs.

import { Container, Graphics, Sprite } from "pixi.js";
import type { Model } from "../../model";
import type { Rect } from "../camera";
import { CHUNK, type SceneCore } from "../core";
import { GATE, LINK, STORM } from "../palette";

/** From this zoom up, links are drawn as wide lines; below it as 1-pixel lines. */
const WIDE_LINKS = 0.7;
/** Below this zoom, the links of hubs are not drawn (the hub's own mark shows it is one). */
const HUB_LINKS = 1.0;

interface LinkChunk {
  rect: Rect;
  /** The links whose middle lies in the chunk: drawn wide when zoomed in, as 1-pixel lines when zoomed out. */
  links: Graphics;
  thin: Graphics;
}

export class LinkLayer {
  /** Links, under everything else but the storms. */
  readonly container = new Container();
  /** The gates' arcs, over the links. */
  readonly gateLinks = new Graphics();
  /** The gates themselves, over the asteroids. */
  readonly gates = new Container();
  private readonly hubLinks = new Container();
  private readonly chunks = new Map<string, LinkChunk>();
  private readonly gateSprites = new Map<string, Sprite>();
  /** Each hub's links, with the box they span (to hide those off screen). */
  private hubs: { g: Graphics; box: Rect }[] = [];

  constructor(private readonly core: SceneCore) {
    this.container.addChild(this.hubLinks);
  }

  private chunkOf(x: number, y: number): LinkChunk {
    const cx = Math.floor(x / CHUNK);
    const cy = Math.floor(y / CHUNK);
    const key = `${cx},${cy}`;
    let chunk = this.chunks.get(key);
    if (!chunk) {
      chunk = { rect: { x0: cx * CHUNK, y0: cy * CHUNK, x1: (cx + 1) * CHUNK, y1: (cy + 1) * CHUNK },
        links: new Graphics(), thin: new Graphics() };
      this.container.addChild(chunk.links, chunk.thin);
      this.chunks.set(key, chunk);
    }
    return chunk;
  }

  /** Shows the links near the view only, wide or thin by the zoom; hubs' links only zoomed in. */
  cull(vis: Rect): void {
    const zoom = this.core.camera.zoom;
    const hubsOn = zoom >= HUB_LINKS;
    for (const h of this.hubs) {
      const on = hubsOn && h.box.x1 >= vis.x0 && h.box.x0 <= vis.x1 && h.box.y1 >= vis.y0 && h.box.y0 <= vis.y1;
      if (h.g.visible !== on) h.g.visible = on;
    }
    const wide = zoom >= WIDE_LINKS;
    for (const c of this.chunks.values()) {
      const linkOn = c.rect.x1 >= vis.x0 - CHUNK && c.rect.x0 <= vis.x1 + CHUNK &&
        c.rect.y1 >= vis.y0 - CHUNK && c.rect.y0 <= vis.y1 + CHUNK;
      if (c.links.visible !== (linkOn && wide)) c.links.visible = linkOn && wide;
      if (c.thin.visible !== (linkOn && !wide)) c.thin.visible = linkOn && !wide;
    }
  }

  build(model: Model): void {
    const layout = this.core.layout!;
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

  updateGates(model: Model): void {
    const layout = this.core.layout!;
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
        sp = this.core.sprite("gate");
        this.gates.addChild(sp);
        this.gateSprites.set(g.id, sp);
      }
      const k = perAsteroid.get(g.at) ?? 0;
      perAsteroid.set(g.at, k + 1);
      const ang = Math.PI * 0.8 + k * 0.55;
      sp.texture = this.core.tex(g.active ? "gate" : "gate-off");
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
}

function bez(p: { x: number; y: number }, c: { x: number; y: number }, q: { x: number; y: number }, t: number) {
  const u = 1 - t;
  return { x: u * u * p.x + 2 * u * t * c.x + t * t * q.x, y: u * u * p.y + 2 * u * t * c.y + t * t * q.y };
}
