"""A belt as the rules receive it: asteroids, links, gates and the starting asteroid.

This is the engine's input for a real game (`Game.new`). Reading, validating, writing and generating belts
is the business of `asteroid_mining.maps`; this module only holds the plain, immutable description.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .orbit import Orbit


@dataclass(frozen=True, slots=True)
class AsteroidSpec:
    """One asteroid of a belt (R1, R5). `orbit=None` means pinned at `sun`."""

    id: str
    mantle: int = 3
    core: str = "hollow"
    orbit: Orbit | None = None
    sun: Literal["near", "far"] = "far"
    position: tuple[float, float] | None = None
    """Where the asteroid lies in the plane of the belt, the Sun at (0, 0); used by storms (R7) and pictures."""

    def __init__(self, id: str, mantle: int = 3, core: str = "hollow", orbit: Orbit | None = None,
                 sun: Literal["near", "far"] = "far", position: tuple[float, float] | None = None) -> None:
        # written out: compiled, it is native code (a belt of 100,000 asteroids has as many); the one
        # `dataclasses` would generate stays interpreted
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "mantle", mantle)
        object.__setattr__(self, "core", core)
        object.__setattr__(self, "orbit", orbit)
        object.__setattr__(self, "sun", sun)
        object.__setattr__(self, "position", position)


@dataclass(frozen=True, slots=True)
class GatePairSpec:
    """A linked pair of gates already orbiting two asteroids when the game starts."""

    first: str
    first_at: str
    second: str
    second_at: str


@dataclass(frozen=True, slots=True)
class Belt:
    """An asteroid belt: the map a game is played on."""

    asteroids: tuple[AsteroidSpec, ...]
    links: tuple[tuple[str, str], ...]
    start: str
    gates: tuple[GatePairSpec, ...] = ()
    name: str = ""
    description: str = ""
    storm_sector: float = 30.0
    """Angular width, in degrees, of the sector a generated storm hits (R7), for laid-out belts."""
    storm_interval: int | None = None
    """The `storm_interval` option this belt is made for (storms scale with the belt), or None for the default.

    A suggestion for whoever creates a game (server, CLI); the rules take the options they are given."""
