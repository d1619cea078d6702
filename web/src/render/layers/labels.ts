// The labels layer: names under the asteroids that matter now (the current one, the destinations, occupied ones,
// every one when zoomed in), with their mantle, when they next come near the Sun or leave it, and the countdown
// of a bare ice or uranium core; placed so that they never cover each other.

import { BitmapText, Container, Graphics, Sprite } from "pixi.js";
import type { AsteroidView } from "../../types";
import { LABEL_FONT, type SceneCore } from "../core";

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

export class LabelLayer {
  readonly container = new Container({ isRenderGroup: true });
  private readonly labels: Label[] = [];
  private readonly labelOf = new Map<string, Label>();
  private readonly freeLabels: Label[] = [];
  /** The danger overlay: every countdown of an exposed reactive core labelled, at any zoom. */
  dangerOverlay = false;

  constructor(private readonly core: SceneCore) {}

  /** Labels keep their size on screen whatever the zoom. */
  scale(): void {
    for (const l of this.labels) l.root.scale.set(1 / this.core.camera.zoom);
  }

  refresh(): void {
    this.core.labelsDirty = false;
    const layout = this.core.layout;
    const model = this.core.model;
    if (!layout || !model) return;
    const z = this.core.camera.zoom;
    const vis = this.core.camera.visible(this.core.radius * 2);
    const h = this.core.highlights;
    const px = this.core.radius * z; // an asteroid's radius on screen
    const wanted: string[] = [];
    const important = new Set<string>();
    const key = new Set<string>([h.here, h.focus, h.hover].filter((x): x is string => Boolean(x)));
    for (const id of key) important.add(id);
    if (px >= 5) for (const id of h.targets.keys()) important.add(id);
    // Every exposed ice or uranium core counts down on the map; the danger overlay labels them at any zoom.
    if (this.dangerOverlay || px >= 5) {
      for (const a of model.view.asteroids) {
        if (a.exists && a.mantle === 0 && (a.core === "ice" || a.core === "uranium") && this.core.text.reaction(a.id)) {
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
      const sp = this.core.camera.toScreen(p.x, p.y);
      const top = sp.y + (this.core.sprites.get(id)?.radius ?? this.core.radius) * 1.05 * z;
      const half = Math.max(id.length * 4 + 4, detailOne ? 30 : 0);
      const react = this.core.text.reaction(id);
      const tall = (detailOne ? 34 : 17) + (react ? 16 : 0);
      if (!fits({ x0: sp.x - half, y0: top, x1: sp.x + half, y1: top + tall }, key.has(id) || Boolean(react && this.dangerOverlay))) continue;
      keep.add(id);
      let label = this.labelOf.get(id);
      const fresh = !label;
      if (!label) {
        label = this.freeLabels.pop() ?? this.newLabel();
        this.labelOf.set(id, label);
        const R = this.core.sprites.get(id)?.radius ?? this.core.radius;
        label.root.position.set(p.x, p.y + R * 1.05);
      }
      label.root.visible = true;
      label.root.scale.set(1 / z);
      const strong = strongOne;
      const detail = detailOne;
      const stamp = `${this.core.stamp}|${strong}|${detail}|${everyLabel}|${react}`;
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
    label.sun.texture = this.core.tex(near ? "sun-near" : "sun-far");
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
    const sun = new Sprite(this.core.tex("sun-far"));
    sun.anchor.set(0.5);
    sun.width = sun.height = 15;
    sun.y = 26;
    const sunText = new BitmapText({ text: "", style: { ...style, fontSize: 12 } });
    sunText.y = 19;
    const react = new BitmapText({ text: "", style: { ...style, fontSize: 12, fontWeight: "700" as const } });
    react.tint = 0xff9a5c;
    root.addChild(name, layers, mantle, sun, sunText, react);
    this.container.addChild(root);
    const label = { root, layers, name, sun, sunText, mantle, react, stamp: "" };
    this.labels.push(label);
    return label;
  }
}
