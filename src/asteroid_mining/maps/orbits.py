"""The orbits of a generated belt (R5): when each asteroid is near the Sun.

- Periods grow outwards, as Kepler would have it (inner asteroids come round in about 5 rounds, outer ones in
  about 16), with some scatter.
- Near-windows are a fifth to a half of the period, so every asteroid is near from time to time and every
  region of the belt is both safe and dangerous in turn.
- Phases follow the angle around the Sun: the perihelia sweep round the belt like a wave, so what is near at a
  given round forms arcs (spirals, since periods grow outwards) rather than noise, and a player can see danger
  coming.
- A few asteroids are *cold* (never near: uranium there can be mined at leisure) and a few *hot* (always near;
  the core generator keeps ice and uranium off them, so they hold no trap that cannot be sprung safely).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .graph import BoolArray, FloatArray, IntArray

COLD_SHARE = 0.03
"""Share of asteroids that never come near the Sun."""
HOT_SHARE = 0.015
"""Share of asteroids that are always near the Sun."""


@dataclass(frozen=True)
class Orbits:
    """Period, near-window and phase of each asteroid (R5: near in round r iff (r - 1 + F) mod P < K)."""

    period: IntArray
    window: IntArray
    phase: IntArray

    @property
    def hot(self) -> BoolArray:
        """Asteroids that are always near the Sun."""
        return np.asarray(self.window == self.period)


def make_orbits(radial: FloatArray, angles: FloatArray, rng: np.random.Generator) -> Orbits:
    """Orbits for asteroids at these radial fractions (0 inner edge … 1 outer) and angles (degrees)."""
    n = len(radial)
    # np.minimum(np.maximum(…)) is np.clip, without its overhead (several times the work on a small belt)
    period = np.minimum(np.maximum(np.rint(5.0 + 11.0 * radial**1.5 + rng.normal(0.0, 1.2, n)), 3), 20).astype(np.int64)
    share = rng.uniform(0.2, 0.5, n)
    window = np.minimum(np.maximum(np.rint(share * period), 1), period - 1).astype(np.int64)
    wave = np.rint(angles / 360.0 * period).astype(np.int64)
    phase = (wave + rng.integers(0, 2, n)) % period
    special = rng.permutation(n)
    cold, hot = round(n * COLD_SHARE), round(n * HOT_SHARE)
    window[special[:cold]] = 0
    window[special[cold : cold + hot]] = period[special[cold : cold + hot]]
    return Orbits(period, window, phase.astype(np.int64))
