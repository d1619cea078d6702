"""The generator's walks over a belt's links (`maps.walks`): the same answers as a plain reading of what they
compute, in whichever build runs (compiled by mypyc, or pure: `ASTEROID_MINING_ENGINE=pure`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import asteroid_mining.maps
from asteroid_mining.maps import BUILD, walks
from asteroid_mining.maps.generator import generate_belt
from asteroid_mining.maps.graph import BeltArrays, neighbour_arrays
from asteroid_mining.rules import _engine

from ..builds import assert_build_asked_for, build_modules

MAPS = Path(asteroid_mining.maps.__file__).parent
MAPS_MODULES = build_modules("asteroid_mining.maps") or ()  # a list of modules, never "all"


def random_graph(seed: int, n: int, links: int) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    pairs = rng.integers(0, n, (links, 2))
    return [[a, b] for a, b in pairs.tolist() if a != b]


@pytest.mark.parametrize("seed", range(40))
def test_components_are_networkx_components_numbered_by_their_lowest_asteroid(seed: int) -> None:
    n = 5 + seed * 3
    pairs = random_graph(seed, n, n * (seed % 4) // 2)
    count, labels = walks.component_labels(n, pairs)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(map(tuple, pairs))
    components = sorted((sorted(c) for c in nx.connected_components(g)), key=lambda c: c[0])
    assert count == len(components)
    for number, members in enumerate(components):
        assert {labels[m] for m in members} == {number}


def reference_cover(indptr: list[int], indices: list[int], order: list[int]) -> list[bool]:
    """The cover as its documentation reads, ball by ball."""
    n = len(indptr) - 1
    around = [indices[indptr[v] : indptr[v + 1]] for v in range(n)]
    covered, chosen = [False] * n, [False] * n

    def ball(v: int) -> list[int]:  # v, its neighbours, their neighbours: with repeats, v once
        return [v, *around[v], *(y for w in around[v] for y in around[w])]

    for u in order:
        if covered[u]:
            continue
        best, most = u, sum(not covered[x] for x in ball(u))
        for v in around[u]:
            if len(around[v]) <= 4 * max(1, len(around[u])):
                gain = sum(not covered[x] for x in ball(v))
                if gain > most:
                    best, most = v, gain
        chosen[best] = True
        for x in ball(best):
            covered[x] = True
    return chosen


@pytest.mark.parametrize("seed", range(30))
def test_the_shelter_cover_is_its_reading_and_covers_everyone(seed: int) -> None:
    arrays = BeltArrays.of(generate_belt("small" if seed % 2 else "tutorial", seed=seed))
    indptr, indices = neighbour_arrays(arrays.n, arrays.edges)
    order = np.random.default_rng(seed).permutation(arrays.n).tolist()
    chosen = walks.shelter_cover(indptr.tolist(), indices.tolist(), order)
    assert chosen == reference_cover(indptr.tolist(), indices.tolist(), order)
    near = [i for i in range(arrays.n) if chosen[i]]
    g = nx.Graph(arrays.edges.tolist())
    g.add_nodes_from(range(arrays.n))
    reach = set().union(*(nx.single_source_shortest_path_length(g, s, cutoff=2) for s in near))
    assert reach == set(range(arrays.n))


def test_the_build_in_use_is_the_one_asked_for() -> None:
    assert_build_asked_for(BUILD, walks, lambda: _engine.compiled_problem(MAPS, MAPS_MODULES))


def test_pure_is_asked_for_every_build() -> None:
    code = "import asteroid_mining.maps as m, asteroid_mining.ai as ai, asteroid_mining.rules as r; " \
           "print(m.BUILD, ai.BUILD, r.ENGINE)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env=dict(os.environ, ASTEROID_MINING_ENGINE="pure"))
    assert result.stdout.split() == ["pure", "pure", "pure"]
