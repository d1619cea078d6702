// The labels layer: names under the asteroids that matter now (the current one, the destinations, occupied ones,
// every one when zoomed in), with their mantle, when they next come near the Sun or leave it, and the countdown
// of a bare ice or uranium core; placed by priority so that they never cover each other nor the storms' labels
// (a lower one moves to another side of its asteroid, or is hidden).

import { BitmapText, Container, Rectangle, Sprite, type Text } from "pixi.js";
import type { AsteroidView } from "../../types";
import { LABEL_FONT, type SceneCore } from "../core";

interface Label {
  root: Container;
  stamp: string;
  layers: Sprite;
  name: BitmapText;
  sun: Sprite;
  sunText: BitmapText;
  mantle: BitmapText;
  react: BitmapText;
  /** Its bounds in its own frame (screen pixels, the label keeping its size whatever the zoom). */
  local: Rectangle;
}

interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A label on screen and its box (CSS pixels of the map). */
export interface LabelBox extends Box {
  kind: "asteroid" | "storm";
  /** The asteroid's id, or a storm label's text. */
  id: string;
}

export class LabelLayer {
  readonly container = new Container({ isRenderGroup: true });
  private readonly labels: Label[] = [];
  private readonly labelOf = new Map<string, Label>();
  private readonly freeLabels: Label[] = [];
  /** The danger overlay: every countdown of an exposed reactive core labelled, at any zoom. */
  dangerOverlay = false;
  /** The storms' labels, placed among these by priority. */
  stormTexts: (() => Text[]) | null = null;
  /** Screen boxes no label but the first ones may cover (the settlers' tokens). */
  obstacles: (() => Box[]) | null = null;
  /** Each asteroid's label size as last measured, for what it said then (`stamp`): asteroids wanted but hidden
   * for want of room are placed by it without a label of their own. */
  private readonly measured = new Map<string, { stamp: string; local: Rectangle }>();
  private measuredFor = -1;
  private readonly placed: { kind: "asteroid" | "storm"; id: string; label: Label | null; text?: Text }[] = [];

  constructor(private readonly core: SceneCore) {}

  /** Labels keep their size on screen whatever the zoom (a hidden one gets its scale when it is placed). */
  scale(): void {
    for (const l of this.labels) if (l.root.visible) l.root.scale.set(1 / this.core.camera.zoom);
  }

  refresh(): void {
    this.core.labelsDirty = false;
    const layout = this.core.layout;
    const model = this.core.model;
    if (!layout || !model) return;
    const camera = this.core.camera;
    const z = camera.zoom;
    const vis = camera.visible(this.core.radius * 2);
    const h = this.core.highlights;
    const px = this.core.radius * z; // an asteroid's radius on screen
    const inView = (id: string): boolean => {
      const p = layout.pos.get(id);
      return Boolean(p && p.x >= vis.x0 && p.x <= vis.x1 && p.y >= vis.y0 && p.y <= vis.y1);
    };
    // Who goes first when two labels would cover each other (the later one is moved, or hidden): the current
    // settler's asteroid, then the storms' labels and the countdowns of exposed cores (dangers), then what the
    // player is pointed at (a lesson's or a hint's target, the destination chosen, the one under the pointer),
    // then the destinations, then the asteroids with someone on them, then the rest.
    const key = new Set<string>([h.here, h.focus, h.hover].filter((x): x is string => Boolean(x)));
    const important = new Set<string>(key);
    const danger: string[] = [];
    if (this.dangerOverlay || px >= 5) {
      for (const a of model.view.asteroids) {
        if (a.exists && a.mantle === 0 && (a.core === "ice" || a.core === "uranium") && this.core.text.reaction(a.id)) {
          if (this.dangerOverlay || inView(a.id)) danger.push(a.id);
        }
      }
    }
    for (const id of danger) important.add(id);
    if (px >= 5) for (const id of h.targets.keys()) important.add(id);
    const everyLabel = px >= 9;
    const wanted: string[] = [];
    const seen = new Set<string>();
    const want = (id: string | null | undefined): void => {
      if (id && !seen.has(id)) {
        seen.add(id);
        wanted.push(id);
      }
    };
    want(h.here);
    const stormsAt = wanted.length; // the storms' labels are placed after the current settler's
    for (const id of danger) want(id);
    const tokensAt = wanted.length; // the tokens are obstacles to the labels after the dangers
    want(h.focus);
    want(h.hover);
    if (px >= 5) for (const id of h.targets.keys()) want(id);
    if (everyLabel) {
      for (const a of model.view.asteroids) {
        if (!a.exists || seen.has(a.id) || !inView(a.id)) continue;
        want(a.id);
        if (wanted.length >= 320) break;
      }
    } else if (px >= 5) {
      for (const id of model.occupied()) want(id);
    }
    // Boxes taken on screen (CSS px), found by a grid of cells (numbered, not named: this runs for every label
    // wanted at every refresh, hundreds of them zoomed in); the settlers' tokens are taken first, so that no label
    // but the current one's lies under them.
    const taken = new Map<number, Box[]>();
    const CELL_PX = 48;
    // a cell's number from its column and row (a map is far less than 4096 cells of 48 px across or down)
    const cell = (cx: number, cy: number): number => (cx + 4096) * 8192 + (cy + 4096);
    const free = (box: Box): boolean => {
      const cx1 = Math.floor(box.x1 / CELL_PX);
      const cy0 = Math.floor(box.y0 / CELL_PX);
      const cy1 = Math.floor(box.y1 / CELL_PX);
      for (let cx = Math.floor(box.x0 / CELL_PX); cx <= cx1; cx++) {
        for (let cy = cy0; cy <= cy1; cy++) {
          const list = taken.get(cell(cx, cy));
          if (!list) continue;
          for (const o of list) {
            if (box.x0 < o.x1 && box.x1 > o.x0 && box.y0 < o.y1 && box.y1 > o.y0) return false;
          }
        }
      }
      return true;
    };
    const take = (box: Box): void => {
      const cx1 = Math.floor(box.x1 / CELL_PX);
      const cy0 = Math.floor(box.y0 / CELL_PX);
      const cy1 = Math.floor(box.y1 / CELL_PX);
      for (let cx = Math.floor(box.x0 / CELL_PX); cx <= cx1; cx++) {
        for (let cy = cy0; cy <= cy1; cy++) {
          const c = cell(cx, cy);
          const list = taken.get(c);
          if (list) list.push(box);
          else taken.set(c, [box]);
        }
      }
    };
    const obstacles = this.obstacles?.() ?? [];
    const keep = new Set<string>();
    this.placed.length = 0;
    wanted.forEach((id, i) => {
      if (i === stormsAt) this.placeStorms(free, take);
      if (i === tokensAt) {
        // the tokens are taken only now: the current asteroid's label and the dangers are never pushed off by them
        for (const o of obstacles) take(o);
      }
      const a = model.asteroids.get(id);
      const p = layout.pos.get(id);
      if (!a || !a.exists || !p) return;
      const strong = important.has(id);
      const detail = key.has(id) || (strong ? px >= 7 : px >= 13);
      const react = this.core.text.reaction(id);
      // what the label says (a label given back and taken by another asteroid is written anew: the id is in it)
      const stamp = `${id}|${this.core.stamp}|${strong}|${detail}|${everyLabel}|${react}`;
      let label = this.labelOf.get(id);
      // Its size: its label's, else as measured before (a label hidden for want of room gives its label back, and
      // is not written and measured again at every refresh while what it says stays the same), else measured now.
      const known = this.measured.get(id);
      let r = label?.stamp === stamp ? label.local : known?.stamp === stamp ? known.local : null;
      if (!r) {
        label ??= this.takeLabel(id);
        this.writeLabel(id, label, stamp, a, model.round, strong, detail, everyLabel, react);
        r = label.local;
      }
      // Below the asteroid if there is room, else above it, to its right, to its left; the current settler's
      // label always below (it is placed first).
      const sp = camera.toScreen(p.x, p.y);
      const R = (this.core.sprites.get(id)?.radius ?? this.core.radius) * z;
      // clear of the ring drawn around the current asteroid, the chosen destination, the one pointed at
      const ring = id === h.focus ? 1.6 : id === h.here ? 1.45 : id === h.hover ? 1.5 : 1.05;
      const PAD = 2;
      let at: { x: number; y: number; box: Box } | null = null;
      for (let side = 0; side < (id === h.here ? 1 : 4); side++) {
        const x = side === 0 || side === 1 ? sp.x
          : side === 2 ? sp.x + R * (ring + 0.1) - r.x : sp.x - R * (ring + 0.1) - (r.x + r.width);
        const y = side === 0 ? sp.y + R * ring
          : side === 1 ? sp.y - R * ring - (r.y + r.height) : sp.y - r.y - r.height / 2;
        const box = { x0: x + r.x - PAD, y0: y + r.y - PAD, x1: x + r.x + r.width + PAD, y1: y + r.y + r.height + PAD };
        if (id === h.here || free(box)) {
          at = { x, y, box };
          break;
        }
      }
      // no room anywhere near: hidden (it shows again when the view leaves room for it)
      if (!at) return;
      label ??= this.takeLabel(id);
      if (label.stamp !== stamp) this.writeLabel(id, label, stamp, a, model.round, strong, detail, everyLabel, react);
      keep.add(id);
      take(at.box);
      const w = camera.toWorld(at.x, at.y);
      label.root.position.set(w.x, w.y);
      label.root.visible = true;
      label.root.scale.set(1 / z);
      this.placed.push({ kind: "asteroid", id, label });
    });
    if (wanted.length <= stormsAt) this.placeStorms(free, take);
    for (const [id, label] of this.labelOf) {
      if (keep.has(id)) continue;
      label.root.visible = false;
      this.labelOf.delete(id);
      this.freeLabels.push(label);
    }
  }

  /** The storms' labels (kept in view by their layer) moved up or down out of the way of the labels placed
   * before them, and taken. */
  private placeStorms(free: (b: Box) => boolean, take: (b: Box) => void): void {
    const camera = this.core.camera;
    const z = camera.zoom;
    const { height } = camera.size;
    for (const text of this.stormTexts?.() ?? []) {
      if (!text.visible) continue;
      const c = camera.toScreen(text.x, text.y);
      const w = text.width * z;
      const hgt = text.height * z;
      let chosen: Box | null = null;
      for (const k of [0, 1, -1, 2, -2, 3, -3]) {
        const y = c.y + k * (hgt + 4);
        if (k !== 0 && (y - hgt / 2 < 0 || y + hgt / 2 > height)) continue;
        const box = { x0: c.x - w / 2 - 2, y0: y - hgt / 2 - 2, x1: c.x + w / 2 + 2, y1: y + hgt / 2 + 2 };
        if (free(box)) {
          chosen = box;
          break;
        }
      }
      if (!chosen) chosen = { x0: c.x - w / 2 - 2, y0: c.y - hgt / 2 - 2, x1: c.x + w / 2 + 2, y1: c.y + hgt / 2 + 2 };
      text.y = camera.toWorld(c.x, (chosen.y0 + chosen.y1) / 2).y;
      take(chosen);
      this.placed.push({ kind: "storm", id: text.text, label: null, text });
    }
  }

  /** The labels on screen now, each with its box in CSS pixels of the map (for tests and tools). */
  boxes(): LabelBox[] {
    const out: LabelBox[] = [];
    for (const p of this.placed) {
      const node = p.label ? p.label.root : p.text;
      if (!node || !node.visible || node.destroyed) continue;
      const b = node.getBounds();
      out.push({ kind: p.kind, id: p.id, x0: b.minX, y0: b.minY, x1: b.maxX, y1: b.maxY });
    }
    return out;
  }

  /** A label for `id`: one given back by another asteroid, else a new one. */
  private takeLabel(id: string): Label {
    const label = this.freeLabels.pop() ?? this.newLabel();
    this.labelOf.set(id, label);
    return label;
  }

  /** Writes what an asteroid's label says and measures it (the size kept for `stamp`). */
  private writeLabel(id: string, label: Label, stamp: string, a: AsteroidView, round: number, strong: boolean,
                     detail: boolean, every: boolean, react: string | null): void {
    if (this.measuredFor !== this.core.stamp) {
      // a new view or highlights: every label is written anew, so the sizes measured before are of no use
      this.measured.clear();
      this.measuredFor = this.core.stamp;
    }
    label.stamp = stamp;
    this.fillLabel(label, a, round, strong, detail, every);
    label.react.text = react ?? "";
    label.react.visible = Boolean(react);
    label.react.x = -label.react.width / 2;
    label.react.y = detail ? 36 : 19;
    label.local = label.root.getLocalBounds().rectangle.clone();
    this.measured.set(id, { stamp, local: label.local });
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
    label.layers.x = x - 0.5;
    x += 12 + label.mantle.width + 10;
    label.sun.x = x + 7;
    label.sunText.x = x + 17;
    label.layers.visible = label.mantle.visible = label.sun.visible = detail;
    label.sunText.visible = detail && change != null;
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
    const layers = new Sprite(this.core.tex("layers"));
    layers.width = layers.height = 10;
    layers.y = 21;
    layers.tint = 0xc9ced9;
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
    const label = { root, layers, name, sun, sunText, mantle, react, stamp: "", local: new Rectangle() };
    this.labels.push(label);
    return label;
  }
}
