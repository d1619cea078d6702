"""The server sends each client the choices of its settlers whenever they change, computing as few as it can
(server/choices.py): what a client holds must always be the engine's `Game.choices`."""

from __future__ import annotations

import dataclasses
import json
import random
from collections import Counter
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from asteroid_mining.maps import load_shipped
from asteroid_mining.rules import Belt, Game, Options
from asteroid_mining.server.choices import ChoiceTracker
from asteroid_mining.server.diff import ViewTracker
from tests.rules.strategies import belts, game_options

from .helpers import sent_choices


def _decoded(texts: dict[str, str]) -> dict[str, Any]:
    return {sid: json.loads(text) for sid, text in texts.items()}


def _engine_texts(game: Game, settlers: list[str]) -> dict[str, str]:
    """The engine's choices as orjson writes them: the tracker keeps and sends text, and must write exactly this."""
    return {sid: orjson.dumps(sent_choices(game, sid)).decode() for sid in settlers}


def play_randomly(game: Game, seed: int, steps: int, watched: list[str] | None = None) -> Counter[str]:
    """Random legal play; after every step the choices held (from the state, then the changes) are the engine's."""
    view = ViewTracker(game)
    tracker = ChoiceTracker(game)
    settlers = list(game.settlers) if watched is None else watched
    tracker.watch(settlers)
    held = _decoded(tracker.current(settlers))
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    for _ in range(steps):
        if game.status != "running":
            break
        if game.options.turns == "strict":
            if game.turn is None:
                break
            events = game.apply(rng.choice(game.legal_actions(game.turn)))
        else:  # free turns: any settler acts, and the round ends now and then (every settler's choices live on)
            movers = [sid for sid in game.settlers if game.legal_actions(sid)]
            if not movers or rng.random() < 0.1:
                events = game.end_round()
            else:
                events = game.apply(rng.choice(game.legal_actions(rng.choice(movers))))
        counts.update(event.type for event in events)
        view.update()
        raw = tracker.update(view.touched)
        changed = _decoded(raw)
        for sid, choices in changed.items():
            assert choices != held[sid], "sent again unchanged"
        held.update(changed)
        counts["sent"] += len(changed)
        assert held == {sid: sent_choices(game, sid) for sid in settlers}
        engine = _engine_texts(game, settlers)
        assert all(text == engine[sid] for sid, text in raw.items()), "not the engine's JSON text"
    return counts


@settings(max_examples=50, deadline=None)
@given(belt=belts(max_size=10), options=game_options(), seed=st.integers(0, 1000), settlers=st.integers(1, 4))
def test_choices_follow_random_games(belt: Belt, options: Options, seed: int, settlers: int) -> None:
    play_randomly(Game.new(belt, options, seed, settlers), seed, 60)


@settings(max_examples=40, deadline=None)
@given(belt=belts(max_size=10), options=game_options(), seed=st.integers(0, 1000), settlers=st.integers(1, 4))
def test_choices_follow_random_games_in_free_turns(belt: Belt, options: Options, seed: int, settlers: int) -> None:
    """Free turns: every settler may act at once, so a settler's choices are sent again only when the command
    touched what they are made of (`Game.choices_scope`, asked the first time it matters)."""
    game = Game.new(belt, dataclasses.replace(options, turns="free"), seed, settlers)
    play_randomly(game, seed, 60)


def test_choices_through_explosions_storms_and_gates() -> None:
    options = Options(uranium_fuse=1, ufos=2, haywire_gates=True, storm_warning=1, storm_interval=2)
    seen: Counter[str] = Counter()
    for seed in range(8):
        for name in ("tutorial", "puzzle-gates", "puzzle-storm"):
            seen += play_randomly(Game.new(load_shipped(name), options, seed, 3), seed, 120)
    for kind in ("exploded", "storm", "round", "died", "mined", "moved", "drifted"):
        assert seen[kind], f"no {kind} event was played: the test does not cover it"


def test_only_watched_settlers_are_computed_and_unwatched_are_forgotten() -> None:
    game = Game.new(load_shipped("tutorial"), Options(storm_interval=0), 0, 3)
    tracker = ChoiceTracker(game)
    view = ViewTracker(game)
    assert tracker.update(set()) == {}
    tracker.watch(["s2"])
    tracker.watch(["s2"])
    assert set(tracker.current(["s2"])) == {"s2"}
    game.apply(game.legal_actions("s1")[0])
    view.update()
    assert set(tracker.update(view.touched)) <= {"s2"}
    tracker.unwatch(["s2"])
    game.apply(game.legal_actions("s2")[0])
    view.update()
    assert set(tracker.update(view.touched)) <= {"s2"}  # one connection still watches s2
    tracker.unwatch(["s2"])
    game.apply(game.legal_actions("s3")[0])
    view.update()
    assert tracker.update(view.touched) == {}


def test_choices_of_building_and_placing_gates() -> None:
    from asteroid_mining.rules import BuildGates, BuildRobot, Drill, Move, Place, Wait

    game = Game.empty()
    for aid in ("A", "B", "C", "D"):
        game.add_asteroid(aid, mantle=1)
    game.link("A", "B")
    game.link("B", "C")
    game.link("C", "D")
    game.add_settler("s1", "A", {"iron": 3, "ice": 1, "uranium": 2, "carbon": 1})
    game.add_settler("s2", "D")
    view, tracker = ViewTracker(game), ChoiceTracker(game)
    tracker.watch(["s1", "s2"])
    held = _decoded(tracker.current(["s1", "s2"]))
    steps = [BuildGates("s1"), BuildRobot("s1"), Place("s1", "gate1"), Move("s1", "B"), Drill("s1"),
             Move("s1", "C"), Wait("s2"), Place("s1", "gate2"), Move("s2", "C"), Move("s1", "gate2")]
    for action in steps:
        game.apply(action)
        view.update()
        held.update(_decoded(tracker.update(view.touched)))
        assert held == {sid: sent_choices(game, sid) for sid in ("s1", "s2")}, action
    game.end_round()
    view.update()
    held.update(_decoded(tracker.update(view.touched)))
    assert held == {sid: sent_choices(game, sid) for sid in ("s1", "s2")}
    assert game.settlers["s1"].at == "A"


def test_prepared_choices_are_remembered_only_once_committed() -> None:
    """Worked out before the command is stored, the choices a joining client gets stay as they were until the
    command is announced; a settler no longer watched by then is not remembered."""
    game = Game.new(load_shipped("tutorial"), Options(storm_interval=0), 0, 2)
    tracker, view = ChoiceTracker(game), ViewTracker(game)
    tracker.watch(["s1", "s2"])
    before = tracker.current(["s1", "s2"])
    assert before["s2"] == "null" and before["s1"] != "null"
    game.apply(game.legal_actions("s1")[0])
    view.update()
    change = tracker.prepare(view.touched)
    assert set(change.changed) == {"s1", "s2"} and change.changed["s1"] == "null"
    assert tracker.current(["s1", "s2"]) == before
    tracker.unwatch(["s1"])
    tracker.commit(change)
    assert tracker.current(["s2"]) == {"s2": change.changed["s2"]}
    assert tracker.current(["s2"])["s2"] == game.choices_text("s2")
    tracker.watch(["s1"])
    assert tracker.current(["s1"]) == {"s1": "null"}  # computed afresh, not the text prepared for it
