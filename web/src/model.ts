// An index over one public view: look-ups by id and the derived facts the screen needs (who stands where,
// pooled cargo for the base, hubs). Built once per view; views are never mutated.

import {
  type AsteroidView,
  type Cargo,
  type GameView,
  type GateView,
  KINDS,
  type Kind,
  type RobotView,
  type SettlerView,
  type UfoView,
  WIN_TARGET,
} from "./types";

/** An asteroid with at least this many neighbours is drawn as a hub. */
export const HUB_DEGREE = 24;

export class Model {
  readonly view: GameView;
  readonly asteroids = new Map<string, AsteroidView>();
  readonly settlers = new Map<string, SettlerView>();
  readonly robots = new Map<string, RobotView>();
  readonly ufos = new Map<string, UfoView>();
  readonly gates = new Map<string, GateView>();
  /** Asteroid id → the earliest round a forecast storm hits it. */
  readonly stormAt = new Map<string, number>();

  constructor(view: GameView) {
    this.view = view;
    for (const a of view.asteroids) this.asteroids.set(a.id, a);
    for (const s of view.settlers) this.settlers.set(s.id, s);
    for (const r of view.robots) this.robots.set(r.id, r);
    for (const u of view.ufos) this.ufos.set(u.id, u);
    for (const g of view.gates) this.gates.set(g.id, g);
    for (const f of view.forecasts) {
      for (const id of f.asteroids) {
        const known = this.stormAt.get(id);
        if (known === undefined || f.round < known) this.stormAt.set(id, f.round);
      }
    }
  }

  get round(): number {
    return this.view.round;
  }

  /** The settler whose step it is, when it is alive. */
  current(): SettlerView | undefined {
    const id = this.view.turn;
    if (id === null || this.view.status !== "running") return undefined;
    const s = this.settlers.get(id);
    return s && s.alive ? s : undefined;
  }

  isHub(a: AsteroidView): boolean {
    return (a.neighbours?.length ?? 0) >= HUB_DEGREE;
  }

  /** Living settlers on an asteroid, in creation order. */
  settlersOn(id: string): SettlerView[] {
    return this.view.settlers.filter((s) => s.alive && s.at === id);
  }

  /** The cargo the living settlers on an asteroid carry between them (R14). */
  pooled(id: string): Cargo {
    const total: Cargo = { ice: 0, iron: 0, carbon: 0, uranium: 0 };
    for (const s of this.settlersOn(id)) for (const k of KINDS) total[k] += s.cargo[k] ?? 0;
    return total;
  }

  /** Units of every kind still missing on an asteroid for the base (0 = that kind is complete). */
  missing(id: string): Record<Kind, number> {
    const p = this.pooled(id);
    const out = { ice: 0, iron: 0, carbon: 0, uranium: 0 };
    for (const k of KINDS) out[k] = Math.max(0, WIN_TARGET - p[k]);
    return out;
  }

  /** Asteroids where living settlers stand, best base progress first. */
  occupied(): string[] {
    const ids = new Set<string>();
    for (const s of this.view.settlers) if (s.alive && s.at) ids.add(s.at);
    const score = (id: string): number => {
      const p = this.pooled(id);
      return KINDS.reduce((n, k) => n + Math.min(WIN_TARGET, p[k]), 0);
    };
    return [...ids].sort((a, b) => score(b) - score(a));
  }

  /** Active gates orbiting an asteroid, with where each leads. */
  gatesHere(id: string): { gate: GateView; to: string | null }[] {
    const a = this.asteroids.get(id);
    const out: { gate: GateView; to: string | null }[] = [];
    for (const gid of a?.gates ?? []) {
      const g = this.gates.get(gid);
      if (!g || !g.exists) continue;
      const partner = this.gates.get(g.partner);
      out.push({ gate: g, to: g.active && partner ? partner.at : null });
    }
    return out;
  }

  /** Rounds until a forecast storm hits this asteroid (0: at the end of this round), or undefined. */
  stormIn(id: string): number | undefined {
    const r = this.stormAt.get(id);
    return r === undefined ? undefined : r - this.view.round;
  }
}
