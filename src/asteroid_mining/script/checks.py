"""`expect PATH OP VALUE`: reading paths from the game, reading values, comparing (SCENARIO.md, "Checks")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..rules import Game
from ..rules.materials import CORES, KINDS
from .lexer import ScriptError, a_kind, is_id

Typed = bool | int | str | None | frozenset[str]
"""A value as compared: a boolean, a number, a word, an id (None for `none`) or a set of ids."""


@dataclass(frozen=True, slots=True)
class Reading:
    """The value of a path, with its type: `bool`, `num`, `word` (one of `words`), `id` or `set`."""

    type: str
    value: Typed
    words: tuple[str, ...] = ()


def _bool(value: Any) -> Reading:
    return Reading("bool", bool(value))


def _num(value: Any) -> Reading:
    return Reading("num", int(value))


def _id(value: Any) -> Reading:
    return Reading("id", None if value is None else str(value))


def _set(value: Any) -> Reading:
    return Reading("set", frozenset(value))


def _word(value: str, words: tuple[str, ...]) -> Reading:
    return Reading("word", value, words)


_ASTEROID: dict[str, Callable[[Game, Any], Reading]] = {
    "exists": lambda g, a: _bool(a.exists),
    "mantle": lambda g, a: _num(a.mantle),
    "exposures": lambda g, a: _num(a.exposures),
    "core": lambda g, a: _word(a.core, CORES),
    "sun": lambda g, a: _word("near" if g.is_near(a.id) else "far", ("near", "far")),
    "shelter": lambda g, a: _bool(a.shelter),
    "surveyed": lambda g, a: _bool(a.surveyed),
    "neighbours": lambda g, a: _set(a.neighbours),
    "gates": lambda g, a: _set(a.gates),
    "settlers": lambda g, a: _set(a.settlers),
    "robots": lambda g, a: _set(a.robots),
    "ufos": lambda g, a: _set(a.ufos),
}


def _carry(kind: str) -> Callable[[Game, Any], Reading]:
    return lambda g, s: _num(s.cargo.get(kind, 0))


_MACHINE: dict[str, Callable[[Game, Any], Reading]] = {
    "alive": lambda g, s: _bool(s.alive),
    "at": lambda g, s: _id(s.at if s.alive else None),
}
_HOLDER: dict[str, Callable[[Game, Any], Reading]] = {
    **_MACHINE,
    "carry.total": lambda g, s: _num(sum(s.cargo.values())),
    **{f"carry.{k}": _carry(k) for k in KINDS},
}
_SETTLER: dict[str, Callable[[Game, Any], Reading]] = {**_HOLDER, "gates": lambda g, s: _set(s.gates)}
_GATE: dict[str, Callable[[Game, Any], Reading]] = {
    "exists": lambda g, x: _bool(x.exists),
    "at": lambda g, x: _id(x.at if x.exists else None),
    "active": lambda g, x: _bool(g.gate_active(x.id)),
    "haywire": lambda g, x: _bool(x.haywire),
    "carrier": lambda g, x: _id(x.carrier),
    "partner": lambda g, x: _id(x.partner),
}
_GAME: dict[str, Callable[[Game, Any], Reading]] = {
    "status": lambda g, _: _word(g.status, ("running", "won", "lost")),
    "round": lambda g, _: _num(g.round),
    "turn": lambda g, _: _id(g.turn),
    "winnable": lambda g, _: _bool(g.winnable),
}
_PATHS: dict[str, tuple[str, dict[str, Callable[[Game, Any], Reading]], str]] = {
    "asteroid": ("asteroids", _ASTEROID, "exists"),
    "settler": ("settlers", _SETTLER, "alive"),
    "robot": ("robots", _MACHINE, "alive"),
    "ufo": ("ufos", _HOLDER, "alive"),
    "gate": ("gates", _GATE, "exists"),
}
_ALWAYS = frozenset({"exists", "alive", "at"})
"""The fields that can be asked of a thing that no longer exists."""


def read_path(game: Game, path: tuple[str, ...], line: int | None = None) -> Reading:
    """The current value of `path` (cut at its dots); raises ScriptError for unknown or forbidden paths."""
    owner, name = path[0], ".".join(path[1:])
    if owner == "game":
        if name not in _GAME:
            raise ScriptError(f"unknown path game.{name} (known: {', '.join('game.' + k for k in _GAME)})", line)
        return _GAME[name](game, None)
    kind = game.kind_of(owner)
    if kind is None:
        raise ScriptError(f"unknown id {owner!r}", line)
    table_name, fields, live = _PATHS[kind]
    if name not in fields:
        known = ", ".join(f"{owner}.{k}" for k in fields)
        raise ScriptError(f"unknown path {owner}.{name} for {a_kind(kind)} (known: {known})", line)
    record = getattr(game, table_name)[owner]
    if name not in _ALWAYS and not getattr(record, live):
        gone = "exploded" if kind == "asteroid" else "been destroyed" if live == "exists" else "died"
        allowed = f"{owner}.{live}" if kind == "asteroid" else f"{owner}.{live} and {owner}.at"
        raise ScriptError(f"cannot ask {owner}.{name}: {kind} {owner} has {gone} (only {allowed} can be asked)", line)
    return fields[name](game, record)


def parse_value(game: Game, reading: Reading, text: str, line: int | None = None) -> Typed:
    """`text` read as a value of the same type as `reading`; raises ScriptError for a bad value."""
    if reading.type == "bool":
        if text not in ("true", "false"):
            raise ScriptError(f"expected true or false, not {text!r}", line)
        return text == "true"
    if reading.type == "num":
        digits = text[1:] if text.startswith("-") else text
        if not digits.isascii() or not digits.isdigit() or len(digits) > 18:
            shown = text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"
            most = " of at most 18 digits" if len(digits) > 18 else ""
            raise ScriptError(f"expected a number{most}, not {shown!r}", line)
        return int(text)
    if reading.type == "word":
        if text not in reading.words:
            raise ScriptError(f"expected one of {', '.join(reading.words)}, not {text!r}", line)
        return text
    if reading.type == "id":
        return None if text == "none" else _declared(game, text, line)
    if text == "none":
        return frozenset()
    return frozenset(_declared(game, word, line) for word in text.split(","))


def _declared(game: Game, word: str, line: int | None) -> str:
    if not is_id(word):
        raise ScriptError(f"expected an id, not {word!r}", line)
    if game.kind_of(word) is None:
        raise ScriptError(f"unknown id {word!r}", line)
    return word


def show_value(value: Typed) -> str:
    """A value written the way a script writes it (`true`, `3`, `B,C`, `none`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, frozenset):
        return ",".join(sorted(value)) if value else "none"
    return str(value)


def evaluate(game: Game, path: tuple[str, ...], op: str, text: str, line: int | None = None) -> tuple[bool, str]:
    """Whether `PATH OP VALUE` holds now, and the path's current value written as a script would."""
    reading = read_path(game, path, line)
    actual = reading.value
    if op == "in":
        if reading.type == "set":
            raise ScriptError(f"'in' cannot be used on {'.'.join(path)}, which is a set of ids", line)
        options = [parse_value(game, reading, word, line) for word in text.split(",")]
        return actual in options, show_value(actual)
    if op in ("<", "<=", ">", ">=") and reading.type != "num":
        raise ScriptError(f"{op!r} compares numbers only, and {'.'.join(path)} is not a number", line)
    if reading.type != "set" and "," in text:
        raise ScriptError(f"{'.'.join(path)} holds one value, not a list: {text!r} (use 'in' for a choice)", line)
    expected = parse_value(game, reading, text, line)
    return _compare(actual, op, expected), show_value(actual)


def _compare(actual: Typed, op: str, expected: Typed) -> bool:
    if op == "==":
        return actual == expected
    if op == "!=":
        return actual != expected
    assert isinstance(actual, int) and isinstance(expected, int)
    if op == "<":
        return actual < expected
    if op == "<=":
        return actual <= expected
    if op == ">":
        return actual > expected
    return actual >= expected
