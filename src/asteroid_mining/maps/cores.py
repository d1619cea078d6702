"""Cores and mantles of a generated belt (R1): enough of every material, and shelters everywhere.

- Every material kind gets comfortably more units than a win needs (`fairness.needed_units`: the win's 3 of
  each, a robot and a gate pair), more on bigger belts; iron, the most needed, is the commonest.
- Hollow asteroids (shelters against storms, R4) are placed first, as a greedy cover, so that every asteroid
  has one within `SHELTER_HOPS` moves; the other hollow ones fall at random.
- Ice and uranium never sit on a hub or on a *hot* asteroid (always near the Sun, where they could never be
  mined), nor bare (mantle 0) at the start.
- Mantles: hollow asteroids are thin (0–2 layers, so a shelter can be reached and opened within a storm's
  warning), material ones 1–5 layers with an occasional thick one; a few iron and carbon cores lie bare.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rules.materials import CORES, HOLLOW, KINDS, MATERIALS
from . import walks
from .fairness import needed_units
from .graph import SMALL_GRAPH, BoolArray, IntArray, neighbour_arrays

HOLLOW_CODE = CORES.index(HOLLOW)
"""The code of a hollow core in the arrays (an index into `CORES`)."""
KIND_WEIGHTS = {"ice": 0.24, "iron": 0.30, "carbon": 0.21, "uranium": 0.25}
"""How the material cores divide between the kinds (about in proportion to what a game uses)."""
MATERIAL_SHARE = 0.64
"""Share of asteroids holding a material at richness 1; the rest are hollow."""
MIN_HOLLOW_SHARE = 0.15
"""However rich a belt, at least this share of asteroids are hollow."""


@dataclass(frozen=True)
class Cores:
    """Each asteroid's core (an index into `CORES`) and mantle."""

    core: IntArray
    mantle: IntArray

    def names(self) -> list[str]:
        """The cores as the rules name them."""
        return [CORES[c] for c in self.core.tolist()]


def material_counts(n: int, richness: float) -> dict[str, int]:
    """How many asteroids hold each kind: a richness-scaled share, never below the fairness floor."""
    share = min(1.0 - MIN_HOLLOW_SHARE, max(0.15, MATERIAL_SHARE * richness))
    floor = floor_units(n)
    counts = {k: max(floor[k], round(n * share * KIND_WEIGHTS[k])) for k in KINDS}
    return counts


def floor_units(n: int) -> dict[str, int]:
    """The fewest units of each kind a belt of `n` asteroids gets: a win's needs plus a margin."""
    need = needed_units()
    if n < 60:
        return {k: need[k] + 1 for k in KINDS}
    return {k: 2 * need[k] for k in KINDS}


def minimum_size() -> int:
    """The smallest belt the generator makes: the material floor plus a few hollow asteroids."""
    return sum(floor_units(1).values()) + 4


SMART_COVER_SIZE = 3_000
"""Up to this size, each shelter is placed where it covers the most (a slower, tighter greedy cover)."""


def make_cores(
    n: int,
    edges: IntArray,
    hot: BoolArray,
    hubs: IntArray,
    richness: float,
    rng: np.random.Generator,
    neighbours: tuple[IntArray, IntArray] | None = None,
) -> Cores:
    """Cores and mantles for a belt of `n` asteroids linked by `edges`.

    `neighbours`: `graph.neighbour_arrays(n, edges)`, when the caller has them already.
    """
    counts = material_counts(n, richness)
    indptr, indices = neighbours if neighbours is not None else neighbour_arrays(n, edges)
    cover = _shelter_cover(indptr, indices, rng, smart=n <= SMART_COVER_SIZE)
    # make room for the shelters: down to the usual floor, and on a tiny sparse belt down to the bare need
    _make_room(counts, n - int(cover.sum()), floor_units(n))
    _make_room(counts, n - int(cover.sum()), needed_units())
    n_hollow = n - sum(counts.values())
    if n_hollow < 1:
        raise ValueError(f"a belt of {n} asteroids is too small for its materials")
    hollow = cover.copy()
    extra = n_hollow - int(hollow.sum())
    if extra > 0:
        hollow[rng.choice(np.flatnonzero(~hollow), size=extra, replace=False)] = True
    elif extra < 0:  # a tiny belt cannot shelter everyone: keep the first shelters of the cover
        hollow[np.flatnonzero(hollow)[n_hollow:]] = False
    codes = np.repeat(_KIND_CODES, [counts[k] for k in KINDS])  # each kind's code, as many times as it is held
    core = np.full(n, HOLLOW_CODE, dtype=np.int64)
    core[~hollow] = codes[rng.permutation(len(codes))]
    _keep_reactive_safe(core, hot, hubs, rng)
    return Cores(core, _mantles(core, rng))


def _make_room(counts: dict[str, int], room: int, floor: dict[str, int]) -> None:
    """Lower the material counts (never below the floor) until at most `room` asteroids hold one."""
    while sum(counts.values()) > room:
        kind = max(KINDS, key=lambda k: (counts[k] - floor[k], -KINDS.index(k)))
        if counts[kind] <= floor[kind]:
            return
        counts[kind] -= 1  # the kind with the most to spare gives way


def _shelter_cover(indptr: IntArray, indices: IntArray, rng: np.random.Generator, smart: bool) -> BoolArray:
    """Asteroids to make hollow so that every asteroid has one within `SHELTER_HOPS` (= 2) moves.

    A greedy cover: the asteroids are visited in random order, and each one not yet covered gets a shelter
    on itself or (`smart`) on whichever of its neighbours covers the most asteroids still uncovered.
    `indptr`, `indices`: the neighbours of each asteroid (`graph.neighbour_arrays`).
    """
    n = len(indptr) - 1
    order = rng.permutation(n).tolist()
    if smart and n <= SMALL_GRAPH:
        # each step looks at a few dozen asteroids: plain loops (compiled), as numpy's cost per call would be
        # most of the work (on bigger belts, hubs make balls of hundreds)
        return np.array(walks.shelter_cover(indptr.tolist(), indices.tolist(), order), dtype=bool)
    degree = np.diff(indptr)

    def ball(v: int) -> IntArray:  # everything within two moves of v (SHELTER_HOPS)
        around = indices[indptr[v] : indptr[v + 1]]
        return np.concatenate([[v], around, *(indices[indptr[w] : indptr[w + 1]] for w in around.tolist())])

    covered = np.zeros(n, dtype=bool)
    chosen = np.zeros(n, dtype=bool)
    for u in order:
        if covered[u]:
            continue
        best = u
        if smart:
            gain = np.count_nonzero(~covered[ball(u)])
            for v in indices[indptr[u] : indptr[u + 1]].tolist():
                if degree[v] > 4 * max(1, degree[u]):
                    continue  # a hub: its reach is not the point of a shelter
                g = np.count_nonzero(~covered[ball(v)])
                if g > gain:
                    best, gain = v, g
        chosen[best] = True
        covered[ball(best)] = True
    return chosen


_KIND_CODES = np.array([CORES.index(k) for k in KINDS], dtype=np.int64)
"""The code of each material kind, in the order of `KINDS`."""
_THIN = np.array([0, 1, 2])
"""The mantles of a hollow asteroid."""
_THIN_CDF = np.array([0.35, 0.4, 0.25]).cumsum()
_THIN_CDF /= _THIN_CDF[-1]
"""Their cumulative chances, as `Generator.choice(_THIN, p=[0.35, 0.4, 0.25])` works them out."""
_REACTIVE = np.array([MATERIALS[c].reactive if c in MATERIALS else False for c in CORES])
"""Whether each core code is reactive (ice, uranium)."""


def _reactive_mask(core: IntArray) -> BoolArray:
    return np.asarray(_REACTIVE[core])


def _keep_reactive_safe(core: IntArray, hot: BoolArray, hubs: IntArray, rng: np.random.Generator) -> None:
    """Swap ice and uranium off hot asteroids and hubs, onto safe asteroids holding a steady material."""
    banned = hot.copy()
    banned[hubs] = True
    reactive = _reactive_mask(core)
    wrong = np.flatnonzero(banned & reactive)
    if len(wrong) == 0:
        return
    safe = np.flatnonzero(~banned & ~reactive & (core != HOLLOW_CODE))
    partners = rng.choice(safe, size=min(len(wrong), len(safe)), replace=False)
    for a, b in zip(wrong.tolist(), partners.tolist(), strict=False):
        core[a], core[b] = core[b], core[a]


def _mantles(core: IntArray, rng: np.random.Generator) -> IntArray:
    n = len(core)
    hollow = core == HOLLOW_CODE
    steady = ~hollow & ~_reactive_mask(core)
    # `rng.choice(_THIN, size=n, p=[0.35, 0.4, 0.25])` draws one uniform number per asteroid and looks it up in
    # the cumulative chances: done here without its checks of the chances (a few times the work on a small belt)
    thin = _THIN[_THIN_CDF.searchsorted(rng.random(n), side="right")]
    thick = 1 + rng.binomial(4, 0.45, n) + (rng.random(n) < 0.06) * rng.integers(1, 4, n)
    bare = steady & (rng.random(n) < 0.06)
    mantle = np.where(hollow, thin, np.where(bare, 0, thick))
    return mantle.astype(np.int64, copy=False)
