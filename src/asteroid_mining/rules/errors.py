"""The engine's errors: refusals of actions, impossible set-ups and damaged saved games."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why the rules refuse an action: a stable machine `code` and a `message` a player understands."""

    code: str
    message: str

    def to_json(self) -> dict[str, str]:
        """The refusal as a JSON object."""
        return {"code": self.code, "message": self.message}


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
