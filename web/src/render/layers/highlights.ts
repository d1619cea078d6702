// The highlights layer: the current asteroid's ring, the dashed rings of the places the settler can fly to, the
// chosen and hovered destinations, and the lines to them (from a hub, only to the chosen or hovered one).

import { Container, Graphics, type Sprite } from "pixi.js";
import { HUB_DEGREE } from "../../model";
import type { SceneCore } from "../core";
import { HIGHLIGHT, NEIGHBOUR } from "../palette";

/** How long the rings breathe after the turn, the place or the chosen destination changes (ms): one breath of
 * the current asteroid's ring catches the eye; then they hold still, so that a still belt draws no frames. */
export const PULSE_MS = 1630;

export class HighlightLayer {
  /** The rings, over the asteroids. */
  readonly container = new Container({ isRenderGroup: true });
  /** The lines, under the asteroids. */
  readonly lines = new Graphics({ isRenderGroup: true });
  private readonly rings: Sprite[] = [];
  private readonly hereRing: Sprite;
  private readonly focusRing: Sprite;
  private readonly hoverRing: Sprite;
  /** The targets (and the asteroid) the rings were last laid out for. */
  private ringsFor: Map<string, boolean> | null = null;
  private ringsHere: string | null = null;
  /** What the last pulse was started for: a new turn, place or focus pulses again; a hover does not. */
  private pulsedFor = "";
  /** Milliseconds into the running pulse, or null when the rings hold still. */
  private pulseAt: number | null = null;
  /** The rings' turn, advanced only while they pulse (so that each pulse goes on from where the last ended). */
  private spin = 0;

  constructor(private readonly core: SceneCore) {
    this.hereRing = core.sprite("ring", HIGHLIGHT);
    this.focusRing = core.sprite("ring", 0xffffff);
    this.hoverRing = core.sprite("ring-thin", 0xffffff);
    this.container.addChild(this.hereRing, this.focusRing, this.hoverRing);
  }

  /** A gentle pulse on the current asteroid and the destinations, for a moment after they change; true while it
   * runs (the scene then keeps drawing frames). */
  tick(dt: number): boolean {
    if (this.pulseAt === null) return false;
    this.pulseAt += dt;
    this.spin += dt;
    const done = this.pulseAt >= PULSE_MS;
    this.hereRing.alpha = done ? 1 : 0.75 + 0.25 * Math.cos((this.pulseAt / PULSE_MS) * Math.PI * 2);
    for (const r of this.rings) if (r.visible) r.rotation = this.spin / 3000;
    this.focusRing.rotation = -this.spin / 2000;
    if (done) this.pulseAt = null;
    return !done;
  }

  /** Ends the pulse at once (the player has acted: the highlights have done their job). */
  rest(): void {
    if (this.pulseAt === null) return;
    this.pulseAt = null;
    this.hereRing.alpha = 1;
  }

  apply(): void {
    const h = this.core.highlights;
    const layout = this.core.layout;
    if (!layout) return;
    const R = layout.radius;
    const put = (sp: Sprite, id: string | null, scale: number): void => {
      const p = id ? layout.pos.get(id) : undefined;
      const s = id ? this.core.sprites.get(id) : undefined;
      sp.visible = Boolean(p && this.core.model?.asteroids.get(id!)?.exists);
      if (p) {
        sp.position.set(p.x, p.y);
        sp.width = sp.height = (s?.radius ?? R) * scale;
      }
    };
    const pulseFor = `${h.current}|${h.here}|${h.focus}`;
    if (pulseFor !== this.pulsedFor) {
      this.pulsedFor = pulseFor;
      this.pulseAt = h.here ? 0 : null;
    }
    put(this.hereRing, h.here, 3.1);
    put(this.focusRing, h.focus, 3.5);
    put(this.hoverRing, h.hover && h.hover !== h.focus ? h.hover : null, 3.2);
    this.focusRing.tint = NEIGHBOUR;
    const g = this.lines;
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
        ring = this.core.sprite("ring-dashed", NEIGHBOUR);
        this.container.addChild(ring);
        this.rings.push(ring);
      }
      i++;
      const s = this.core.sprites.get(id);
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
}
