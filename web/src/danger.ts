// The dangers that threaten a player's own settlers, for the banner over the map: a forecast storm over an
// asteroid that is no shelter, and an exposed reactive (uranium) core that is about to explode. Pure: it reads a
// Model and names the nearest shelter a settler can still reach before the storm hits.

import type { Model } from "./model";

export interface Threat {
  kind: "storm" | "explosion";
  settler: string;
  /** The asteroid the settler stands on. */
  at: string;
  /** Rounds until it happens: 0 at the end of this round. */
  rounds: number;
  /** For a storm: the nearest shelter reachable in time (one hop a step), or null when none is known. */
  shelter: string | null;
}

/** The nearest asteroid that is a shelter, at most `hops` links from `from` (breadth first, ties by id). */
export function nearestShelter(model: Model, from: string, hops: number): string | null {
  let frontier = [from];
  const seen = new Set(frontier);
  for (let d = 1; d <= hops && frontier.length; d++) {
    const next: string[] = [];
    for (const id of frontier) {
      for (const n of [...(model.asteroids.get(id)?.neighbours ?? [])].sort()) {
        if (seen.has(n)) continue;
        seen.add(n);
        next.push(n);
      }
    }
    const found = next.filter((id) => model.asteroids.get(id)?.shelter).sort();
    if (found.length) return found[0]!;
    frontier = next;
  }
  return null;
}

/** The threats to the living settlers `mine`, the soonest first. */
export function threats(model: Model, mine: Iterable<string>): Threat[] {
  const out: Threat[] = [];
  const round = model.view.round;
  for (const id of mine) {
    const s = model.settlers.get(id);
    if (!s || !s.alive || !s.at) continue;
    const a = model.asteroids.get(s.at);
    if (!a) continue;
    const reacts = a.reacts_at ?? null;
    if (a.core === "uranium" && a.mantle === 0 && reacts !== null && reacts >= round) {
      out.push({ kind: "explosion", settler: id, at: a.id, rounds: reacts - round, shelter: null });
    }
    const storm = model.stormIn(a.id);
    if (storm !== undefined && storm >= 0 && !a.shelter) {
      // the settler has this round's step and one more a round before the storm comes at a round's end
      out.push({ kind: "storm", settler: id, at: a.id, rounds: storm, shelter: nearestShelter(model, a.id, storm + 1) });
    }
  }
  return out.sort((x, y) => x.rounds - y.rounds || x.settler.localeCompare(y.settler));
}
