"""Where the asteroids of a generated belt lie, and what they are called.

The belt is an annulus around the Sun at (0, 0): a thin background of asteroids, a few denser *families*
(clusters, as real asteroid families) and, on bigger belts, two thinned *gaps* (as the Kirkwood gaps). The
area per asteroid is constant, so a belt's radius grows with the square root of its size.

Asteroids are named by the sector they lie in, seen from the Sun: 24 sectors of 15° lettered counter-clockwise
from the positive x axis (`A`…`Z` without `I` and `O`), then numbered outwards from the Sun: `A1` is the
innermost asteroid of the first sector. A player can tell where `K17` lies from its name, and a storm over
sectors `D`–`F` is easy to picture.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .graph import FloatArray, IntArray

SECTOR_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"
"""The letters of the 24 sectors of 15°, counter-clockwise from the positive x axis."""
SECTOR_DEGREES = 360.0 / len(SECTOR_LETTERS)
"""The width of a naming sector."""
AREA_PER_ASTEROID = 4.0
"""Mean area of the belt per asteroid, in square units: asteroids lie about 2 units apart."""
DECIMALS = 2
"""Positions are rounded to this many decimals: compact files, exact round trips."""


@dataclass(frozen=True)
class Layout:
    """Positions of a generated belt, in the order of the asteroids, and their geometry."""

    positions: FloatArray
    """(n, 2) coordinates, the Sun at (0, 0)."""
    ids: list[str]
    inner: float
    """The inner radius of the belt."""
    outer: float
    """The outer radius of the belt."""

    @cached_property  # the generator asks twice
    def radial(self) -> FloatArray:
        """Each asteroid's distance from the Sun as a fraction of the belt's width: 0 inner edge, 1 outer."""
        r = np.hypot(self.positions[:, 0], self.positions[:, 1])
        return np.minimum(np.maximum((r - self.inner) / (self.outer - self.inner), 0.0), 1.0)  # np.clip, faster

    @cached_property
    def angles(self) -> FloatArray:
        """Each asteroid's angle in degrees [0, 360) seen from the Sun."""
        return np.degrees(np.arctan2(self.positions[:, 1], self.positions[:, 0])) % 360.0


def belt_radii(n: int) -> tuple[float, float]:
    """Inner and outer radius of a belt of `n` asteroids: small belts are wider rings, so that they stay round."""
    ratio = 0.35 if n < 120 else 0.5
    outer = math.sqrt(n * AREA_PER_ASTEROID / (math.pi * (1.0 - ratio**2)))
    return ratio * outer, outer


def lay_out(n: int, rng: np.random.Generator) -> Layout:
    """Place `n` asteroids and name them; the order is by sector, then outwards."""
    inner, outer = belt_radii(n)
    family_share = 0.0 if n < 60 else 0.3
    n_family = round(n * family_share)
    background = _background(n - n_family, inner, outer, rng, gaps=n >= 200)
    families = _families(n_family, inner, outer, rng)
    points = np.round(np.concatenate([background, families]), DECIMALS)
    order, ids = _names(points)
    return Layout(points[order], ids, inner, outer)


def _pairs(x: FloatArray, y: FloatArray) -> FloatArray:
    """`np.stack([x, y], axis=1)`, at a third of its cost on small arrays."""
    out = np.empty((len(x), 2), dtype=np.float64)
    out[:, 0] = x
    out[:, 1] = y
    return out


def _background(count: int, inner: float, outer: float, rng: np.random.Generator, gaps: bool) -> FloatArray:
    """Uniform over the annulus's area, with two thinned gaps on bigger belts."""
    chosen: list[FloatArray] = []
    have = 0
    while have < count:
        batch = max(64, int((count - have) * 1.3))
        r = np.sqrt(rng.uniform(inner**2, outer**2, batch))
        theta = rng.uniform(0.0, 2.0 * np.pi, batch)
        xy = _pairs(r * np.cos(theta), r * np.sin(theta))
        if gaps:
            u = (r - inner) / (outer - inner)
            in_gap = (np.abs(u - 0.36) < 0.025) | (np.abs(u - 0.68) < 0.02)
            xy = xy[~in_gap | (rng.random(batch) < 0.15)]
        chosen.append(xy)
        have += len(xy)
    return (chosen[0] if len(chosen) == 1 else np.concatenate(chosen))[:count]


def _families(count: int, inner: float, outer: float, rng: np.random.Generator) -> FloatArray:
    """Clusters of asteroids around a few centres, kept inside the annulus."""
    if count == 0:
        return np.zeros((0, 2))
    n_centres = max(2, count // 60)
    sizes = rng.multinomial(count, rng.dirichlet(np.full(n_centres, 2.0)))
    centre_r = rng.uniform(inner + 0.15 * (outer - inner), outer - 0.15 * (outer - inner), n_centres)
    centre_t = rng.uniform(0.0, 2.0 * np.pi, n_centres)
    # a family is about three times as dense as the background
    spread = np.sqrt(np.maximum(sizes, 1) * AREA_PER_ASTEROID / (3.0 * np.pi)) / 1.4
    centres = _pairs(centre_r * np.cos(centre_t), centre_r * np.sin(centre_t))
    which = np.repeat(np.arange(n_centres), sizes)
    xy = centres[which] + rng.normal(0.0, 1.0, (count, 2)) * spread[which, None]
    # fold strays back into the annulus, keeping their direction
    r = np.hypot(xy[:, 0], xy[:, 1])
    folded = np.minimum(np.maximum(r, inner * 1.01), outer * 0.99)  # np.clip, faster
    scale = np.where(r > 0, folded / np.maximum(r, 1e-9), 1.0)
    return xy * scale[:, None]


def _names(points: FloatArray) -> tuple[IntArray, list[str]]:
    """The order of the asteroids (by sector, then outwards) and their names in that order."""
    angles = np.degrees(np.arctan2(points[:, 1], points[:, 0])) % 360.0
    sector = np.minimum((angles // SECTOR_DEGREES).astype(np.int64), len(SECTOR_LETTERS) - 1)
    radius = np.hypot(points[:, 0], points[:, 1])
    order = np.lexsort((angles, radius, sector))
    sorted_sector = sector[order]
    starts = np.searchsorted(sorted_sector, sorted_sector, side="left")
    number = np.arange(len(order)) - starts + 1
    ids = [f"{SECTOR_LETTERS[s]}{k}" for s, k in zip(sorted_sector.tolist(), number.tolist(), strict=True)]
    return order.astype(np.int64), ids
