"""Hypothesis strategies for random belts and games."""

from __future__ import annotations

import math

from hypothesis import strategies as st

from asteroid_mining.rules import AsteroidSpec, Belt, Orbit
from asteroid_mining.rules.options import Options

CORE_CHOICES = ("ice", "iron", "carbon", "uranium", "hollow")


@st.composite
def orbits(draw: st.DrawFn) -> Orbit | None:
    if draw(st.booleans()):
        return None
    period = draw(st.integers(1, 8))
    return Orbit(period, draw(st.integers(0, period)), draw(st.integers(0, period - 1)))


@st.composite
def belts(draw: st.DrawFn, min_size: int = 2, max_size: int = 12) -> Belt:
    n = draw(st.integers(min_size, max_size))
    specs = []
    for i in range(n):
        orbit = draw(orbits())
        angle = draw(st.floats(0, 2 * math.pi, allow_nan=False))
        specs.append(AsteroidSpec(
            id=f"a{i}",
            mantle=draw(st.integers(0, 3)),
            # the start is hollow so that a generated game does not end before it begins
            core="hollow" if i == 0 else draw(st.sampled_from(CORE_CHOICES)),
            orbit=orbit if i else None,
            sun="far" if i == 0 else draw(st.sampled_from(("near", "far"))),
            position=(math.cos(angle) * 10, math.sin(angle) * 10),
        ))
    links = {(f"a{i}", f"a{draw(st.integers(0, i - 1))}") for i in range(1, n)}  # a random tree: connected
    extra = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=n))
    links |= {(f"a{a}", f"a{b}") for a, b in extra if a != b}
    return Belt(asteroids=tuple(specs), links=tuple(sorted(links)), start="a0", storm_sector=90.0)


@st.composite
def game_options(draw: st.DrawFn) -> Options:
    return Options(
        uranium_fuse=draw(st.integers(1, 3)),
        ufos=draw(st.integers(0, 2)),
        haywire_gates=draw(st.booleans()),
        storm_warning=draw(st.integers(0, 3)),
        storm_interval=draw(st.sampled_from((0, 2, 4))),
        turns="strict",
    )
