// The orbit formula (R5), kept in the client on purpose: the server leaves `near` and `next_change` out of its
// messages because they follow from an asteroid's orbit `P/K/F` (or `pinned`) and the round.

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
