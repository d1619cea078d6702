"""The generator's walks over the links of a small belt, in plain loops: which asteroids are connected, and where
the shelters go. Compiled by mypyc like the rules engine (`tools/builds.toml`), as a build of its own.

On a belt of a few hundred asteroids each step of these walks looks at a few dozen, and numpy's or scipy's cost
per call would be most of the work; the pure modules ran them as the interpreter's loops, the tenth of a small
belt's generation that was not numpy's. They take and give plain lists (`graph` and `cores` turn arrays into
lists and back), so that they compile to native loops.
"""

from __future__ import annotations


def component_labels(n: int, pairs: list[list[int]]) -> tuple[int, list[int]]:
    """The number of connected components of asteroids 0..n-1 linked by `pairs` ([a, b] each), and each asteroid's
    component label: components are numbered in the order of their lowest asteroid."""
    around: list[list[int]] = [[] for _ in range(n)]
    for pair in pairs:
        a, b = pair[0], pair[1]
        around[a].append(b)
        around[b].append(a)
    label = [-1] * n
    count = 0
    for first in range(n):
        if label[first] >= 0:
            continue
        label[first] = count
        todo = [first]
        while todo:
            for w in around[todo.pop()]:
                if label[w] < 0:
                    label[w] = count
                    todo.append(w)
        count += 1
    return count, label


def shelter_cover(indptr: list[int], indices: list[int], order: list[int]) -> list[bool]:
    """The greedy shelter cover of `cores._shelter_cover` (smart): for each asteroid of `order` not yet within two
    moves of a shelter, a shelter on whichever of it and its neighbours (not hubs) covers the most asteroids not
    yet covered, counted with repeats (an asteroid once for each way to it, as the cover always has); the first
    of them at the most. `indptr`, `indices`: each asteroid's neighbours, as `graph.neighbour_arrays` gives them.
    Which asteroids get one."""
    n = len(indptr) - 1
    around: list[list[int]] = [indices[indptr[v] : indptr[v + 1]] for v in range(n)]
    covered = [0] * n
    chosen = [False] * n
    for u in order:
        if covered[u]:
            continue
        best, most = u, _gain(around, covered, u)
        hub_degree = 4 * max(1, len(around[u]))
        for v in around[u]:
            if len(around[v]) > hub_degree:
                continue  # a hub: its reach is not the point of a shelter
            g = _gain(around, covered, v)
            if g > most:
                best, most = v, g
        chosen[best] = True
        covered[best] = 1
        for x in around[best]:
            covered[x] = 1
            for y in around[x]:
                covered[y] = 1
    return chosen


def _gain(around: list[list[int]], covered: list[int], v: int) -> int:
    """How many of what is within two moves of v are not covered yet, counted with repeats: v once, each
    neighbour once, and each neighbour's neighbours (v among them) once per neighbour they are reached by."""
    gain = 1 - covered[v]
    for w in around[v]:
        gain += 1 - covered[w]
        for y in around[w]:
            gain += 1 - covered[y]
    return gain
