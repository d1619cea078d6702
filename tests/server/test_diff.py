"""The diffs sent with each update always bring a client's view to exactly `Game.view()` (R17), once the client
has derived each asteroid's sun state from its orbit (R5)."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from asteroid_mining.maps import load_shipped
from asteroid_mining.rules import Belt, Game, Options
from asteroid_mining.server.diff import DERIVED, ViewTracker, with_sun
from tests.rules.strategies import belts, game_options

from .helpers import apply_diff


def plain(value: Any) -> Any:
    """As a client receives it (JSON: tuples are arrays)."""
    return json.loads(json.dumps(value))


def play_randomly(game: Game, seed: int, steps: int) -> Counter[str]:
    """Random legal play; after every step a client's view patched by the diff equals the engine's view."""
    tracker = ViewTracker(game)
    client = plain(tracker.view())
    rng = random.Random(seed)
    seen: Counter[str] = Counter()
    for _ in range(steps):
        if game.status != "running" or game.turn is None:
            break
        events = game.apply(rng.choice(game.legal_actions(game.turn)))
        seen.update(event.type for event in events)
        apply_diff(client, plain(tracker.update()))
        assert client == plain(tracker.view())
        assert with_sun(client) == game.view()
    return seen


@settings(max_examples=60, deadline=None)
@given(belt=belts(max_size=10), options=game_options(), seed=st.integers(0, 1000), settlers=st.integers(1, 4))
def test_diffs_follow_random_games(belt: Belt, options: Options, seed: int, settlers: int) -> None:
    play_randomly(Game.new(belt, options, seed, settlers), seed, 60)


def test_diffs_through_explosions_storms_and_gates() -> None:
    options = Options(uranium_fuse=1, ufos=2, haywire_gates=True, storm_warning=1, storm_interval=2)
    seen: Counter[str] = Counter()
    for seed in range(12):
        for name in ("tutorial", "puzzle-gates", "puzzle-storm"):
            seen += play_randomly(Game.new(load_shipped(name), options, seed, 3), seed, 150)
    for kind in ("exploded", "storm", "round", "drifted", "died", "mined", "sublimated", "gate_destroyed", "moved"):
        assert seen[kind], f"no {kind} event was played: the test does not cover it"


def test_diffs_of_building_and_gates() -> None:
    from asteroid_mining.rules import BuildGates, BuildRobot, Drill, Move, Place

    game = Game.empty()
    for aid in ("A", "B", "C"):
        game.add_asteroid(aid, mantle=1)
    game.link("A", "B")
    game.link("B", "C")
    game.add_settler("s1", "A", {"iron": 3, "ice": 1, "uranium": 2, "carbon": 1})
    tracker = ViewTracker(game)
    client = plain(tracker.view())
    steps = [BuildGates("s1"), BuildRobot("s1"), Place("s1", "gate1"), Move("s1", "B"), Drill("s1"), Move("s1", "C"),
             Place("s1", "gate2"), Move("s1", "gate2")]
    for action in steps:
        game.apply(action)
        apply_diff(client, plain(tracker.update()))
        assert with_sun(client) == game.view(), action
    game.end_round()
    apply_diff(client, plain(tracker.update()))
    assert with_sun(client) == game.view()
    assert game.settlers["s1"].at == "A"


def test_a_diff_names_only_what_changed() -> None:
    game = Game.new(load_shipped("tutorial"), Options(storm_interval=0), 0, 2)
    tracker = ViewTracker(game)
    from asteroid_mining.rules import Move

    game.apply(Move("s1", "Themis"))
    diff = tracker.update()
    assert [a["id"] for a in diff["asteroids"]] == ["Home", "Themis"]
    assert [s["id"] for s in diff["settlers"]] == ["s1"]
    assert "gates" not in diff and "forecasts" not in diff
    assert diff["turn"] == "s2"


def test_messages_leave_out_what_the_orbit_says_and_a_new_round_changes_no_asteroid() -> None:
    game = Game.new(load_shipped("tutorial"), Options(storm_interval=0), 0, 1)
    tracker = ViewTracker(game)
    assert all(not set(DERIVED) & set(a) for a in tracker.view()["asteroids"])
    from asteroid_mining.rules import Wait

    before = game.view()["asteroids"]
    events = [e.to_json() for e in game.apply(Wait("s1"))]  # the only settler: the round ends
    assert any(e["type"] == "round" for e in events)
    moved_on = [a["id"] for a, b in zip(before, game.view()["asteroids"], strict=True) if a != b]
    assert moved_on, "no asteroid changed its place on its orbit: the test shows nothing"
    diff = tracker.update()
    assert "asteroids" not in diff and diff["round"] == 2
    assert with_sun(plain(tracker.view())) == game.view()


def test_a_prepared_diff_changes_the_view_only_once_committed() -> None:
    """The server works a command's diff out before the command is stored: until then, clients that join get
    the view as it was."""
    game = Game.new(load_shipped("tutorial"), Options(storm_interval=0), 0, 2)
    tracker = ViewTracker(game)
    before = plain(tracker.view())
    game.apply(next(a for a in game.legal_actions("s1") if a.name == "move"))
    change = tracker.prepare()
    assert plain(tracker.view()) == before and tracker.top["turn"] == "s1"
    assert change.diff["turn"] == "s2" and change.diff["settlers"] and "s1" in change.touched
    tracker.commit(change)
    assert with_sun(plain(tracker.view())) == game.view() and tracker.touched == change.touched
    client = before
    apply_diff(client, plain(change.diff))
    assert client == plain(tracker.view())
