"""The rule options of a new game: a preset, and options set one by one over it (RULES.md, Options)."""

from __future__ import annotations

from ..rules import OPTION_KEYS, OptionError, Options, preset
from .errors import ServerError

LIMITS = {"uranium_fuse": 100, "ufos": 100, "storm_warning": 100, "storm_interval": 10_000}
"""The largest value the server takes for each numeric option (more would only cost it memory or time)."""


def game_options(rules: str, overrides: dict[str, int | bool], recommended: Options | None = None) -> Options:
    """The preset `rules` (or the `recommended` options of the belt, `maps.resolve`) with `overrides`;
    ServerError 422 naming `options.KEY` for one it cannot take.

    Turns are always strict on the server (R9a): the server needs to know whose step it is.
    """
    options = recommended or preset(rules)
    for key, value in overrides.items():
        field = f"options.{key}"
        if key == "turns":
            raise ServerError(422, "invalid", "turns are always strict in a served game", field)
        if key not in OPTION_KEYS:
            known = ", ".join(k for k in OPTION_KEYS if k != "turns")
            raise ServerError(422, "invalid", f"unknown option {key!r} (known: {known})", field)
        if isinstance(value, int) and not isinstance(value, bool) and value > LIMITS.get(key, value):
            raise ServerError(422, "invalid", f"{key} may be at most {LIMITS[key]} on this server", field)
        text = ("on" if value else "off") if isinstance(value, bool) else str(value)
        try:
            options = options.with_value(key, text)
        except OptionError as bad:
            raise ServerError(422, "invalid", str(bad), field) from None
    return options
