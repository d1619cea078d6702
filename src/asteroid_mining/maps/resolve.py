"""The one way a game's belt is set up: `resolve(spec, seed)` → the belt and the options it is made for.

    resolved = resolve("standard", seed=7, difficulty="hard")
    options = resolved.options_for("classic")            # the preset, then what the belt recommends
    game = Game.new(resolved.belt, options, seed=7)

A *belt spec* is one of

- a **name**: a shipped belt (`tutorial`, `puzzle-gates`, …) or a generator preset (`small`, `standard`, …).
  A shipped belt of the same name as a preset wins: `tutorial` is the hand-made tutorial everywhere;
- a **belt document** (a mapping, as in a belt file), validated here;
- a **file** (a `Path`, or with `files=True` a string that names an existing file or ends in `.json`). The
  server never passes `files=True`: a request cannot make it read a file.

The belt's own `storm_interval` (generated belts set one to suit their size) is applied everywhere as the
*recommended option*: the server, `simulate`, the learning environments and the command line all play a belt
with the storms it is made for, unless the player sets `storm_interval` explicitly. A difficulty level
(`maps.difficulty`) changes the generator's parameters for presets and adds its own recommended options.

The server, `simulate`, `rl/`, `demo` and the command line all come through here; `belt_source` does the
checking and file reading once, and its result gives the belt of any seed (what a simulation's workers need).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..rules.belt import Belt
from ..rules.options import Options, preset
from .difficulty import Difficulty, difficulty_named
from .format import belt_to_json, load_belt, parse_belt
from .shipped import load_shipped, shipped_names

GENERATED = ("tutorial", "small", "standard", "large", "huge")
"""The generator's presets, smallest first (the generator's own table, without importing numpy for it)."""

BeltSpec = str | os.PathLike[str] | Mapping[str, Any]
"""A belt name, a belt file, or a belt document."""


class ResolveError(ValueError):
    """A belt spec that names nothing known (the message is a sentence listing what is known)."""


@dataclass(frozen=True, slots=True)
class Resolved:
    """A belt ready to be played, with the options it is made for."""

    belt: Belt
    options: dict[str, int | bool] = field(default_factory=dict)
    """Recommended rule options (the belt's storm interval, a difficulty's settings), set over the rules preset."""
    name: str = ""
    """What the game calls its belt: the name asked for (a shipped belt, a preset), else the belt's own."""
    description: str = ""

    def options_for(self, rules: str | Options = "classic", explicit: Mapping[str, Any] | None = None) -> Options:
        """The options of a game on this belt: the rules preset, then the recommended options, then `explicit`.

        Raises `OptionError` (rules.options) for an unknown preset or a bad explicit option.
        """
        base = rules if isinstance(rules, Options) else preset(rules)
        merged: dict[str, Any] = {**self.options, **(explicit or {})}
        return replace(Options.from_json({**base.to_json(), **merged}), turns=base.turns)


@dataclass(frozen=True, slots=True)
class BeltSource:
    """A checked belt spec: gives the `Resolved` belt of any seed (a fixed belt ignores the seed).

    Picklable and small (a preset's name or one parsed belt), for simulation workers.
    """

    name: str
    preset: str | None = None
    """The generator preset, when the belt is generated from the seed."""
    fixed: Belt | None = None
    difficulty: Difficulty | None = None
    size: int = 0
    """How many asteroids the belt has (for a preset: will have), known before anything is generated."""

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # A fixed belt travels as its JSON document (read back once where it lands), so that a source pickles
        # whichever build of the engine made it (a compiled frozen record does not unpickle field by field).
        document = belt_to_json(self.fixed) if self.fixed is not None else None
        return _source_from, (self.name, self.preset, document, self.difficulty, self.size)

    def __call__(self, seed: int) -> Resolved:
        """The belt for `seed`: generated (a preset) or the fixed one, with its recommended options."""
        if self.preset is not None:
            from .generator import generate_belt  # numpy and scipy: only when a belt is generated

            overrides = self.difficulty.generator if self.difficulty else {}
            belt = generate_belt(self.preset, seed=seed, **overrides)
        else:
            assert self.fixed is not None
            belt = self.fixed
        options: dict[str, int | bool] = {}
        if belt.storm_interval is not None:
            options["storm_interval"] = belt.storm_interval
        if self.difficulty is not None:
            options.update(self.difficulty.options_for(belt, generated=self.preset is not None))
        return Resolved(belt, options, self.name or belt.name, belt.description)


def _source_from(name: str, preset: str | None, document: dict[str, Any] | None, difficulty: Difficulty | None,
                 size: int) -> BeltSource:
    """A `BeltSource` unpickled (see `BeltSource.__reduce__`)."""
    fixed = parse_belt(document, source=name) if document is not None else None
    return BeltSource(name, preset, fixed, difficulty, size)


def belt_source(spec: BeltSpec, difficulty: str | Difficulty | None = None, *, files: bool = False) -> BeltSource:
    """Check `spec` (and read a file or validate a document, once) without generating anything.

    Raises ResolveError for an unknown name or difficulty, `BeltError` for a document or file that is not a
    valid belt (every problem listed).
    """
    level = difficulty_named(difficulty) if isinstance(difficulty, str) else difficulty
    if isinstance(spec, Mapping):
        belt = parse_belt(dict(spec), source="belt")
        return BeltSource(belt.name or "custom", fixed=belt, difficulty=level, size=len(belt.asteroids))
    if isinstance(spec, os.PathLike) or (files and _looks_like_file(spec)):
        belt = load_belt(Path(spec))
        return BeltSource(belt.name or Path(spec).stem, fixed=belt, difficulty=level, size=len(belt.asteroids))
    if spec in shipped_names():  # a shipped belt wins over a preset of the same name
        belt = load_shipped(spec)
        return BeltSource(spec, fixed=belt, difficulty=level, size=len(belt.asteroids))
    if spec in GENERATED:
        from .generator import PRESETS

        overrides = level.generator if level else {}
        return BeltSource(spec, preset=spec, difficulty=level, size=int(overrides.get("size", PRESETS[spec].size)))
    where = "a belt file, " if files else ""
    raise ResolveError(f"unknown belt {spec!r}: use {where}a shipped belt "
                       f"({', '.join(shipped_names())}) or a generator preset "
                       f"({', '.join(p for p in GENERATED if p not in shipped_names())})")


def _looks_like_file(spec: str) -> bool:
    return spec.endswith(".json") or os.sep in spec or Path(spec).is_file()


def resolve(spec: BeltSpec, seed: int = 0, difficulty: str | Difficulty | None = None, *,
            files: bool = False) -> Resolved:
    """The belt `spec` names, for game seed `seed`, with its recommended options (see the module's doc).

    Raises ResolveError, `BeltError` (an invalid document or file) or `GeneratorError` (a preset's parameters
    the generator cannot honour).
    """
    return belt_source(spec, difficulty, files=files)(seed)


@dataclass(frozen=True, slots=True)
class BeltInfo:
    """One belt a game can be created on, as `GET /api/belts` and `map list` show it."""

    name: str
    kind: str
    """`shipped` (a hand-made file) or `generated` (a generator preset, a new belt for each seed)."""
    asteroids: int
    description: str


def belt_catalog() -> list[BeltInfo]:
    """Every belt a game can be created on by name: the shipped ones, then the presets they do not shadow."""
    from .generator import PRESETS

    out = []
    for name in shipped_names():
        belt = load_shipped(name)
        out.append(BeltInfo(name, "shipped", len(belt.asteroids), belt.description))
    for name in GENERATED:
        if name in shipped_names():
            continue
        params = PRESETS[name]
        hubs = f", {params.hubs} hub{'s' if params.hubs != 1 else ''}" if params.hubs else ""
        out.append(BeltInfo(name, "generated", params.size,
                            f"A new belt of {params.size:,} asteroids from the game's seed "
                            f"(about {params.density:g} neighbours each{hubs})."))
    return out


__all__ = [
    "GENERATED",
    "BeltInfo",
    "BeltSource",
    "BeltSpec",
    "ResolveError",
    "Resolved",
    "belt_catalog",
    "belt_source",
    "resolve",
]
