"""Storm regions of a laid-out belt (R7): which asteroids an angular sector covers, and storm settings that
suit a belt's size.

A storm sector is `[start, start + width)` in degrees, seen from the Sun at (0, 0), wrapping at 360°; an
asteroid is in it when its angle (`angle_of`) is. Finding a sector's asteroids costs two bisections in the
asteroids sorted by angle (`sector_index`), so forecasting a storm over a belt of 20,000 is instant.

`asteroids_in_sector` is pure and takes plain sequences, so the engine's storm generator can use the same
definition (rules/storms.py implements it identically; a test holds the two together).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Sequence

from ..rules.belt import Belt

STORM_HAZARD = (30.0 / 360.0) / 10.0
"""Chance per round that a storm hits a given asteroid at normal frequency: the engine's defaults (a 30°
sector, a storm every 10 rounds on average) give 1 in 120."""


MAX_STORM_INTERVAL = 10_000
"""The longest interval suggested (for a vanishingly small storm frequency)."""


def angle_of(position: tuple[float, float]) -> float:
    """The angle in degrees [0, 360) of a point seen from the Sun at (0, 0)."""
    angle = math.degrees(math.atan2(position[1], position[0])) % 360.0
    return 0.0 if angle >= 360.0 else angle


def sector_index(belt: Belt) -> tuple[list[float], list[str]]:
    """The laid-out asteroids sorted by angle (ties in belt order): their angles, and their ids."""
    pairs = sorted((angle_of(a.position), i, a.id) for i, a in enumerate(belt.asteroids) if a.position is not None)
    return [p[0] for p in pairs], [p[2] for p in pairs]


def asteroids_in_sector(
    angles_sorted: Sequence[float], ids_sorted: Sequence[str], start_deg: float, width_deg: float
) -> list[str]:
    """The ids whose angle lies in `[start_deg, start_deg + width_deg)`, wrapping at 360°, in angular order
    from `start_deg`. A width of 360° or more covers every asteroid (listed from 0°); a width of 0 or less, none.
    """
    if width_deg >= 360.0:
        return list(ids_sorted)
    if width_deg <= 0.0:
        return []
    start = start_deg % 360.0
    if start >= 360.0:  # a tiny negative start rounds up to 360.0
        start = 0.0
    end = start + width_deg
    lo = bisect_left(angles_sorted, start)
    if end <= 360.0:
        return list(ids_sorted[lo : bisect_left(angles_sorted, end)])
    return [*ids_sorted[lo:], *ids_sorted[: bisect_left(angles_sorted, end - 360.0)]]


def recommended_storm_sector(size: int) -> float:
    """A storm sector width (degrees) for a belt of `size` asteroids.

    Small belts get wide sectors, so that a storm hits a few asteroids at least; huge belts narrow ones, so
    that a storm stays a *region* (a 20° sector of 20,000 asteroids is still over a thousand).
    """
    if size <= 40:
        return 45.0
    if size <= 400:
        return 30.0
    if size <= 4000:
        return 24.0
    return 20.0


def recommended_storm_interval(storm_sector: float, frequency: float = 1.0) -> int:
    """The `storm_interval` option (mean rounds between storms) for this sector width and storm frequency.

    At frequency 1 a given asteroid is hit as often as under the engine's defaults (1 round in 120), whatever
    the width; frequency 2 means twice as often, 0 means no storms (interval 0).
    """
    if frequency <= 0.0:
        return 0
    share, rate = storm_sector / 360.0, STORM_HAZARD * frequency
    if rate * MAX_STORM_INTERVAL <= share:
        return MAX_STORM_INTERVAL
    return max(1, round(share / rate))
