"""Which asteroids of a generated belt neighbour each other: proximity links, hubs, and one connected belt.

Everything goes through one k-d tree (`scipy.spatial.cKDTree`): each asteroid links to a few of its nearest
neighbours (never a pair-by-pair O(N²) scan), a hub links to its several hundred nearest, and the components
left over are joined to the largest one by their closest pair of asteroids.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.spatial import cKDTree

from .graph import FloatArray, IntArray, component_labels, median, unique_pairs

LINK_SCALE = 0.82
"""Nearest neighbours each asteroid picks per unit of `density`: picks are mutual, so the mean number of
neighbours comes out close to `density` (measured; see tests/maps/test_generator.py)."""
MAX_LINK_FACTOR = 1.8
"""A proximity link is at most this many times the typical distance to the k-th nearest asteroid (k the mean
number of picks), so that asteroids on the thin edges of the belt do not reach far across it."""


def proximity_links(positions: FloatArray, tree: cKDTree, density: float, rng: np.random.Generator) -> IntArray:
    """Each asteroid links to its 1…k nearest (k varying around `density`), short links only."""
    n = len(positions)
    target = max(1.0, density * LINK_SCALE)
    k_max = min(n - 1, math.ceil(target) + 2)
    if k_max < 1:
        return np.zeros((0, 2), dtype=np.int64)
    dist, idx = tree.query(positions, k=k_max + 1)
    dist, idx = dist[:, 1:], idx[:, 1:]  # the first is the asteroid itself
    # each asteroid wants floor(target) or ceil(target) neighbours, so the mean is target
    want = np.floor(target + rng.random(n)).astype(np.int64)
    want = np.minimum(np.maximum(want + rng.integers(-1, 2, n) * (rng.random(n) < 0.35), 1), k_max)
    typical = median(dist[:, min(k_max, math.ceil(target)) - 1])
    rank = np.arange(k_max)[None, :]
    keep = (rank < want[:, None]) & ((dist <= MAX_LINK_FACTOR * typical) | (rank == 0))
    rows, cols = np.nonzero(keep)  # in row order, as boolean indexing picks them
    return unique_pairs(rows, idx[rows, cols], n)


def choose_hubs(
    positions: FloatArray, tree: cKDTree, count: int, inner: float, outer: float, rng: np.random.Generator
) -> IntArray:
    """`count` hub asteroids spread evenly around the belt, each near the middle of the ring."""
    if count <= 0:
        return np.zeros(0, dtype=np.int64)
    theta = (np.arange(count) + rng.uniform(0.2, 0.8, count)) / count * 2.0 * np.pi
    radius = inner + (outer - inner) * rng.uniform(0.3, 0.7, count)
    targets = np.stack([radius * np.cos(theta), radius * np.sin(theta)], axis=1)
    _, nearest = tree.query(targets, k=1)
    return np.unique(np.asarray(nearest, dtype=np.int64))


def hub_links(
    positions: FloatArray, tree: cKDTree, hubs: IntArray, size: tuple[int, int], rng: np.random.Generator
) -> IntArray:
    """Each hub links to its `size[0]`…`size[1]` nearest asteroids (a quarter of the belt at most)."""
    n = len(positions)
    if len(hubs) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    high = max(1, min(size[1], n // 4))
    low = max(1, min(size[0], high))
    counts = rng.integers(low, high + 1, len(hubs))
    _, idx = tree.query(positions[hubs], k=int(counts.max()) + 1)
    idx = np.asarray(idx).reshape(len(hubs), -1)[:, 1:]
    keep = np.arange(idx.shape[1])[None, :] < counts[:, None]
    rows = np.repeat(hubs, idx.shape[1]).reshape(idx.shape)
    return np.stack([rows[keep], idx[keep]], axis=1).astype(np.int64)


def join_components(positions: FloatArray, edges: IntArray) -> IntArray:
    """The links that join every component to the largest one, each by its closest pair of asteroids."""
    n = len(positions)
    count, labels = component_labels(n, edges)
    if count <= 1:
        return np.zeros((0, 2), dtype=np.int64)
    sizes = np.bincount(labels, minlength=count)
    main = int(np.argmax(sizes))
    members = np.flatnonzero(labels == main)
    others = np.flatnonzero(labels != main)
    # one query for every asteroid outside the main component (each point's answer is its own), then each
    # component's closest pair: the first of its asteroids (in index order) at the least distance
    dist, nearest = cKDTree(positions[members]).query(positions[others], k=1)
    best: dict[int, tuple[float, int, int]] = {}
    for d, a, b, comp in zip(dist.tolist(), others.tolist(), nearest.tolist(), labels[others].tolist(), strict=True):
        if comp not in best or d < best[comp][0]:
            best[comp] = (d, a, b)
    member_ids = members.tolist()
    return np.array([(best[comp][1], member_ids[best[comp][2]]) for comp in sorted(best)], dtype=np.int64)
