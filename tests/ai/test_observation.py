"""`Observation`: what players may know (R17), read lazily and read-only from the live game."""

from __future__ import annotations

import pytest

from asteroid_mining.ai import UNKNOWN, Observation
from asteroid_mining.rules import Drill, Game, Move, Options, Orbit


def scripted() -> Game:
    game = Game.empty(Options(turns="strict"))
    game.add_asteroid("A", mantle=0)
    game.add_asteroid("B", mantle=1, core="uranium", orbit=Orbit(6, 2, 3))
    game.add_asteroid("C", mantle=2, core="ice")
    game.add_asteroid("D", mantle=0, core="iron")
    game.link("A", "B", "D")
    game.link("B", "C")
    game.add_settler("s1", "A", cargo={"iron": 2})
    game.add_settler("s2", "A")
    return game


def test_unsurveyed_cores_are_unknown() -> None:
    obs = Observation(scripted())
    assert obs.core("A") == "hollow"  # the settlers stand on it
    assert obs.core("B") == UNKNOWN and obs.asteroid("B").core == UNKNOWN
    assert obs.core("C") == UNKNOWN
    assert obs.core("D") == "iron"  # bare: its core shows (R17)
    assert not obs.asteroid("B").surveyed


def test_a_visit_or_a_drill_through_reveals_a_core() -> None:
    game = scripted()
    obs = Observation(game)
    game.apply(Move("s1", "B"))
    assert obs.core("B") == "uranium"  # the same observation sees the live game
    game.apply(Move("s2", "B"))
    game.apply(Drill("s1"))  # round 2: B is far, so it is safe
    assert obs.asteroid("B").exposed


def test_everything_else_is_public() -> None:
    game = scripted()
    obs = Observation(game)
    b = obs.asteroid("B")
    assert b.mantle == 1 and b.orbit == Orbit(6, 2, 3)
    assert b.near_in(4) == Orbit(6, 2, 3).is_near(4)
    assert b.next_near(1) == Orbit(6, 2, 3).next_near(1)
    assert set(b.neighbours) == {"A", "C"}
    assert obs.settler("s1").cargo["iron"] == 2
    assert obs.settler("s1").at == "A"
    assert obs.turn == "s1" and obs.round == 1 and obs.status == "running"
    assert [s.id for s in obs.living_settlers()] == ["s1", "s2"]
    game.forecast(2, ["C"])
    assert obs.storm_round("C") == 2 and obs.asteroid("C").storm_round == 2
    assert obs.forecasts[0].asteroids == ("C",)


def test_read_only() -> None:
    obs = Observation(scripted())
    with pytest.raises(TypeError):
        obs.settler("s1").cargo["iron"] = 9  # type: ignore[index]
    with pytest.raises(AttributeError):
        obs.asteroid("B").mantle = 0  # type: ignore[misc]
    assert not hasattr(obs.asteroid("B").neighbours, "add")


def test_legal_actions_and_check_are_the_engines() -> None:
    game = scripted()
    obs = Observation(game)
    assert obs.legal_actions("s1") == game.legal_actions("s1")
    assert obs.legal_actions("s2") == []  # not its step (R9a)
    refusal = obs.check(Drill("s2"))
    assert refusal is not None and refusal.code == "not_your_turn"


def test_creating_one_copies_nothing() -> None:
    # O(1) to create: the façade holds the live game and nothing else (its cost is measured in bench_ai.py)
    game = scripted()
    obs = Observation(game)
    # the one attribute: `__slots__` in the pure build, the native class's own record of them compiled
    assert getattr(Observation, "__slots__", getattr(Observation, "__mypyc_attrs__", None)) == ("_game",)
    assert not hasattr(obs, "__dict__")
    assert obs._game is game


def test_key_identifies_game_and_round() -> None:
    first, second = scripted(), scripted()
    assert Observation(first).key != Observation(second).key
    assert Observation(first).key == Observation(first).key
    assert Observation(first).same_game(Observation(first))
    assert not Observation(first).same_game(Observation(second))
