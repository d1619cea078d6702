"""The garbage collector's policy (`asteroid_mining.collector`): paused by the edges that build or write in bulk,
never by the rules engine itself."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from asteroid_mining.collector import PROMOTE_AT, CollectorPaused
from asteroid_mining.maps.generator import BeltParams, generate_belt
from asteroid_mining.rules import Game, Options

from .rules.test_loading import full_game


@pytest.fixture
def collector_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every call of `gc.disable`, `gc.enable` and `gc.freeze` while the test runs (they still do their work)."""
    calls: list[str] = []
    for name in ("disable", "enable", "freeze"):
        real = getattr(gc, name)

        def spy(real: object = real, name: str = name) -> None:
            calls.append(name)
            real()  # type: ignore[operator]

        monkeypatch.setattr(gc, name, spy)
    yield calls


def test_the_engine_leaves_the_collector_alone(collector_calls: list[str]) -> None:
    belt = generate_belt(BeltParams(size=300), seed=1)
    game = Game.new(belt, Options(), seed=1, settlers=3)
    doc = game.to_json()
    Game.from_json(doc)
    assert collector_calls == []


def test_an_edge_that_loads_in_bulk_pauses_it(collector_calls: list[str]) -> None:
    with CollectorPaused():
        Game.from_json(full_game())
    assert collector_calls[:1] == ["disable"] and collector_calls[-1] == "enable"


def test_the_collector_is_back_as_it_was() -> None:
    assert gc.isenabled()
    with CollectorPaused():
        assert not gc.isenabled()
        Game.from_json(full_game())
    assert gc.isenabled()
    gc.disable()
    try:
        with CollectorPaused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_a_big_build_made_goes_to_the_oldest_generation_unless_objects_are_frozen() -> None:
    gc.collect()
    with CollectorPaused():
        built = [[n] for n in range(PROMOTE_AT)]
    assert gc.get_count()[0] < 100  # nothing young left to walk at the next allocation
    assert any(obj is built for obj in gc.get_objects(generation=2))
    del built
    gc.collect()
    with CollectorPaused():
        small = [[n] for n in range(1_000)]
    gc.disable()  # (no collection moves it while it is looked for)
    try:
        assert any(obj is small for obj in gc.get_objects(generation=0))  # a small build stays young
    finally:
        gc.enable()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with CollectorPaused():
            more = [[n] for n in range(PROMOTE_AT)]
        gc.disable()  # (no collection moves it while it is looked for)
        assert gc.get_freeze_count() == frozen  # what someone froze stays frozen ...
        assert any(obj is more for obj in gc.get_objects(generation=0))  # ... and what was built stays young
    finally:
        gc.enable()
        gc.unfreeze()
