"""The belt as arrays: asteroid indices, an edge array and a sparse adjacency matrix, for fast analysis.

The generator works on these arrays from the start; `BeltArrays.of(belt)` turns a finished `Belt` into them
(for fairness reports, pictures and tests). Distances are in hops (moves), computed for all asteroids at once.

Building a scipy sparse matrix costs about 100 µs whatever its size (checks and conversions), more than the rest
of a small belt's analysis: the generator's own steps use `neighbour_arrays` (the same rows, built with plain
numpy), and components of small belts are found by a plain search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import sparse
from scipy.sparse import csgraph

from ..rules.belt import Belt
from . import walks

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

SMALL_GRAPH = 1_000
"""Up to this many asteroids, plain Python and a few numpy calls beat setting scipy's graph tools up."""


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


def neighbour_arrays(n: int, edges: IntArray) -> tuple[IntArray, IntArray]:
    """Each asteroid's neighbours as `(indptr, indices)`: those of `indices[indptr[i]:indptr[i + 1]]` are asteroid
    i's, sorted, a link listed twice counted once — the rows of `adjacency(n, edges)`, without the matrix."""
    if len(edges) == 0:
        return np.zeros(n + 1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lo, hi = edges[:, 0].astype(np.int64), edges[:, 1].astype(np.int64)
    rows, indices = np.divmod(_sorted_unique(np.concatenate([lo * n + hi, hi * n + lo])), n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr, indices


def neighbour_sums(indptr: IntArray, indices: IntArray, values: FloatArray) -> FloatArray:
    """For each asteroid, the sum of `values` (one row per asteroid) over its neighbours: `adjacency @ values`.

    For whole numbers (counts) the sums are exact, so the two ways give the same: on small belts differences
    of a running sum (a few numpy calls), on big ones scipy's sparse product (faster there).
    """
    n = len(indptr) - 1
    if n > SMALL_GRAPH:
        matrix = sparse.csr_matrix((np.ones(len(indices), dtype=np.int8), indices, indptr), shape=(n, n))
        return np.asarray(matrix @ values, dtype=np.float64)
    total = np.zeros((len(indices) + 1, *values.shape[1:]), dtype=np.float64)
    np.cumsum(values[indices], axis=0, out=total[1:])
    return np.asarray(total[indptr[1:]] - total[indptr[:-1]])


def unique_edges(edges: IntArray, n: int) -> IntArray:
    """The edges without self-links and duplicates, each as (low, high), sorted: a canonical edge list."""
    return unique_pairs(edges[:, 0], edges[:, 1], n)


def unique_pairs(first: IntArray, second: IntArray, n: int) -> IntArray:
    """`unique_edges` of the edges (first[i], second[i]), without stacking them first."""
    first = first.astype(np.int64, copy=False)
    second = second.astype(np.int64, copy=False)
    keys = np.minimum(first, second) * n + np.maximum(first, second)
    keys = _sorted_unique(keys[first != second])
    out = np.empty((len(keys), 2), dtype=np.int64)
    np.divmod(keys, n, out=(out[:, 0], out[:, 1]))
    return out


def _sorted_unique(keys: IntArray) -> IntArray:
    """`np.unique(keys)`: sorted, without repeats (numpy's own finds them by hashing, many times slower)."""
    keys = np.sort(keys)
    if len(keys) > 1:
        fresh = np.empty(len(keys), dtype=bool)
        fresh[0] = True
        np.not_equal(keys[1:], keys[:-1], out=fresh[1:])
        keys = keys[fresh]
    return keys


def median(values: npt.NDArray[np.float64] | IntArray) -> float:
    """`np.median` of a non-empty 1-D array (the mean of the middle two of an even count), a few times faster
    on the small arrays of a small belt."""
    m = len(values) // 2
    if len(values) % 2:
        return float(np.partition(values, m)[m])
    part = np.partition(values, (m - 1, m))
    return (float(part[m - 1]) + float(part[m])) / 2


def degrees(n: int, edges: IntArray) -> IntArray:
    """How many neighbours each asteroid has."""
    return np.bincount(edges.ravel(), minlength=n).astype(np.int64)


def component_labels(n: int, edges: IntArray) -> tuple[int, IntArray]:
    """The number of connected components and each asteroid's component label.

    Labels are numbered in the order of each component's lowest asteroid (as scipy numbers them).
    """
    if n > SMALL_GRAPH:
        count, labels = csgraph.connected_components(adjacency(n, edges), directed=False)
        return int(count), labels.astype(np.int64)
    count, label = walks.component_labels(n, edges.tolist())  # a plain search (compiled)
    return count, np.array(label, dtype=np.int64)


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
    threshold = max(HUB_MIN_DEGREE, 6.0 * median(degree))
    return np.asarray(degree >= threshold)
