"""The belt of a new game, through `maps.resolve` (the one set-up path): the server's size limits, and the
resolver's errors as 422 answers naming the field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..maps import BeltError, belt_to_json
from ..maps.difficulty import difficulty_named
from ..maps.resolve import Resolved, ResolveError, belt_source
from .config import Settings
from .errors import ServerError


def checked_belt(spec: str | dict[str, Any], seed: int, settings: Settings,
                 difficulty: str | None = None) -> tuple[Resolved, dict[str, Any]]:
    """The belt a game is created on (with its recommended options) and its canonical JSON.

    ServerError 422 (field `belt` or `difficulty`) when unusable. A name is never taken for a file. Runs the
    generator for presets (CPU work: call it off the event loop).
    """
    if isinstance(spec, Mapping):  # counted before parsing: a huge document is refused without reading it
        _check_size(_count(spec.get("asteroids")), _count(spec.get("links")), settings, _count(spec.get("gates")))
    try:
        level = None if difficulty is None else difficulty_named(difficulty)
    except ResolveError as unknown:
        raise ServerError(422, "invalid", f"difficulty: {unknown}", "difficulty") from None
    try:
        source = belt_source(spec, level)
    except ResolveError as unknown:
        raise ServerError(422, "invalid", f"belt: {unknown}", "belt") from None
    except BeltError as bad:
        first = bad.problems[0] if bad.problems else None
        where = f"belt.{first.path}" if first and first.path else "belt"
        more = f" (and {len(bad.problems) - 1} more problems)" if len(bad.problems) > 1 else ""
        raise ServerError(422, "invalid", f"{where}: {first.message if first else 'invalid'}{more}",
                          "belt") from None
    _check_size(source.size, 0, settings)  # a preset's size, before generating it
    try:
        resolved = source(seed)
    except ValueError as bad:  # GeneratorError: parameters the generator cannot honour
        raise ServerError(422, "invalid", f"belt: {bad}", "belt") from None
    _check_size(len(resolved.belt.asteroids), len(resolved.belt.links), settings, len(resolved.belt.gates))
    return resolved, belt_to_json(resolved.belt)


def _count(section: object) -> int:
    """How many items a section of a belt document has (0 when it is not an array: the belt's check says why)."""
    return len(section) if isinstance(section, list) else 0


def _check_size(asteroids: int, links: int, settings: Settings, gates: int = 0) -> None:
    if asteroids > settings.max_belt_asteroids:
        raise ServerError(422, "belt_too_large", f"belt: {asteroids} asteroids is more than this server allows "
                          f"({settings.max_belt_asteroids})", "belt")
    if links > settings.max_belt_links:
        raise ServerError(422, "belt_too_large", f"belt: {links} links is more than this server allows "
                          f"({settings.max_belt_links})", "belt")
    if gates > settings.max_belt_gates:
        raise ServerError(422, "belt_too_large", f"belt: {gates} gate pairs is more than this server allows "
                          f"({settings.max_belt_gates})", "belt")
