"""The engine's errors: refusals of actions, impossible set-ups and damaged saved games."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from .json_text import quoted_between, write_flat_object
from .refusals import ParamValue, render


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why the rules refuse an action: a stable machine `code` and the values its sentence needs (`params`).

    The codes and their parameters are listed in `REFUSAL_KINDS` (and docs/engine.md); `message` is the
    English sentence rendered from them, for people.
    """

    code: str
    params: dict[str, ParamValue] = field(default_factory=dict)

    def __init__(self, code: str, params: Mapping[str, ParamValue] | None = None) -> None:
        # written out (see `events`): the compiled engine then builds refusals without interpreted code
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "params", {} if params is None else params if isinstance(params, dict)
                           else dict(params))

    @property
    def message(self) -> str:
        """The refusal as an English sentence a player understands."""
        return _sentence(self.code, tuple(self.params.items()))

    def to_json(self, message: bool = True) -> dict[str, Any]:
        """The refusal as a JSON object: `{"code", "params", "message"}`; without `message` when not `message`
        (for a reader that words refusals itself, from the code and params)."""
        if not message:
            return {"code": self.code, "params": dict(self.params)}
        return {"code": self.code, "params": dict(self.params), "message": self.message}

    def to_text(self) -> str:
        """`to_json(message=False)` as compact JSON text (as orjson writes it)."""
        out: list[str] = []
        self.write(out)
        return "".join(out)

    def write(self, out: list[str]) -> None:
        """Append `to_text()` to `out`, in pieces."""
        out.append(quoted_between(_HEADS, self.code, '{"code":', ',"params":'))
        write_flat_object(self.params, out)
        out.append("}")

    def __hash__(self) -> int:
        return hash((self.code, frozenset(self.params.items())))


_HEADS: Final[dict[str, str]] = {}
"""What opens a refusal's JSON text, by code: `{"code":"dead","params":`."""


@lru_cache(maxsize=4096)
def _sentence(code: str, params: tuple[tuple[str, ParamValue], ...]) -> str:
    """`render`, remembered: `Game.choices` offers the same few refusals over and over (every entry of a settler
    whose turn it is not has the same one), and rendering a template is most of the cost of its JSON."""
    return render(code, dict(params))


class RulesError(Exception):
    """The root of the engine's exceptions."""


class Refused(RulesError):
    """Raised by `Game.apply` when the rules refuse an action; the game is unchanged (R9, R11)."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.message)
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
