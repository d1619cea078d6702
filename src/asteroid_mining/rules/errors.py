"""The engine's errors: refusals of actions, impossible set-ups and damaged saved games."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .refusals import ParamValue


class RefusalShape:
    """A refusal code with the names of its parameters in order: made once per shape (the rules keep theirs as
    constants; `shape_of` keeps the others), so that a refusal is its shape and a tuple of values, with no dict
    on the way."""

    def __init__(self, code: str, keys: tuple[str, ...]) -> None:
        self.code: Final = code
        self.keys: Final = keys
        self.text: object = None
        """The JSON text around the values, which the writer (`json_text`) makes on the first write and keeps
        here: nothing in the rules reads it."""


def shape_of(code: str, keys: tuple[str, ...]) -> RefusalShape:
    """The shape of a refusal `code` with parameters named `keys`, in that order (made once, then kept)."""
    found = _SHAPES.get((code, keys))
    if found is None:
        if len(_SHAPES) >= 4096:  # refusals made by hand may name anything: keep the cache bounded
            _SHAPES.clear()
        found = _SHAPES[(code, keys)] = RefusalShape(code, keys)
    return found


_SHAPES: Final[dict[tuple[str, tuple[str, ...]], RefusalShape]] = {}


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
