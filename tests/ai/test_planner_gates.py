"""The planner builds a gate pair when it pays off (R11), and uses it to carry units back."""

from __future__ import annotations

import itertools

from asteroid_mining.ai.observation import Observation
from asteroid_mining.ai.planner import PlannerBot
from asteroid_mining.rules import BuildGates, Game, Move, Options, Place, Wait
from asteroid_mining.rules.actions import Action

STRICT = Options(turns="strict")
HOPS = 10


def far_carbon(s2_uranium: int = 3) -> Game:
    """s1 and s2 (a human who stays put) at home H; the three carbon units the win lacks lie 10 moves away.

    s1 carries 2 iron, 1 ice and 1 uranium beyond the win's needs: exactly a gate pair's price.
    """
    game = Game.empty(STRICT)
    chain = ["H", *(f"P{i}" for i in range(1, HOPS)), "F1"]
    for aid in chain[:-1]:
        game.add_asteroid(aid, mantle=0)  # hollow and bare: known, nothing to survey
    for aid in ("F1", "F2", "F3"):
        game.add_asteroid(aid, mantle=0, core="carbon")
    for a, b in itertools.pairwise(chain):
        game.link(a, b)
    game.link("F1", "F2", "F3")
    game.add_settler("s1", "H", cargo={"iron": 2, "ice": 1, "uranium": 1})
    game.add_settler("s2", "H", cargo={"iron": 3, "ice": 3, "uranium": s2_uranium})
    return game


def play(bot: PlannerBot, game: Game, rounds: int = 60) -> list[Action]:
    """The planner plays s1; s2 (a human) waits at home. Returns s1's actions."""
    actions: list[Action] = []
    while game.status == "running" and game.round <= rounds:
        if game.turn == "s2":
            game.apply(Wait("s2"))
            continue
        action = bot.choose(Observation(game), "s1")
        actions.append(action)
        game.apply(action)
    return actions


def test_builds_places_and_travels_through_a_gate_pair_when_it_pays_off() -> None:
    game = far_carbon()
    actions = play(PlannerBot(), game)
    assert game.status == "won"
    assert actions[0] == BuildGates("s1")
    places = [a for a in actions if isinstance(a, Place)]
    assert len(places) == 2
    gates = game.gates
    at = {gates[p.gate].at for p in places}
    assert "H" in at and at & {"F1", "F2", "F3"}  # one at home, the other at the far site
    assert any(isinstance(a, Move) and a.target in gates for a in actions)  # through the gate
    without = far_carbon()
    play(PlannerBot(build_gates=False), without)
    assert without.status == "won"
    assert game.round + 5 <= without.round  # 21 rounds against 27: the pair saved six


def test_builds_no_gates_when_the_units_are_needed() -> None:
    game = far_carbon(s2_uranium=2)  # s1's uranium is needed for the win
    actions = play(PlannerBot(), game, rounds=3)
    assert not any(isinstance(a, BuildGates) for a in actions)


def test_builds_no_gates_when_the_units_lie_near() -> None:
    game = Game.empty(STRICT)
    game.add_asteroid("H", mantle=0)
    for aid in ("F1", "F2", "F3"):
        game.add_asteroid(aid, mantle=0, core="carbon")
    game.link("H", "F1")
    game.link("F1", "F2", "F3")
    game.add_settler("s1", "H", cargo={"iron": 2, "ice": 1, "uranium": 1})
    game.add_settler("s2", "H", cargo={"iron": 3, "ice": 3, "uranium": 3})
    actions = play(PlannerBot(), game)
    assert game.status == "won"
    assert not any(isinstance(a, (BuildGates, Place)) for a in actions)
