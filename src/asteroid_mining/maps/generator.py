"""The belt generator: a playable, fair belt of any size from a seed.

    belt = generate_belt("standard", seed=7)
    belt = generate_belt(BeltParams(size=500, hubs=2), seed=7)
    belt = generate_belt("large", seed=7, richness=0.8)

The work is done in stages, each in its own module and each drawing from its own random stream (so that a
change to one stage does not reshuffle the others): `layout` (positions and names), `links` (proximity links,
hubs, one connected belt), `orbits`, `cores` (materials, shelters, mantles) and `start`. Everything is numpy
arrays until the end; generating the 20,000 asteroids of `huge` takes a second or two.

The same seed and parameters always give the same belt, and so the same JSON (positions are rounded).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import repeat
from typing import Any

import numpy as np
from scipy.spatial import cKDTree

from ..rules.belt import AsteroidSpec, Belt
from ..rules.orbit import Orbit
from .cores import make_cores, minimum_size
from .graph import FloatArray, IntArray, hub_mask, neighbour_arrays, unique_edges
from .layout import lay_out
from .links import choose_hubs, hub_links, join_components, proximity_links
from .orbits import Orbits, make_orbits
from .start import choose_start
from .storms import recommended_storm_interval, recommended_storm_sector

MAX_SIZE = 200_000
"""The largest belt the generator makes (ten times `huge`)."""


class GeneratorError(ValueError):
    """Parameters the generator cannot honour; the message is a sentence for people."""


@dataclass(frozen=True)
class BeltParams:
    """What kind of belt to generate."""

    size: int = 250
    """How many asteroids."""
    density: float = 4.0
    """About how many proximity neighbours an asteroid has (hubs come on top)."""
    hubs: int = 0
    """How many hubs: asteroids linked to their several hundred nearest (at most a quarter of the belt)."""
    hub_size: tuple[int, int] = (200, 800)
    """The fewest and most neighbours of a hub."""
    richness: float = 1.0
    """Scales the share of asteroids that hold a material (1: about two thirds); the rest are hollow."""
    storms: float = 1.0
    """Storm frequency: 1 as often as the engine's defaults, 2 twice as often, 0 none (sets the suggestion)."""
    name: str = ""
    """The belt's name; generated when empty."""

    def problems(self) -> list[str]:
        """What is wrong with these parameters, as sentences."""
        out = []
        low = minimum_size()
        if not low <= self.size <= MAX_SIZE:
            out.append(f"size must be between {low} and {MAX_SIZE} asteroids, not {self.size}")
        if not 1.0 <= self.density <= 30.0:
            out.append(f"density must be between 1 and 30 neighbours, not {self.density:g}")
        if not 0 <= self.hubs <= max(0, self.size // 20):
            out.append(f"hubs must be between 0 and {self.size // 20} for {self.size} asteroids, not {self.hubs}")
        if not 1 <= self.hub_size[0] <= self.hub_size[1]:
            out.append(f"hub sizes must be 1 ≤ fewest ≤ most, not {self.hub_size}")
        if not 0.2 <= self.richness <= 2.0:
            out.append(f"richness must be between 0.2 and 2, not {self.richness:g}")
        if not 0.0 <= self.storms <= 10.0:
            out.append(f"storm frequency must be between 0 and 10, not {self.storms:g}")
        return out


PRESETS: dict[str, BeltParams] = {
    "tutorial": BeltParams(size=30, density=3.0, hubs=0, storms=0.5),
    "small": BeltParams(size=80, density=3.5, hubs=0),
    "standard": BeltParams(size=250, density=4.0, hubs=1),
    "large": BeltParams(size=2_000, density=5.0, hubs=8, hub_size=(200, 500)),
    "huge": BeltParams(size=20_000, density=8.0, hubs=200, hub_size=(300, 900)),
}
"""The named belt sizes (`--preset`)."""


def preset_params(preset: str, **overrides: Any) -> BeltParams:
    """The parameters of a preset, with some replaced; raises `GeneratorError` for an unknown preset."""
    try:
        base = PRESETS[preset]
    except KeyError:
        raise GeneratorError(f"unknown preset {preset!r} (known: {', '.join(PRESETS)})") from None
    return replace(base, **overrides)


@dataclass(frozen=True)
class _Stage:
    seed: int

    def rng(self, stage: int) -> np.random.Generator:
        # what np.random.default_rng([seed, stage]) makes, without its checks of what it was given. A seed
        # sequence takes a list of integers as the 32-bit words of each, one after the other, and an integer as
        # its own words from the lowest: below 2**32 the seed is one word, and `seed | stage << 32` has the
        # same two (read a third faster than a list)
        entropy: int | list[int] = self.seed | stage << 32 if self.seed < 2**32 else [self.seed, stage]
        return np.random.Generator(np.random.PCG64(entropy))


def generate_belt(params: BeltParams | str = "standard", seed: int = 0, **overrides: Any) -> Belt:
    """Generate a belt from parameters (or a preset's name, with `overrides`) and a seed.

    Raises `GeneratorError` naming every parameter that is out of range.
    """
    if isinstance(params, str):
        preset = params
        params = preset_params(params, **overrides)
    else:
        preset = ""
        params = replace(params, **overrides)
    problems = params.problems()
    if problems:
        raise GeneratorError("; ".join(problems))
    if seed < 0:
        raise GeneratorError(f"the seed must be 0 or more, not {seed}")
    stages = _Stage(seed)
    n = params.size

    layout = lay_out(n, stages.rng(1))
    positions = layout.positions
    tree = cKDTree(positions)
    links_rng = stages.rng(2)
    near = proximity_links(positions, tree, params.density, links_rng)
    hubs = choose_hubs(positions, tree, params.hubs, layout.inner, layout.outer, links_rng)
    spokes = hub_links(positions, tree, hubs, params.hub_size, links_rng)
    edges = unique_edges(np.concatenate([near, spokes]), n) if len(spokes) else near  # near is canonical already
    joins = join_components(positions, edges)
    if len(joins):
        edges = unique_edges(np.concatenate([edges, joins]), n)
    neighbours = neighbour_arrays(n, edges)
    hub = hub_mask(neighbours[0][1:] - neighbours[0][:-1])  # the degrees
    hub[hubs] = True

    orbits = make_orbits(layout.radial, layout.angles, stages.rng(3))
    cores = make_cores(n, edges, orbits.hot, np.flatnonzero(hub), params.richness, stages.rng(4), neighbours)
    start = choose_start(cores.core, cores.mantle, edges, layout.radial, hub, stages.rng(5), neighbours)
    cores.mantle[start] = 0  # the start is a shelter from the first round

    sector = recommended_storm_sector(n)
    interval = recommended_storm_interval(sector, params.storms)
    name = params.name or f"{(preset or 'custom').capitalize()} belt {seed}"
    return Belt(
        asteroids=_asteroids(layout.ids, cores.names(), cores.mantle, orbits, positions),
        links=_links(layout.ids, edges),
        start=layout.ids[start],
        name=name,
        description=_describe(params, preset, seed, n, len(edges), int(hub.sum()), interval),
        storm_sector=sector,
        storm_interval=interval,
    )


_ORBITS: dict[tuple[int, int, int], Orbit] = {}
"""Every orbit made so far, by (period, window, phase): orbits are immutable values, and the generator's are a
few thousand at most (periods 3–20), so belts share them instead of making 80 to 20,000 new ones each."""


def _asteroids(
    ids: list[str], cores: list[str], mantle: IntArray, orbits: Orbits, positions: FloatArray
) -> tuple[AsteroidSpec, ...]:
    # built by `map` over the columns, without a loop of the interpreter's: a small belt is made at every game
    # of a simulation, and its records were a tenth of the generator's work
    keys = list(zip(orbits.period.tolist(), orbits.window.tolist(), orbits.phase.tolist(), strict=True))
    orbit_of = _ORBITS
    for key in set(keys).difference(orbit_of):  # orbits not made before
        orbit_of[key] = Orbit(*key)
    return tuple(map(AsteroidSpec, ids, mantle.tolist(), cores, map(orbit_of.__getitem__, keys), repeat("far"),
                     map(tuple, positions.tolist())))


def _links(ids: list[str], edges: IntArray) -> tuple[tuple[str, str], ...]:
    name = ids.__getitem__
    return tuple(zip(map(name, edges[:, 0].tolist()), map(name, edges[:, 1].tolist()), strict=True))


def _describe(params: BeltParams, preset: str, seed: int, n: int, links: int, hubs: int, interval: int) -> str:
    kind = f"preset {preset}" if preset else "custom parameters"
    hub_text = f", {hubs} hub{'s' if hubs != 1 else ''}" if hubs else ""
    storms = f"storm_interval={interval}" if interval else "storm_interval=0 (no storms)"
    return (
        f"Generated ({kind}, seed {seed}): {n} asteroids, {links} links{hub_text}; density {params.density:g}, "
        f"richness {params.richness:g}, storm frequency {params.storms:g}. Suggested option: {storms}."
    )
