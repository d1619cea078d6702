// The highlights layer: the current asteroid's ring, the dashed rings of the places the settler can fly to, the
// chosen and hovered destinations, and the lines to them (from a hub, only to the chosen or hovered one).

import { Container, Graphics, type Sprite } from "pixi.js";
import { HUB_DEGREE } from "../../model";
import type { SceneCore } from "../core";
import { HIGHLIGHT, NEIGHBOUR } from "../palette";

export class HighlightLayer {
  /** The rings, over the asteroids. */
  readonly container = new Container();
  /** The lines, under the asteroids. */
  readonly lines = new Graphics();
  private readonly rings: Sprite[] = [];
  private readonly hereRing: Sprite;
  private readonly focusRing: Sprite;
  private readonly hoverRing: Sprite;
  /** The targets (and the asteroid) the rings were last laid out for. */
  private ringsFor: Map<string, boolean> | null = null;
  private ringsHere: string | null = null;

  constructor(private readonly core: SceneCore) {
    this.hereRing = core.sprite("ring", HIGHLIGHT);
    this.focusRing = core.sprite("ring", 0xffffff);
    this.hoverRing = core.sprite("ring-thin", 0xffffff);
    this.container.addChild(this.hereRing, this.focusRing, this.hoverRing);
  }

  /** Gentle pulses on the current asteroid and the destinations. */
  tick(time: number): void {
    this.hereRing.alpha = 0.75 + 0.25 * Math.sin(time / 260);
    for (const r of this.rings) if (r.visible) r.rotation = time / 3000;
    this.focusRing.rotation = -time / 2000;
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
