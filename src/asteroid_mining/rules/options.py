"""Rule options, the two presets and their parsing (RULES.md, "Options")."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Literal

TurnMode = Literal["strict", "free"]


class OptionError(ValueError):
    """An unknown option key or a value it cannot take; the message is a sentence for people."""


@dataclass(frozen=True, slots=True)
class Options:
    """Every rule option of RULES.md. Games default to strict turns, scripts to free ones."""

    uranium_fuse: int = 1
    ufos: int = 0
    haywire_gates: bool = False
    storm_warning: int = 2
    storm_interval: int = 10
    turns: TurnMode = "strict"

    def with_value(self, key: str, value: str) -> Options:
        """A copy with option `key` set from its textual `value`; raises OptionError."""
        changes: dict[str, Any] = {key: parse_option(key, value)}
        return replace(self, **changes)

    def with_preset(self, name: str) -> Options:
        """A copy with every option of preset `name` set, keeping `turns` (not part of a preset)."""
        base = preset(name)
        return replace(base, turns=self.turns)

    def to_json(self) -> dict[str, Any]:
        """The options as a JSON object."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Options:
        """Options from `to_json`'s form; unknown keys or bad values raise OptionError."""
        if not isinstance(data, dict):
            raise OptionError("options must be an object")
        opts = cls()
        for key, value in data.items():
            text = ("on" if value else "off") if isinstance(value, bool) else str(value)
            opts = opts.with_value(key, text)
        return opts


OPTION_KEYS: tuple[str, ...] = tuple(f.name for f in fields(Options))
"""The keys of the options table, in its order."""

CLASSIC = Options()
"""The rules of the original specification (the default)."""
EXTENDED = Options(uranium_fuse=3, ufos=2, haywire_gates=True)
"""Classic plus E1–E3."""
PRESETS: dict[str, Options] = {"classic": CLASSIC, "extended": EXTENDED}
"""Presets by name."""


def preset(name: str) -> Options:
    """The preset called `name` (`classic` or `extended`); raises OptionError otherwise."""
    try:
        return PRESETS[name]
    except KeyError:
        raise OptionError(f"unknown rules preset {name!r} (expected classic or extended)") from None


def _whole(key: str, value: str, minimum: int) -> int:
    # ASCII digits only (`isdigit` takes `٣` and `²`), and few enough of them for `int` to convert quickly
    if not value.isascii() or not value.isdigit() or len(value) > 18 or int(value) < minimum:
        shown = value if len(value) <= 40 else f"{value[:20]}... ({len(value)} characters)"
        raise OptionError(f"{key} must be a whole number of at least {minimum}, not {shown!r}")
    return int(value)


def parse_option(key: str, value: str) -> int | bool | str:
    """The typed value of option `key` written as `value`; raises OptionError naming the problem."""
    if key in ("uranium_fuse",):
        return _whole(key, value, 1)
    if key in ("ufos", "storm_warning", "storm_interval"):
        return _whole(key, value, 0)
    if key == "haywire_gates":
        if value not in ("on", "off"):
            raise OptionError(f"haywire_gates must be on or off, not {value!r}")
        return value == "on"
    if key == "turns":
        if value not in ("strict", "free"):
            raise OptionError(f"turns must be strict or free, not {value!r}")
        return value
    raise OptionError(f"unknown option {key!r} (known: {', '.join(OPTION_KEYS)})")
