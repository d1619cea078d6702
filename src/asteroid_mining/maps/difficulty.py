"""Difficulty levels: named sets of belt-generator parameters and rule options, for every belt size.

    level = difficulty_named("hard")
    resolve("standard", seed=7, difficulty="hard")     # maps.resolve applies it

A level scales what is relative to the belt (storm frequency, how rich the belt is), so one level fits every
preset from `tutorial` to `huge`; on a fixed belt (a shipped or uploaded one) only its rule options and its
storm frequency apply. The values were calibrated with `simulate` so that the planner's win rate on
`standard` is 100 % (easy), 85–95 % (normal), 50–70 % (hard) and 20–40 % (brutal), with classic and extended
rules alike; the measurements are in docs/ai.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..rules.belt import Belt


@dataclass(frozen=True, slots=True)
class Difficulty:
    """A difficulty level."""

    name: str
    description: str
    storms: float = 1.0
    """Storm frequency (1: the generator's usual; 2: twice as often), for generated and fixed belts alike."""
    generator: Mapping[str, Any] = field(default_factory=dict)
    """Belt-generator parameters set over the preset's (`BeltParams` fields), `storms` included."""
    options: Mapping[str, int | bool] = field(default_factory=dict)
    """Rule options recommended on top of the rules preset (a player's explicit option still wins)."""

    def options_for(self, belt: Belt, generated: bool) -> dict[str, int | bool]:
        """The recommended options of this level on `belt` (a generated belt already has its storm interval)."""
        out: dict[str, int | bool] = dict(self.options)
        if not generated and belt.storm_interval and self.storms != 1.0:
            out["storm_interval"] = max(1, round(belt.storm_interval / self.storms))
        return out

    def to_json(self) -> dict[str, Any]:
        """The level as `GET /api/belts` lists it."""
        return {"name": self.name, "description": self.description}


def _level(name: str, description: str, storms: float, warning: int, richness: float = 1.0) -> Difficulty:
    # plain dicts, not read-only proxies: a level travels to simulation workers (pickled), and nothing changes them
    return Difficulty(name, description, storms, {"storms": storms, "richness": richness}, {"storm_warning": warning})


# What the measurements showed (docs/ai.md): the planner loses games to storms only. Storm warning is the strong
# dial (with no warning a storm can only be survived by standing in a shelter already), storm frequency the fine
# one; richness, belt density and the uranium share change how long a game takes, hardly whether it is won.
DIFFICULTIES: dict[str, Difficulty] = {
    level.name: level
    for level in (
        _level("easy", "Storms half as often, three rounds of warning, a richer belt.", 0.5, 3, 1.2),
        _level("normal", "Storms ten times as often, one round of warning.", 10.0, 1),
        _level("hard", "Storms nearly twice as often, no warning: shelter before they are forecast.", 1.75, 0),
        _level("brutal", "Storms three and a half times as often, no warning.", 3.5, 0),
    )
}
"""The levels, easiest first."""
DIFFICULTY_NAMES: tuple[str, ...] = tuple(DIFFICULTIES)
"""`easy`, `normal`, `hard`, `brutal`."""


def difficulty_named(name: str) -> Difficulty:
    """The level called `name`; raises `ResolveError` (a ValueError) naming the levels otherwise."""
    try:
        return DIFFICULTIES[name]
    except KeyError:
        from .resolve import ResolveError

        raise ResolveError(f"unknown difficulty {name!r}: use {', '.join(DIFFICULTY_NAMES)}") from None


__all__ = ["DIFFICULTIES", "DIFFICULTY_NAMES", "Difficulty", "difficulty_named"]
