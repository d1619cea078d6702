"""The engine's errors: refusals of actions, impossible set-ups and damaged saved games."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .json_text import integer, quote
from .refusals import ParamValue


class RefusalShape:
    """A refusal code with the names of its parameters in order, and the JSON text around their values.

    Made once per shape (the rules keep theirs as constants; `shape_of` keeps the others), so that writing a
    refusal as JSON text is its values between pieces made beforehand: the server writes a settler's refusals
    after every action.
    """

    def __init__(self, code: str, keys: tuple[str, ...]) -> None:
        self.code: Final = code
        self.keys: Final = keys
        head = '{"code":' + quote(code) + ',"params":{' + (quote(keys[0]) + ":" if keys else "")
        self.head: Final = head
        """`{"code":CODE,"params":{` and the first key with its colon: what opens the refusal's JSON text."""
        self.choice_head: Final = ',"refusal":' + head
        """What opens a choice's refusal, after its action: `,"refusal":` and `head`."""
        self.openers: Final = ("", *("," + quote(key) + ":" for key in keys[1:]))
        """What comes before each value but the first: its comma, key and colon."""
        self.choice_texts: Final[dict[tuple[ParamValue, ...], str]] = {}
        """`Refusal.choice_text` by the values, once written."""


def shape_of(code: str, keys: tuple[str, ...]) -> RefusalShape:
    """The shape of a refusal `code` with parameters named `keys`, in that order (made once, then kept)."""
    found = _SHAPES.get((code, keys))
    if found is None:
        if len(_SHAPES) >= 4096:  # refusals made by hand may name anything: keep the cache bounded
            _SHAPES.clear()
        found = _SHAPES[(code, keys)] = RefusalShape(code, keys)
    return found


_SHAPES: Final[dict[tuple[str, tuple[str, ...]], RefusalShape]] = {}
_TEXTS_LIMIT: Final = 1024
"""Beyond this many texts a shape's `choice_texts` start afresh: a long-running server sees many games' ids."""


class Refusal:
    """Why the rules refuse an action: a stable machine `code` and the values its sentence needs (`params`).

    The codes and their parameters are listed in `REFUSAL_KINDS` (and docs/engine.md); the engine words no
    refusal (a reader words it from these, `asteroid_mining.texts.refusal_text`). Made either from a code and a
    mapping of parameters, or (the rules' way, with no dict on the way) from a `RefusalShape` and a tuple of the
    values in its order.
    Compared and hashed by code and parameters, whatever their order; nothing changes one once made.
    """

    shape: Final[RefusalShape]
    values: Final[tuple[ParamValue, ...]]
    """The parameters' values, in the order of `shape.keys`."""

    def __init__(self, code: str | RefusalShape, params: Mapping[str, ParamValue] | tuple[ParamValue, ...] | None
                 = None) -> None:
        if isinstance(code, RefusalShape):
            assert isinstance(params, tuple) and len(params) == len(code.keys), "a shape's values, in order"
            shape, values = code, params
        else:
            assert not isinstance(params, tuple), "a refusal made from a code takes its params as a mapping"
            items = params or {}
            shape, values = shape_of(code, tuple(items)), tuple(items.values())
        self.shape = shape
        self.values = values

    @property
    def code(self) -> str:
        """The refusal's machine code."""
        return self.shape.code

    @property
    def params(self) -> dict[str, ParamValue]:
        """The values its sentence needs, by name (a new dict each time)."""
        return dict(zip(self.shape.keys, self.values, strict=True))

    def to_json(self) -> dict[str, Any]:
        """The refusal as a JSON object: `{"code", "params"}`."""
        return {"code": self.code, "params": self.params}

    def to_text(self) -> str:
        """`to_json()` as compact JSON text (as orjson writes it)."""
        out: list[str] = []
        self.write(out)
        return "".join(out)

    def write(self, out: list[str]) -> None:
        """Append `to_text()` to `out`, in pieces."""
        out.append(self.shape.head)
        self.write_values(out)
        out.append("}}")

    def choice_text(self) -> str:
        """`,"refusal":`, the refusal's JSON text and the `}` that closes a choice without a danger: how a refused
        choice's JSON text ends (`write_choice`). Kept by the shape once written: a settler's refusals come back
        after every action (its cargo is short of a robot's every time, its asteroid's mantle is still there)."""
        shape = self.shape
        texts = shape.choice_texts
        found = texts.get(self.values)
        if found is None:
            out = [shape.choice_head]
            plain = self.write_values(out)
            out.append("}}}")
            found = "".join(out)
            if plain:  # a value True would be found under 1 (they are equal): such a one is not kept
                if len(texts) >= _TEXTS_LIMIT:
                    texts.clear()
                texts[self.values] = found
        return found

    def write_values(self, out: list[str]) -> bool:
        """Append the values of the params with the keys but the first (which the shape's heads end with);
        False when a value is a boolean."""
        openers = self.shape.openers
        values = self.values
        plain = True
        for i in range(len(values)):
            if i:
                out.append(openers[i])
            value = values[i]
            if isinstance(value, str):
                out.append(quote(value))
            elif isinstance(value, bool):  # True == 1: written as JSON's true, as orjson writes it
                out.append("true" if value else "false")
                plain = False
            else:
                out.append(integer(value))
        return plain

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Refusal):
            return NotImplemented
        if self.shape.keys == other.shape.keys:
            return self.shape.code == other.shape.code and self.values == other.values
        return self.shape.code == other.shape.code and self.params == other.params

    def __hash__(self) -> int:
        return hash((self.shape.code, frozenset(zip(self.shape.keys, self.values, strict=True))))

    def __repr__(self) -> str:
        return f"Refusal({self.code!r}, {self.params!r})"


class RulesError(Exception):
    """The root of the engine's exceptions."""


class Refused(RulesError):
    """Raised by `Game.apply` when the rules refuse an action; the game is unchanged (R9, R11).

    Its text is the refusal's code and parameters (for logs); a player reads `texts.refusal_text` of them."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(f"refused: {refusal.code} {refusal.params}")
        self.refusal = refusal

    @property
    def code(self) -> str:
        """The refusal's machine code."""
        return self.refusal.code


class SetupError(RulesError):
    """An impossible set-up (an id taken, an unknown or exploded asteroid, cargo over the limit, …).

    The game is unchanged when it is raised. The message is a sentence for people.
    """


class GameFormatError(RulesError):
    """A saved game that cannot be read: damaged, of another format, or of a future version.

    `path` names the place in the JSON document (`asteroids[3].mantle`), `reason` says what is wrong.
    """

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason
