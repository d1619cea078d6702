"""Storm regions: the sector helper (against brute force and the engine's own) and storm settings."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from asteroid_mining.maps.storms import (
    angle_of,
    asteroids_in_sector,
    recommended_storm_interval,
    recommended_storm_sector,
    sector_index,
)
from asteroid_mining.rules import Options
from asteroid_mining.rules.belt import AsteroidSpec, Belt
from asteroid_mining.rules.state import GameState


def brute(angles: list[float], ids: list[str], start: float, width: float) -> set[str]:
    if width >= 360:
        return set(ids)
    start %= 360
    return {i for a, i in zip(angles, ids, strict=True) if (a - start) % 360 < width and width > 0}


def belt_at(angles_deg: list[float]) -> Belt:
    asteroids = tuple(
        AsteroidSpec(f"A{i}", position=(10 * math.cos(math.radians(a)), 10 * math.sin(math.radians(a))))
        for i, a in enumerate(angles_deg)
    )
    return Belt(asteroids=asteroids, links=(), start="A0")


def test_angles_seen_from_the_sun() -> None:
    assert angle_of((1.0, 0.0)) == 0.0
    assert angle_of((0.0, 1.0)) == 90.0
    assert angle_of((-1.0, 0.0)) == 180.0
    assert angle_of((0.0, -1.0)) == 270.0
    assert angle_of((1.0, -1e-300)) == 0.0  # never 360


def test_sector_index_sorts_by_angle() -> None:
    angles, ids = sector_index(belt_at([90, 10, 350, 180]))
    assert ids == ["A1", "A0", "A3", "A2"]
    assert angles == sorted(angles)


def test_sector_examples() -> None:
    angles, ids = sector_index(belt_at([0, 20, 45, 90, 200, 340, 359]))
    assert asteroids_in_sector(angles, ids, 10, 30) == ["A1"]  # 20 is in [10, 40), 45 is not
    assert asteroids_in_sector(angles, ids, 10, 36) == ["A1", "A2"]
    assert asteroids_in_sector(angles, ids, 330, 40) == ["A5", "A6", "A0"]  # wraps past 360
    assert asteroids_in_sector(angles, ids, -30, 40) == ["A5", "A6", "A0"]  # negative starts wrap too
    assert asteroids_in_sector(angles, ids, 0, 360) == ids
    assert asteroids_in_sector(angles, ids, 90, 0) == []
    assert asteroids_in_sector(angles, ids, 90, 1) == ["A3"]  # the start is inside, the end is not
    assert asteroids_in_sector(angles, ids, 89, 1) == []


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.floats(0, 359.999), max_size=40),
    st.floats(-720, 720),
    st.floats(0, 400),
)
def test_sector_agrees_with_brute_force(raw: list[float], start: float, width: float) -> None:
    pairs = sorted((a, f"A{i}") for i, a in enumerate(raw))
    angles, ids = [p[0] for p in pairs], [p[1] for p in pairs]
    edges = (start % 360, (start + width) % 360)
    # exactly on an edge, float rounding of `% 360` decides; the examples above pin the edges down
    assume(all(min(abs(a - e), 360 - abs(a - e)) > 1e-6 for a in angles for e in edges))
    found = asteroids_in_sector(angles, ids, start, width)
    assert len(found) == len(set(found))
    assert set(found) == brute(angles, ids, start, width)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 359.999), min_size=1, max_size=30), st.floats(0, 359.9), st.floats(0.1, 359))
def test_sector_agrees_with_the_engine(raw: list[float], start: float, width: float) -> None:
    """rules/storms.py finds sectors for the engine's storm generator; both must mean the same region."""
    engine = pytest.importorskip("asteroid_mining.rules.storms")
    belt = belt_at(raw)
    angles, ids = sector_index(belt)
    # a real state: the compiled engine takes no look-alike
    state = GameState(Options(), random.Random(0), scripted=True)
    state.angles, state.angle_ids = list(angles), list(ids)
    assert engine.sector_ids(state, start, width) == asteroids_in_sector(angles, ids, start, width)
    for a in belt.asteroids:
        assert a.position is not None
        assert engine.angle_of(a.position) == pytest.approx(angle_of(a.position))


def test_recommended_sector_narrows_with_size() -> None:
    widths = [recommended_storm_sector(n) for n in (30, 80, 250, 2000, 20000)]
    assert widths == sorted(widths, reverse=True)
    assert all(10 <= w <= 60 for w in widths)


def test_recommended_interval_keeps_the_hazard() -> None:
    assert recommended_storm_interval(30.0) == 10  # the engine's defaults
    assert recommended_storm_interval(30.0, 2.0) == 5
    assert recommended_storm_interval(15.0) == 5
    assert recommended_storm_interval(30.0, 0.0) == 0
    assert recommended_storm_interval(1.0, 10.0) == 1
    assert recommended_storm_interval(30.0, 1e-300) == 10_000
