"""Where the settlers of a generated belt start.

A good start is a hollow asteroid (it is opened to a shelter, mantle 0, so that the first storm does not end
the game), with every material kind a move or two away, a handful of ways out (not a hub, not a dead end),
in the outer half of the belt (away from the Sun's heat), and no bare or thin-skinned uranium next door.
"""

from __future__ import annotations

import numpy as np

from ..rules.materials import CORES, KINDS
from .cores import HOLLOW_CODE
from .graph import BoolArray, FloatArray, IntArray, neighbour_arrays, neighbour_sums

_COLUMN_CODES = np.array([*(CORES.index(kind) for kind in KINDS), -1, HOLLOW_CODE])
"""The core code counted in each column of `choose_start`'s table (-1: the column filled apart)."""
_URANIUM = CORES.index("uranium")


def choose_start(
    core: IntArray,
    mantle: IntArray,
    edges: IntArray,
    radial: FloatArray,
    hubs: BoolArray,
    rng: np.random.Generator,
    neighbours: tuple[IntArray, IntArray] | None = None,
) -> int:
    """The index of the best starting asteroid (ties broken at random).

    `neighbours`: `graph.neighbour_arrays(len(core), edges)`, when the caller has them already.
    """
    n = len(core)
    indptr, indices = neighbours if neighbours is not None else neighbour_arrays(n, edges)
    # one column per kind, then uranium with at most one layer over it, then hollow; the counts over the
    # neighbours of all of them at once (whole numbers, so exact whichever way they are summed)
    columns = (core[:, None] == _COLUMN_CODES[None, :]).astype(np.float64)
    columns[:, len(KINDS)] = (core == _URANIUM) & (mantle <= 1)
    around = neighbour_sums(indptr, indices, columns)
    near1 = columns[:, : len(KINDS)] + around[:, : len(KINDS)]
    near2 = near1 + neighbour_sums(indptr, indices, near1)  # walks of up to two moves: > 0, the kind is that near
    kinds_within_2 = (near2 > 0).sum(axis=1)
    units_within_2 = np.minimum(near2.sum(axis=1), 20.0)
    degree = indptr[1:] - indptr[:-1]
    risky_uranium = around[:, len(KINDS)]
    hollow_next = np.minimum(around[:, len(KINDS) + 1], 2.0)
    score = (
        10.0 * kinds_within_2
        + 0.5 * units_within_2
        + 3.0 * ((degree >= 3) & (degree <= 8))
        + 1.5 * hollow_next
        - 6.0 * np.abs(radial - 0.7)
        - 5.0 * risky_uranium
        + rng.random(n)
    )
    candidates = (core == HOLLOW_CODE) & ~hubs & (degree >= 1)
    if not candidates.any():
        candidates = core == HOLLOW_CODE
    score = np.where(candidates, score, -np.inf)
    return int(np.argmax(score))
