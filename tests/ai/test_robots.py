"""The robots' AI (R13, rules/robot_ai.py): useful to the settlers, never setting off a reaction, bounded."""

from __future__ import annotations

from asteroid_mining.rules import Game, Move, Options, Orbit
from asteroid_mining.rules.robot_ai import robot_action


def world() -> Game:
    game = Game.empty(Options(turns="free"))
    return game


def test_drills_a_core_the_team_needs() -> None:
    game = world()
    game.add_asteroid("A", mantle=2, core="iron")
    game.add_asteroid("S", mantle=0)
    game.link("A", "S")
    game.add_settler("s1", "S")
    game.add_robot("r1", "A")  # standing there surveys it (R17)
    assert robot_action(game.state, game.robots["r1"]).name == "drill"


def test_leaves_a_core_the_team_has_enough_of() -> None:
    game = world()
    game.add_asteroid("A", mantle=2, core="iron")
    game.add_asteroid("B", mantle=2, core="carbon")
    game.link("A", "B")
    game.add_settler("s1", "B", cargo={"iron": 3})
    game.add_robot("r1", "A")
    action = robot_action(game.state, game.robots["r1"])
    assert action.name == "move" and action.target == "B"  # type: ignore[attr-defined]


def test_opens_hollow_asteroids() -> None:
    game = world()
    game.add_asteroid("H", mantle=2)
    game.add_robot("r1", "H")
    assert robot_action(game.state, game.robots["r1"]).name == "drill"


def test_never_finishes_a_reactive_core_that_would_react() -> None:
    for orbit, settler_there in ((Orbit(4, 1, 3), True), (None, False), (Orbit(6, 2, 0), True)):
        game = world()
        game.add_asteroid("U", mantle=1, core="uranium", orbit=orbit)
        game.add_asteroid("S", mantle=0)
        game.link("U", "S")
        game.add_settler("s1", "U" if settler_there else "S")
        game.add_robot("r1", "U")
        assert robot_action(game.state, game.robots["r1"]).name != "drill", orbit


def test_finishes_a_reactive_core_a_settler_can_mine_in_time() -> None:
    game = world()
    game.add_asteroid("U", mantle=1, core="uranium", orbit=Orbit(6, 2, 0))  # far in rounds 3-6
    game.add_settler("s1", "U")
    game.add_robot("r1", "U")
    game.end_round()
    game.end_round()
    assert game.round == 3
    assert robot_action(game.state, game.robots["r1"]).name == "drill"


def test_drawn_towards_the_settlers_on_a_laid_out_belt() -> None:
    game = world()
    for i in range(6):
        game.add_asteroid(f"P{i}", mantle=2, position=(float(i), 0.0))
    for i in range(5):
        game.link(f"P{i}", f"P{i + 1}")
    game.add_settler("s1", "P5")
    game.add_robot("r1", "P2")
    game.set_ai("r1", True)
    # P2 is hollow (a shelter to be), so it drills first; once open it heads for the settler
    game.state.asteroids["P2"].mantle = 0
    action = robot_action(game.state, game.robots["r1"])
    assert action.name == "move" and action.target == "P3"  # type: ignore[attr-defined]


def test_a_step_on_a_500_neighbour_hub_moves_to_useful_work() -> None:
    # the step's cost on a hub is measured in bench_ai.py; here: it samples the hub and picks work
    game = world()
    game.add_asteroid("hub", mantle=0)
    for i in range(500):
        game.add_asteroid(f"n{i}", mantle=2, core="iron")
    game.link("hub", *(f"n{i}" for i in range(500)))
    game.add_settler("s1", "n0")
    game.add_robot("r1", "hub")
    action = robot_action(game.state, game.robots["r1"])
    assert isinstance(action, Move) and action.target.startswith("n")
    assert game.check(action) is None
