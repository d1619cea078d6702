"""The belt as arrays: asteroid indices, an edge array and a sparse adjacency matrix, for fast analysis.

The generator works on these arrays from the start; `BeltArrays.of(belt)` turns a finished `Belt` into them
(for fairness reports, pictures and tests). Distances are in hops (moves), computed for all asteroids at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import sparse
from scipy.sparse import csgraph

from ..rules.belt import Belt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def adjacency(n: int, edges: IntArray) -> sparse.csr_matrix:
    """The symmetric n×n adjacency matrix of undirected `edges` (an (E, 2) array of indices)."""
    if len(edges) == 0:
        return sparse.csr_matrix((n, n), dtype=np.int8)
    rows = np.concatenate([edges[:, 0], edges[:, 1]])
    cols = np.concatenate([edges[:, 1], edges[:, 0]])
    data = np.ones(len(rows), dtype=np.int8)
    matrix = sparse.csr_matrix((data, (rows, cols)), shape=(n, n))
    matrix.data[:] = 1  # a pair listed twice stays one link
    return matrix


def unique_edges(edges: IntArray, n: int) -> IntArray:
    """The edges without self-links and duplicates, each as (low, high), sorted: a canonical edge list."""
    lo = np.minimum(edges[:, 0], edges[:, 1]).astype(np.int64)
    hi = np.maximum(edges[:, 0], edges[:, 1]).astype(np.int64)
    keep = lo != hi
    keys = np.unique(lo[keep] * n + hi[keep])
    return np.stack([keys // n, keys % n], axis=1)


def degrees(n: int, edges: IntArray) -> IntArray:
    """How many neighbours each asteroid has."""
    return np.bincount(edges.ravel(), minlength=n).astype(np.int64)


def component_labels(n: int, edges: IntArray) -> tuple[int, IntArray]:
    """The number of connected components and each asteroid's component label."""
    count, labels = csgraph.connected_components(adjacency(n, edges), directed=False)
    return int(count), labels.astype(np.int64)


def hops_to_nearest(n: int, edges: IntArray, sources: BoolArray) -> FloatArray:
    """For every asteroid, the fewest moves to reach any source asteroid (0 on a source, inf if unreachable)."""
    indices = np.flatnonzero(sources)
    if len(indices) == 0:
        return np.full(n, np.inf)
    dist = csgraph.dijkstra(adjacency(n, edges), directed=False, indices=indices, unweighted=True, min_only=True)
    return np.asarray(dist, dtype=np.float64)


def hops_from(n: int, edges: IntArray, source: int) -> FloatArray:
    """The fewest moves from `source` to every asteroid (inf if unreachable)."""
    dist = csgraph.shortest_path(adjacency(n, edges), directed=False, unweighted=True, indices=source)
    return np.asarray(dist, dtype=np.float64)


@dataclass(frozen=True)
class BeltArrays:
    """A belt's asteroids as indices 0..n-1 (in the belt's order), its links as an edge array."""

    ids: tuple[str, ...]
    index: dict[str, int]
    edges: IntArray
    positions: FloatArray | None
    """(n, 2) coordinates, or None when the belt is not laid out."""

    @property
    def n(self) -> int:
        """The number of asteroids."""
        return len(self.ids)

    @classmethod
    def of(cls, belt: Belt) -> BeltArrays:
        """The arrays of a belt."""
        ids = tuple(a.id for a in belt.asteroids)
        index = {aid: i for i, aid in enumerate(ids)}
        flat = np.fromiter((index[x] for link in belt.links for x in link), dtype=np.int64, count=2 * len(belt.links))
        edges = flat.reshape(-1, 2)
        positions = None
        if belt.asteroids and all(a.position is not None for a in belt.asteroids):
            positions = np.array([a.position for a in belt.asteroids], dtype=np.float64)
        return cls(ids, index, edges, positions)


HUB_MIN_DEGREE = 20
"""An asteroid with fewer neighbours than this is never called a hub."""


def hub_mask(degree: IntArray) -> BoolArray:
    """The hubs: asteroids with at least 20 neighbours and six times the median."""
    if len(degree) == 0:
        return np.zeros(0, dtype=bool)
    threshold = max(HUB_MIN_DEGREE, 6.0 * float(np.median(degree)))
    return np.asarray(degree >= threshold)
