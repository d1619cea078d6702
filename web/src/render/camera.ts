// Pan and zoom of the world: drag with the mouse (or a finger), the wheel zooms around the pointer, and the
// keyboard pans and zooms too. Glides to a point smoothly. A drag never counts as a click.

import type { Container } from "pixi.js";

export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export class Camera {
  x = 0;
  y = 0;
  zoom = 1;
  minZoom = 0.05;
  maxZoom = 6;
  private target: { x: number; y: number; zoom: number } | null = null;
  private width = 1;
  private height = 1;
  private lastMove = 0;

  /** True while the view is being moved (within the last 150 ms). */
  get moving(): boolean {
    return this.target !== null || performance.now() - this.lastMove < 150;
  }

  /** True while a glide is under way (it moves the view a little every frame). */
  get gliding(): boolean {
    return this.target !== null;
  }

  /** Where the view is going: the end of the glide under way, or where it is. */
  get destination(): { x: number; y: number; zoom: number } {
    return this.target ?? { x: this.x, y: this.y, zoom: this.zoom };
  }

  /** Called whenever the view moved (to cull and place labels). */
  onChange: () => void = () => {};
  /** Called when a glide starts: the view will move on the coming frames. */
  onGlide: () => void = () => {};

  constructor(private readonly world: Container) {}

  resize(width: number, height: number): void {
    this.width = Math.max(1, width);
    this.height = Math.max(1, height);
    this.apply();
  }

  get size(): { width: number; height: number } {
    return { width: this.width, height: this.height };
  }

  /** The world rectangle on screen. */
  visible(margin = 0): Rect {
    const hw = this.width / 2 / this.zoom + margin;
    const hh = this.height / 2 / this.zoom + margin;
    return { x0: this.x - hw, y0: this.y - hh, x1: this.x + hw, y1: this.y + hh };
  }

  toWorld(sx: number, sy: number): { x: number; y: number } {
    return { x: this.x + (sx - this.width / 2) / this.zoom, y: this.y + (sy - this.height / 2) / this.zoom };
  }

  toScreen(wx: number, wy: number): { x: number; y: number } {
    return { x: (wx - this.x) * this.zoom + this.width / 2, y: (wy - this.y) * this.zoom + this.height / 2 };
  }

  panBy(dxScreen: number, dyScreen: number): void {
    this.target = null;
    this.x -= dxScreen / this.zoom;
    this.y -= dyScreen / this.zoom;
    this.apply();
  }

  /** Zoom by `factor`, keeping the world point under screen point (sx, sy) in place. */
  zoomAt(factor: number, sx = this.width / 2, sy = this.height / 2): void {
    this.target = null;
    const before = this.toWorld(sx, sy);
    this.zoom = clamp(this.zoom * factor, this.minZoom, this.maxZoom);
    const after = this.toWorld(sx, sy);
    this.x += before.x - after.x;
    this.y += before.y - after.y;
    this.apply();
  }

  /** Jump (or glide, with `smooth`) to centre on a world point. */
  lookAt(x: number, y: number, zoom = this.zoom, smooth = false): void {
    zoom = clamp(zoom, this.minZoom, this.maxZoom);
    if (!smooth) {
      this.target = null;
      this.x = x;
      this.y = y;
      this.zoom = zoom;
      this.apply();
      return;
    }
    this.target = { x, y, zoom };
    this.onGlide();
  }

  /** Zoom to show the world rectangle whole. */
  fit(r: Rect, padding = 40, smooth = false): void {
    const zoom = Math.min(
      (this.width - padding * 2) / Math.max(1, r.x1 - r.x0),
      (this.height - padding * 2) / Math.max(1, r.y1 - r.y0),
    );
    this.lookAt((r.x0 + r.x1) / 2, (r.y0 + r.y1) / 2, zoom, smooth);
  }

  /** Advances a glide; returns true while moving. */
  tick(dtMs: number): boolean {
    if (!this.target) return false;
    const k = 1 - Math.exp(-dtMs / 90);
    this.x += (this.target.x - this.x) * k;
    this.y += (this.target.y - this.y) * k;
    this.zoom *= Math.pow(this.target.zoom / this.zoom, k);
    const close = Math.abs(this.target.x - this.x) * this.zoom < 0.5 &&
      Math.abs(this.target.y - this.y) * this.zoom < 0.5 && Math.abs(this.target.zoom / this.zoom - 1) < 0.002;
    if (close) {
      this.x = this.target.x;
      this.y = this.target.y;
      this.zoom = this.target.zoom;
      this.target = null;
    }
    this.apply();
    return this.target !== null;
  }

  private apply(): void {
    this.lastMove = performance.now();
    this.world.scale.set(this.zoom);
    this.world.position.set(this.width / 2 - this.x * this.zoom, this.height / 2 - this.y * this.zoom);
    this.onChange();
  }

  /** Mouse and touch: drag pans, two fingers pinch-zoom, the wheel zooms; `onClick` gets taps and clicks that
   * were neither drags nor pinches. */
  attach(el: HTMLElement, onClick: (sx: number, sy: number) => void, onHover: (sx: number, sy: number) => void): void {
    let down: { x: number; y: number; id: number; moved: boolean } | null = null;
    const fingers = new Map<number, { x: number; y: number }>();
    let pinch: { d: number } | null = null;
    el.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      fingers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      el.setPointerCapture(e.pointerId);
      if (fingers.size === 2) {
        // A second finger turns the gesture into a pinch: no tap, no pan from the first finger any more.
        const [a, b] = [...fingers.values()] as [{ x: number; y: number }, { x: number; y: number }];
        pinch = { d: Math.hypot(a.x - b.x, a.y - b.y) || 1 };
        if (down) down.moved = true;
        return;
      }
      down = { x: e.clientX, y: e.clientY, id: e.pointerId, moved: false };
    });
    el.addEventListener("pointermove", (e) => {
      const r = el.getBoundingClientRect();
      if (fingers.has(e.pointerId)) fingers.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (pinch && fingers.size >= 2) {
        const [a, b] = [...fingers.values()] as [{ x: number; y: number }, { x: number; y: number }];
        const d = Math.hypot(a.x - b.x, a.y - b.y) || 1;
        this.zoomAt(d / pinch.d, (a.x + b.x) / 2 - r.left, (a.y + b.y) / 2 - r.top);
        pinch.d = d;
        return;
      }
      if (!down || down.id !== e.pointerId) {
        if (e.pointerType === "mouse") onHover(e.clientX - r.left, e.clientY - r.top);
        return;
      }
      const dx = e.clientX - down.x;
      const dy = e.clientY - down.y;
      if (!down.moved && Math.hypot(dx, dy) < (e.pointerType === "mouse" ? 5 : 10)) return;
      down.moved = true;
      el.classList.add("dragging");
      this.panBy(dx, dy);
      down.x = e.clientX;
      down.y = e.clientY;
    });
    const up = (e: PointerEvent): void => {
      fingers.delete(e.pointerId);
      if (fingers.size < 2) pinch = null;
      if (!down || down.id !== e.pointerId) return;
      const wasDrag = down.moved;
      down = null;
      el.classList.remove("dragging");
      if (!wasDrag && e.type === "pointerup") {
        const r = el.getBoundingClientRect();
        onClick(e.clientX - r.left, e.clientY - r.top);
      }
    };
    el.addEventListener("pointerup", up);
    el.addEventListener("pointercancel", up);
    el.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault();
        const r = el.getBoundingClientRect();
        const delta = e.deltaMode === 1 ? e.deltaY * 33 : e.deltaY;
        this.zoomAt(Math.exp(-delta * 0.0015), e.clientX - r.left, e.clientY - r.top);
      },
      { passive: false },
    );
  }
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}
