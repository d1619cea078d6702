"""The belt of a new game: a shipped belt, a generated one, or a belt document sent by the client."""

from __future__ import annotations

from typing import Any

from ..maps import BeltError, belt_to_json, load_shipped, parse_belt, shipped_names
from ..rules import Belt
from .config import Settings
from .errors import ServerError

GENERATED = ("tutorial", "small", "standard", "large", "huge")
"""The generator's presets; a shipped belt of the same name (`tutorial`) wins."""


def resolve_belt(spec: str | dict[str, Any], seed: int, settings: Settings) -> tuple[Belt, dict[str, Any]]:
    """The belt a game is created on and its canonical JSON; ServerError 422 (field `belt`) when unusable.

    Runs the generator for presets (CPU work: call it off the event loop).
    """
    if isinstance(spec, str):
        belt = _named(spec, seed, settings)
    else:
        _check_size(_count(spec.get("asteroids")), _count(spec.get("links")), settings)
        try:
            belt = parse_belt(spec, source="belt")
        except BeltError as bad:
            first = bad.problems[0] if bad.problems else None
            where = f"belt.{first.path}" if first and first.path else "belt"
            more = f" (and {len(bad.problems) - 1} more problems)" if len(bad.problems) > 1 else ""
            raise ServerError(422, "invalid", f"{where}: {first.message if first else 'invalid'}{more}",
                              "belt") from None
    _check_size(len(belt.asteroids), len(belt.links), settings)
    return belt, belt_to_json(belt)


def _named(name: str, seed: int, settings: Settings) -> Belt:
    if name in shipped_names():
        return load_shipped(name)
    if name in GENERATED:
        from ..maps.generator import PRESETS, GeneratorError, generate_belt  # numpy and scipy: only when needed

        _check_size(PRESETS[name].size, 0, settings)
        try:
            return generate_belt(name, seed=seed)
        except GeneratorError as bad:
            raise ServerError(422, "invalid", f"belt: {bad}", "belt") from None
    known = ", ".join(sorted({*shipped_names(), *GENERATED}))
    raise ServerError(422, "invalid", f"belt: no belt or preset is called {name!r} (known: {known})", "belt")


def _count(section: object) -> int:
    """How many items a section of a belt document has (0 when it is not an array: the belt's check says why)."""
    return len(section) if isinstance(section, list) else 0


def _check_size(asteroids: int, links: int, settings: Settings) -> None:
    if asteroids > settings.max_belt_asteroids:
        raise ServerError(422, "belt_too_large", f"belt: {asteroids} asteroids is more than this server allows "
                          f"({settings.max_belt_asteroids})", "belt")
    if links > settings.max_belt_links:
        raise ServerError(422, "belt_too_large", f"belt: {links} links is more than this server allows "
                          f"({settings.max_belt_links})", "belt")
