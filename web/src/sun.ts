// The orbit formula (R5), kept in the client on purpose: the server leaves `near` and `next_change` out of its
// messages because they follow from an asteroid's orbit `P/K/F` (or `pinned`) and the round.

import type { AsteroidView } from "./types";

function parse(orbit: string | null | undefined): [number, number, number] | null {
  const parts = orbit ? orbit.split("/").map(Number) : [];
  return parts.length === 3 ? (parts as [number, number, number]) : null;
}

/** Near the Sun in round `round`: (round − 1 + F) mod P < K, or `pinned` without an orbit. */
export function nearIn(orbit: string | null | undefined, pinned: string | null | undefined, round: number): boolean {
  const o = parse(orbit);
  if (!o) return pinned === "near";
  const [period, window, phase] = o;
  return (round - 1 + phase) % period < window;
}

/** `near` and `next_change` of an asteroid in round `round` (R5). */
export function sunState(
  orbit: string | null | undefined,
  pinned: string | null | undefined,
  round: number,
): { near: boolean; next_change: number | null } {
  const o = parse(orbit);
  if (!o) return { near: pinned === "near", next_change: null };
  const [period, window, phase] = o;
  const t = (round - 1 + phase) % period;
  const near = t < window;
  if (window === 0 || window === period) return { near, next_change: null };
  return { near, next_change: round + (near ? window - t : period - t) };
}

/** The round at whose end an exposed ice or uranium core reacts (R6), or null when it never will; used only
 * when the server's view does not say (`reacts_at`). Ice sublimates the first round end that finds it near;
 * uranium explodes on its `fuse`-th exposure, one more counted at each round end that finds it near. */
export function reactsAt(a: AsteroidView, round: number, fuse: number): number | null {
  if (!a.exists || a.mantle !== 0 || (a.core !== "ice" && a.core !== "uranium")) return null;
  const left = a.core === "ice" ? 1 : Math.max(1, fuse - (a.exposures ?? 0));
  const o = parse(a.orbit);
  if (!o) return a.pinned === "near" ? round + left - 1 : null;
  if (o[1] === 0) return null;
  let counted = 0;
  for (let r = round; r < round + o[0] * (left + 1) + 1; r++) {
    if (nearIn(a.orbit, a.pinned, r + 1)) counted++;
    if (counted >= left) return r;
  }
  return null;
}
