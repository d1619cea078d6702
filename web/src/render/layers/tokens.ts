// The tokens layer: settlers (ships in their player's colour, numbered), robots and UFOs on their asteroids,
// gliding along a flight or fading through a gate, and fading out when gone.

import { BitmapText, Container } from "pixi.js";
import type { Model } from "../../model";
import type { GameEvent } from "../../types";
import { LABEL_FONT, type SceneCore } from "../core";
import { SEAT_COLOUR } from "../palette";
import { easeOut } from "../tween";

export class TokenLayer {
  readonly container = new Container({ isRenderGroup: true });
  private readonly tokens = new Map<string, Container>();

  constructor(private readonly core: SceneCore) {}

  private tokenFor(kind: "settler" | "robot" | "ufo", id: string): Container {
    let t = this.tokens.get(id);
    if (t) return t;
    t = new Container();
    t.label = id;
    const R = this.core.radius;
    if (kind === "settler") {
      const seat = this.core.seatOf(id) % SEAT_COLOUR.length;
      const body = this.core.sprite(`ship-${seat}`);
      body.width = body.height = R * 1.0;
      const num = new BitmapText({
        text: this.core.text.settlerLabel(id),
        style: { fontFamily: LABEL_FONT, fontSize: 24, fontWeight: "800", fill: 0x05070d },
      });
      num.anchor.set(0.5);
      num.scale.set((R * 0.56) / 24);
      num.y = R * 0.02;
      t.addChild(body, num);
    } else {
      const body = this.core.sprite(kind);
      body.width = body.height = kind === "ufo" ? R * 1.3 : R * 1.0;
      t.addChild(body);
    }
    this.container.addChild(t);
    this.tokens.set(id, t);
    return t;
  }

  /** The settlers' tokens on screen, as boxes in CSS pixels of the map (labels keep clear of them). */
  boxes(): { x0: number; y0: number; x1: number; y1: number }[] {
    const camera = this.core.camera;
    const half = this.core.radius * 0.5 * camera.zoom;
    const out: { x0: number; y0: number; x1: number; y1: number }[] = [];
    if (half < 3) return out; // too small to hide a word under
    const vis = camera.visible(this.core.radius);
    for (const t of this.tokens.values()) {
      if (!t.visible || t.x < vis.x0 || t.x > vis.x1 || t.y < vis.y0 || t.y > vis.y1) continue;
      const c = camera.toScreen(t.x, t.y);
      out.push({ x0: c.x - half, y0: c.y - half, x1: c.x + half, y1: c.y + half });
    }
    return out;
  }

  private slot(model: Model, id: string, kind: "settler" | "robot" | "ufo", at: string): { x: number; y: number } {
    const p = this.core.layout!.pos.get(at)!;
    const a = model.asteroids.get(at);
    const R = this.core.sprites.get(at)?.radius ?? this.core.radius;
    const list = kind === "settler" ? a?.settlers : kind === "robot" ? a?.robots : a?.ufos;
    const k = Math.max(0, list?.indexOf(id) ?? 0);
    const base = kind === "settler" ? -Math.PI * 0.78 : kind === "robot" ? Math.PI * 0.62 : Math.PI * 0.35;
    const step = kind === "settler" ? 0.62 : 0.55;
    const ring = R * (1.38 + Math.floor(k / 6) * 0.55);
    const ang = base + (k % 6) * step;
    return { x: p.x + Math.cos(ang) * ring, y: p.y + Math.sin(ang) * ring };
  }

  update(model: Model, events: GameEvent[]): void {
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
      if (!alive || !at || !this.core.layout!.pos.has(at)) return;
      live.add(id);
      const t = this.tokenFor(kind, id);
      const dest = this.slot(model, id, kind, at);
      const m = moved.get(id);
      const fromAst = m ? this.core.layout!.pos.get(m.from) : undefined;
      if (m && fromAst && !this.core.tweens.reducedMotion) {
        const sx = m.gate ? dest.x : t.x || fromAst.x;
        const sy = m.gate ? dest.y : t.y || fromAst.y;
        if (m.gate) {
          t.alpha = 0;
          this.core.tweens.add(420, (p) => {
            t.alpha = p;
            t.scale.set(0.4 + 0.6 * p);
          }, { delay: m.delay, ease: easeOut });
          t.position.set(sx, sy);
        } else {
          this.core.tweens.add(520, (p) => {
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
        this.core.tweens.add(500, (p) => {
          t.alpha = 1 - p;
          t.scale.set(1 + p * 0.6);
        }, { done: () => t.destroy({ children: true }), delay: 200 });
      }
    }
  }
}
