// The storms layer: each forecast's sector, shaded from the Sun outwards and labelled with when it hits (the
// label kept inside the view), or the ring of asteroids it hits on a belt without angles.

import { Container, Graphics, Text } from "pixi.js";
import type { Model } from "../../model";
import { LABEL_FONT, type SceneCore } from "../core";
import { STORM } from "../palette";

export class StormLayer {
  readonly container = new Container();
  private readonly graphics = new Graphics();
  /** The forecasts' labels (the labels layer places them among its own by priority). */
  readonly texts: Text[] = [];

  constructor(private readonly core: SceneCore) {
    this.container.addChild(this.graphics);
  }

  /** Labels keep their size on screen whatever the zoom. */
  scale(): void {
    const z = this.core.camera.zoom;
    for (const t of this.texts) t.scale.set(1 / Math.max(0.25, z));
    this.keepInView();
  }

  update(model: Model): void {
    const layout = this.core.layout!;
    const g = this.graphics;
    g.clear();
    for (const t of this.texts) t.destroy();
    this.texts.length = 0;
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
          text: this.core.text.storm(rounds),
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
        this.container.addChild(label);
        this.texts.push(label);
      } else {
        for (const id of f.asteroids) {
          const p = layout.pos.get(id);
          if (p) g.circle(p.x, p.y, layout.radius * 2.1);
        }
        g.fill({ color: STORM, alpha: 0.16 });
      }
    }
    this.scale();
  }

  /** Each storm label sits at its sector's outer edge, moved along the sector's middle line into the view
   * when that edge is off screen, so a forecast's label is never cut by the map's border nor hidden under its
   * buttons. */
  keepInView(): void {
    const zoom = Math.max(0.05, this.core.camera.zoom);
    const inner = this.core.camera.visible(-40 / zoom);
    // the map's buttons stand in a column along its right edge (66 px wide with their margin): no label under them
    const vis = { ...inner, x1: inner.x1 - 26 / zoom };
    for (const label of this.texts) {
      const want = (label as Text & { want?: { x: number; y: number } }).want;
      if (!want) continue;
      const halfW = label.width / 2;
      const halfH = label.height / 2;
      const x = Math.min(Math.max(want.x, vis.x0 + halfW), vis.x1 - halfW);
      const y = Math.min(Math.max(want.y, vis.y0 + halfH), vis.y1 - halfH);
      label.position.set(vis.x0 + halfW > vis.x1 - halfW ? want.x : x, vis.y0 + halfH > vis.y1 - halfH ? want.y : y);
    }
  }
}
