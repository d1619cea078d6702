"""Every refusal code, given where the rules give it, with exactly its parameters, and its English sentence from
the translation files (`texts.refusal_text`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from asteroid_mining.rules import (
    REFUSAL_KINDS,
    Action,
    BuildGates,
    BuildRobot,
    Deposit,
    Drill,
    Game,
    Mine,
    Move,
    Options,
    Place,
    Refusal,
    Refused,
    Wait,
)
from asteroid_mining.texts import refusal_text


def world() -> Game:
    """A (2 layers of iron), B (bare, hollow: a shelter), C (bare carbon), D (far, unlinked), X exploded;
    s1 and robot r1 and UFO u1 on A; s2 on B with a full hold; gates g1 (A) and g2 (carried by s2)."""
    game = Game.empty(Options(turns="free", ufos=0))
    game.add_asteroid("A", mantle=2, core="iron")
    game.add_asteroid("B", mantle=0)
    game.add_asteroid("C", mantle=0, core="carbon")
    game.add_asteroid("D")
    game.add_asteroid("X", mantle=0, core="uranium")
    game.link("A", "B", "C", "X")
    game.add_settler("s1", "A")
    game.add_settler("s2", "B", {"iron": 4, "ice": 2, "carbon": 2, "uranium": 2})
    game.add_robot("r1", "A", ai=False)
    game.add_ufo("u1", "A", ai=False)
    game.add_gates("g1", "A", "g2", "s2")
    game.add_gates("g3", "D", "g4", "B")
    game.add_gates("g5", "X", "g6", "s2")
    game.pin_sun("X", near=True)  # explodes, and g5, g6 with it
    return game


def strict(game: Game) -> Game:
    game.set_option("turns", "strict")
    return game


CASES: list[tuple[str, Callable[[], Game], Action, dict[str, str | int], str]] = [
    ("game_over", lambda: _lost(), Wait("s1"), {"status": "lost"}, "the game is over (lost)"),
    ("unknown_actor", world, Wait("nobody"), {"actor": "nobody"}, "there is no settler nobody"),
    ("not_an_actor", world, Drill("g1"), {"actor": "g1", "kind": "gate"},
     "g1 cannot act"),
    ("dead", lambda: _dead(), Drill("s1"), {"actor": "s1", "kind": "settler"}, "Settler 1 is dead"),
    ("not_your_turn", lambda: strict(world()), Wait("s2"), {"actor": "s2", "turn": "s1"},
     "it is Settler 1's turn"),
    ("cannot_do", world, Mine("r1"), {"actor": "r1", "kind": "robot", "action": "mine"},
     "a robot cannot do that"),
    ("cannot_do", world, Move("u1", "g1"), {"actor": "u1", "kind": "ufo", "action": "move", "gate": "g1"},
     "a ufo cannot do that"),
    ("no_such_target", world, Move("s1", "r1"), {"actor": "s1", "target": "r1"},
     "r1 is neither an asteroid nor a gate"),
    ("exploded", world, Move("s1", "X"), {"actor": "s1", "target": "X"}, "X has exploded"),
    ("not_neighbour", world, Move("s1", "D"), {"actor": "s1", "target": "D", "asteroid": "A"},
     "D is not a neighbour of A"),
    ("gate_destroyed", world, Move("s1", "g5"), {"actor": "s1", "gate": "g5"}, "gate g5 has been destroyed"),
    ("gate_elsewhere", world, Move("s1", "g3"), {"actor": "s1", "gate": "g3", "asteroid": "A"},
     "gate g3 does not orbit A"),
    ("gate_inactive", world, Move("s1", "g1"), {"actor": "s1", "gate": "g1", "partner": "g2"},
     "gate g1 is not open yet: its partner g2 is not placed"),
    ("drilled_through", world, Drill("s2"), {"actor": "s2", "asteroid": "B"},
     "B is already drilled through"),
    ("mantle_left", world, Mine("s1"), {"actor": "s1", "asteroid": "A", "mantle": 2},
     "A still has 2 layers of mantle"),
    ("mantle_left", world, Deposit("s1", "ice"), {"actor": "s1", "asteroid": "A", "mantle": 2, "kind": "ice"},
     "A still has 2 layers of mantle"),
    ("core_hollow", world, Mine("s2"), {"actor": "s2", "asteroid": "B"}, "the core of B is hollow"),
    ("cargo_full", lambda: _full(), Mine("s3"), {"actor": "s3", "limit": 10},
     "your hold is full (10 units)"),
    ("no_such_material", world, Deposit("s2", "gold"), {"actor": "s2", "kind": "gold"},
     "gold is not a material"),
    ("core_not_hollow", lambda: _on_c(), Deposit("s2", "iron"), {"actor": "s2", "asteroid": "C", "core": "carbon"},
     "the core of C is not hollow (it holds carbon core)"),
    ("not_carried", lambda: _s1_on_b(), Deposit("s1", "ice"), {"actor": "s1", "kind": "ice"}, "you carry no ice"),
    ("missing_materials", world, BuildRobot("s1"),
     {"actor": "s1", "build": "robot", "iron": 1, "carbon": 1, "uranium": 1},
     "building a robot needs 1 iron and 1 carbon and 1 uranium more"),
    ("missing_materials", world, BuildGates("s1"),
     {"actor": "s1", "build": "gates", "ice": 1, "iron": 2, "uranium": 1},
     "building a gate pair needs 1 ice and 2 iron and 1 uranium more"),
    ("carries_gates", world, BuildGates("s2"), {"actor": "s2", "gates": 1},
     "you already carry gates (1); place them first"),
    ("bad_id", world, BuildRobot("s2", "9lives"), {"actor": "s2", "problem": "invalid", "id": "9lives"},
     "that name cannot be used (invalid)"),
    ("bad_id", world, BuildRobot("s2", "none"), {"actor": "s2", "problem": "reserved", "id": "none"},
     "that name cannot be used (reserved)"),
    ("bad_id", world, BuildRobot("s2", "A"), {"actor": "s2", "problem": "taken", "id": "A"},
     "that name cannot be used (taken)"),
    ("bad_id", lambda: _no_gates(), BuildGates("s2", "n1"), {"actor": "s2", "problem": "unpaired"},
     "that name cannot be used (unpaired)"),
    ("bad_id", lambda: _no_gates(), BuildGates("s2", "n1", "n1"), {"actor": "s2", "problem": "same", "id": "n1"},
     "that name cannot be used (same)"),
    ("gate_not_carried", world, Place("s1", "g2"), {"actor": "s1", "gate": "g2"}, "you do not carry gate g2"),
    ("partner_here", lambda: _partner_here(), Place("s2", "g2"),
     {"actor": "s2", "gate": "g2", "partner": "g1", "asteroid": "A"}, "its partner g1 already orbits here"),
]


def _lost() -> Game:
    game = world()
    game.apply(Move("s2", "A"))
    game.storm(["A"])
    return game


def _dead() -> Game:
    game = world()
    game.storm(["A"])
    return game


def _full() -> Game:
    game = world()
    game.add_settler("s3", "C", {"iron": 10})
    return game


def _on_c() -> Game:
    game = world()
    game.apply(Move("s2", "A"))
    game.apply(Move("s2", "C"))
    return game


def _s1_on_b() -> Game:
    game = world()
    game.apply(Move("s1", "B"))
    return game


def _no_gates() -> Game:
    game = world()
    game.apply(Place("s2", "g2"))
    return game


def _partner_here() -> Game:
    game = world()
    game.apply(Move("s2", "A"))
    return game


@pytest.mark.parametrize(("code", "make", "action", "params", "message"), CASES,
                         ids=lambda v: v if isinstance(v, str) and v in REFUSAL_KINDS else "")
def test_the_refusal_and_its_parameters(code: str, make: Callable[[], Game], action: Action,
                                        params: dict[str, str | int], message: str) -> None:
    game = make()
    refusal = game.check(action)
    assert refusal == Refusal(code, params)
    assert refusal_text(refusal.code, refusal.params) == message  # the English of the translation files
    with pytest.raises(Refused) as caught:
        game.apply(action)
    assert caught.value.refusal == refusal


def test_every_code_has_a_case() -> None:
    assert {c[0] for c in CASES} | {"turns_strict"} == set(REFUSAL_KINDS)


def test_turns_strict() -> None:
    with pytest.raises(Refused) as caught:
        strict(world()).end_round()
    assert caught.value.refusal == Refusal("turns_strict", {})
    assert refusal_text("turns_strict", {}) == "rounds end by themselves in strict turns"
