"""Where the settlers of a generated belt start.

A good start is a hollow asteroid (it is opened to a shelter, mantle 0, so that the first storm does not end
the game), with every material kind a move or two away, a handful of ways out (not a hub, not a dead end),
in the outer half of the belt (away from the Sun's heat), and no bare or thin-skinned uranium next door.
"""

from __future__ import annotations

import numpy as np

from ..rules.materials import CORES, KINDS
from .cores import HOLLOW_CODE
from .graph import BoolArray, FloatArray, IntArray, adjacency


def choose_start(
    core: IntArray,
    mantle: IntArray,
    edges: IntArray,
    radial: FloatArray,
    hubs: BoolArray,
    rng: np.random.Generator,
) -> int:
    """The index of the best starting asteroid (ties broken at random)."""
    n = len(core)
    matrix = adjacency(n, edges)
    reach = matrix.copy()
    reach.setdiag(1)
    reach = reach.tocsr()
    onehot = np.zeros((n, len(KINDS)), dtype=np.float64)
    for k, kind in enumerate(KINDS):
        onehot[:, k] = core == CORES.index(kind)
    near1 = reach @ onehot
    near2 = reach @ near1  # walks of up to two moves: > 0 means the kind is within two moves
    kinds_within_2 = (near2 > 0).sum(axis=1)
    units_within_2 = np.minimum(near2.sum(axis=1), 20.0)
    degree = np.diff(matrix.indptr)
    uranium = CORES.index("uranium")
    risky_uranium = np.asarray(matrix @ ((core == uranium) & (mantle <= 1)).astype(np.float64))
    hollow_next = np.minimum(np.asarray(matrix @ (core == HOLLOW_CODE).astype(np.float64)), 2.0)
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
