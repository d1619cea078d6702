"""The bounded search: a lazy one finds what the eager one finds, in the same order, however it is read."""

from __future__ import annotations

import random

import pytest

from asteroid_mining.ai.observation import Observation
from asteroid_mining.ai.search import Passable, Reach, search
from asteroid_mining.maps.generator import generate_belt
from asteroid_mining.rules import Game, Options

from .conftest import small_game


def gated_game(seed: int) -> Game:
    """A generated belt with two active gate pairs and a forecast storm, so that gates and a passable test count."""
    game = small_game(seed=seed, preset="standard")
    rng = random.Random(seed)
    ids = sorted(game.asteroids)
    a, b, c, d = rng.sample(ids, 4)
    game.add_gates("g1", a, "g2", b)
    game.add_gates("g3", c, "g4", d)
    game.forecast(game.round + 2, rng.sample(ids, 15))
    return game


def assert_same(lazy: Reach, eager: Reach) -> None:
    assert lazy.order == eager.order
    assert lazy.dist == eager.dist
    assert lazy.first == eager.first
    assert lazy.complete == eager.complete


def storms_block(obs: Observation) -> Passable:
    def passable(aid: str, d: int) -> bool:
        storm = obs.storm_round(aid)
        return storm is None or storm > obs.round + d
    return passable


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("depth", "nodes"), [(14, 600), (3, 600), (14, 25), (1, 2), (0, 10)])
def test_a_lazy_search_is_the_eager_one_however_it_is_read(seed: int, depth: int, nodes: int) -> None:
    game = gated_game(seed)
    obs = Observation(game)
    rng = random.Random(seed)
    passable = storms_block(obs)
    for origin in rng.sample(sorted(game.asteroids), 5):
        eager = search(obs, origin, depth, nodes, passable)
        assert eager.dist[origin] == 0 and eager.step_towards(origin) is None

        walked = search(obs, origin, depth, nodes, passable, lazy=True)
        seen = [aid for aid, _ in walked.walk()]
        assert seen == eager.order
        assert_same(walked, eager)

        # read a little, then ask about asteroids here and there, then read the rest
        mixed = search(obs, origin, depth, nodes, passable, lazy=True)
        head: list[str] = []
        for aid, d in mixed.walk():
            assert d == eager.dist[aid]
            head.append(aid)
            if len(head) == 3:
                break
        assert head == eager.order[:3]
        for aid in rng.sample(sorted(game.asteroids), 10):
            assert mixed.step_towards(aid) == eager.first.get(aid)
            assert mixed.distance(aid) == eager.dist.get(aid)
        assert [aid for aid, _ in mixed.walk()] == eager.order
        assert_same(mixed, eager)


def test_gates_are_exits_and_their_first_step_is_the_gate() -> None:
    belt = generate_belt("small", seed=1)
    game = Game.new(belt, Options(), seed=1)
    ids = sorted(game.asteroids)
    far = max(ids, key=lambda aid: search(Observation(game), ids[0], 50, 10_000).dist.get(aid, -1))
    game.add_gates("g1", ids[0], "g2", far)
    reach = search(Observation(game), ids[0], 50, 10_000)
    assert reach.dist[far] == 1
    assert reach.step_towards(far) == "g1"
    assert Observation(game).gate_exit_map() == {ids[0]: [("g1", far)], far: [("g2", ids[0])]}
    assert Observation(game).gate_sites() == {ids[0], far}
