// Where each asteroid is drawn. A laid-out belt keeps its positions (the Sun at the origin, y up), scaled
// so that a typical link is comfortably long on screen; a belt without a layout gets a deterministic
// spring layout around an empty Sun.

import type { AsteroidView } from "../types";

export interface Layout {
  pos: Map<string, { x: number; y: number }>;
  /** World units per belt unit. */
  scale: number;
  /** Radius of an asteroid sprite in world units. */
  radius: number;
  /** Inner and outer radius of the belt around the Sun, in world units. */
  inner: number;
  outer: number;
  /** Whether the belt had its own layout (storm sectors need one). */
  laidOut: boolean;
}

/** The length of a typical link on screen at zoom 1. */
const LINK_PX = 76;

export function computeLayout(asteroids: AsteroidView[]): Layout {
  const all = asteroids.filter((a) => a.exists || a.position);
  const laidOut = all.length > 0 && all.every((a) => Array.isArray(a.position));
  const raw = new Map<string, [number, number]>();
  if (laidOut) for (const a of all) raw.set(a.id, a.position as [number, number]);
  else springLayout(all, raw);

  const lengths: number[] = [];
  for (const a of all) {
    const p = raw.get(a.id);
    for (const n of a.neighbours ?? []) {
      const q = raw.get(n);
      if (p && q && a.id < n) lengths.push(Math.hypot(p[0] - q[0], p[1] - q[1]));
    }
  }
  lengths.sort((x, y) => x - y);
  const median = lengths.length ? lengths[Math.floor(lengths.length / 2)]! : 1;
  const scale = LINK_PX / Math.max(1e-6, median);
  const pos = new Map<string, { x: number; y: number }>();
  let inner = Infinity;
  let outer = 0;
  for (const [id, p] of raw) {
    const x = p[0] * scale;
    const y = -p[1] * scale; // screen y points down; the belt's y axis points up
    pos.set(id, { x, y });
    const r = Math.hypot(x, y);
    inner = Math.min(inner, r);
    outer = Math.max(outer, r);
  }
  if (!Number.isFinite(inner)) inner = 0;
  return { pos, scale, radius: LINK_PX * 0.23, inner, outer, laidOut };
}

/** A small deterministic force layout on a ring, for belts that come without positions. */
function springLayout(asteroids: AsteroidView[], out: Map<string, [number, number]>): void {
  const n = asteroids.length;
  const index = new Map(asteroids.map((a, i) => [a.id, i]));
  const ring = Math.max(3, Math.sqrt(n) * 1.6);
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  asteroids.forEach((a, i) => {
    const t = (i / Math.max(1, n)) * Math.PI * 2;
    const r = ring * (1 + 0.25 * Math.sin(i * 12.9898));
    xs[i] = Math.cos(t) * r;
    ys[i] = Math.sin(t) * r;
    void a;
  });
  const edges: [number, number][] = [];
  for (const a of asteroids) {
    const i = index.get(a.id)!;
    for (const nb of a.neighbours ?? []) {
      const j = index.get(nb);
      if (j !== undefined && i < j) edges.push([i, j]);
    }
  }
  const iterations = n <= 400 ? 250 : 60;
  for (let it = 0; it < iterations; it++) {
    const fx = new Float64Array(n);
    const fy = new Float64Array(n);
    if (n <= 400) {
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          const dx = xs[i]! - xs[j]!;
          const dy = ys[i]! - ys[j]!;
          const d2 = Math.max(0.01, dx * dx + dy * dy);
          const f = 1 / d2;
          fx[i]! += dx * f;
          fy[i]! += dy * f;
          fx[j]! -= dx * f;
          fy[j]! -= dy * f;
        }
      }
    }
    for (const [i, j] of edges) {
      const dx = xs[j]! - xs[i]!;
      const dy = ys[j]! - ys[i]!;
      const d = Math.max(0.01, Math.hypot(dx, dy));
      const f = (d - 1) * 0.1;
      fx[i]! += (dx / d) * f;
      fy[i]! += (dy / d) * f;
      fx[j]! -= (dx / d) * f;
      fy[j]! -= (dy / d) * f;
    }
    for (let i = 0; i < n; i++) {
      // Keep everything near its ring around the (empty) Sun.
      const r = Math.hypot(xs[i]!, ys[i]!) || 1;
      const pull = (ring - r) * 0.02;
      fx[i]! += (xs[i]! / r) * pull;
      fy[i]! += (ys[i]! / r) * pull;
      const step = 0.5 * (1 - it / iterations);
      const m = Math.hypot(fx[i]!, fy[i]!);
      const k = m > 1 ? step / m : step;
      xs[i]! += fx[i]! * k;
      ys[i]! += fy[i]! * k;
    }
  }
  asteroids.forEach((a, i) => out.set(a.id, [xs[i]!, ys[i]!]));
}
