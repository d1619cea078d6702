"""`GameMeta`: what the server keeps about a game besides the engine's inputs — seats, timer, belt name, creator.

The store keeps it as an opaque JSON object (`GameRecord.meta`); this module is the one place that reads and
writes that object, so a key is named once and a damaged record is reported with the field at fault.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from .seats import Seat

RulesName = Literal["classic", "extended"]
RULES_NAMES: tuple[RulesName, ...] = ("classic", "extended")
"""The rules presets a game can be created with."""


class MetaError(ValueError):
    """A stored game's metadata that cannot be read; the message names the field (`seats[1].settlers`)."""


@dataclass(frozen=True, slots=True)
class StandInMeta:
    """A game's stand-in: the bot that plays a silent seat's turn, and after how many seconds."""

    bot: str
    after: float


@dataclass(frozen=True, slots=True)
class GameMeta:
    """The server's data about one game, written once when the game is created."""

    rules: RulesName
    """The rules preset the game was created with."""
    belt_name: str
    """The belt as the creator named it (a shipped belt or a preset), or the document's own name, or `custom`."""
    turn_seconds: float | None
    """How long a person's settler may take before the server plays `wait` for it; None: no timer."""
    client: str
    """The address that created the game (games per address are limited)."""
    seats: tuple[Seat, ...]
    """Who plays which settlers, in seat order."""
    lesson: str | None = None
    """The lesson or puzzle this game was started for (`POST /api/lessons/{id}/games`); such games are one
    person's practice, not listed in the lobby. None: an ordinary game."""
    stand_in: StandInMeta | None = None
    """The bot that plays a person's or program's turn once it has lasted `after` seconds; None: the turn waits
    (for `turn_seconds`, or for ever)."""

    def to_json(self) -> dict[str, Any]:
        """The metadata as stored (`GameRecord.meta`)."""
        return {"rules": self.rules, "belt_name": self.belt_name, "turn_seconds": self.turn_seconds,
                "client": self.client, "seats": [seat.to_meta() for seat in self.seats],
                **({"lesson": self.lesson} if self.lesson else {}),
                **({"stand_in": {"bot": self.stand_in.bot, "after": self.stand_in.after}} if self.stand_in else {})}

    def seats_public(self) -> list[dict[str, Any]]:
        """The seats as anyone may see them (no token hashes)."""
        return [seat.public() for seat in self.seats]

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> GameMeta:
        """The metadata from `to_json`'s object; MetaError naming the field when it is damaged.

        Games stored before a field existed get its default (`rules` classic, no timer, no name, no client).
        """
        if not isinstance(data, Mapping):
            raise MetaError("meta: expected an object")
        rules = data.get("rules", "classic")
        if rules not in RULES_NAMES:
            raise MetaError(f"meta.rules: expected one of {', '.join(RULES_NAMES)}, not {rules!r}")
        turn_seconds = data.get("turn_seconds")
        if turn_seconds is not None and (isinstance(turn_seconds, bool) or not isinstance(turn_seconds, int | float)
                                         or not turn_seconds > 0):
            raise MetaError(f"meta.turn_seconds: expected a positive number or null, not {turn_seconds!r}")
        lesson = data.get("lesson")
        if lesson is not None and (not isinstance(lesson, str) or not lesson):
            raise MetaError(f"meta.lesson: expected a lesson's id or null, not {lesson!r}")
        seats = data.get("seats")
        if not isinstance(seats, list):
            raise MetaError("meta.seats: expected a list")
        stand_in = _stand_in(data.get("stand_in"))
        return cls(
            rules=cast(RulesName, rules),
            belt_name=_text(data, "belt_name"),
            turn_seconds=None if turn_seconds is None else float(turn_seconds),
            client=_text(data, "client"),
            seats=tuple(_seat(seat, i) for i, seat in enumerate(seats)),
            lesson=lesson,
            stand_in=stand_in,
        )


def _stand_in(data: Any) -> StandInMeta | None:
    if data is None:
        return None
    bot, after = (data.get("bot"), data.get("after")) if isinstance(data, Mapping) else (None, None)
    if not isinstance(bot, str) or not bot:
        raise MetaError("meta.stand_in.bot: expected a bot's name")
    if isinstance(after, bool) or not isinstance(after, int | float) or not after > 0:
        raise MetaError(f"meta.stand_in.after: expected a positive number, not {after!r}")
    return StandInMeta(bot, float(after))


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise MetaError(f"meta.{key}: expected a string, not {value!r}")
    return value


def _seat(data: Any, index: int) -> Seat:
    where = f"meta.seats[{index}]"
    if not isinstance(data, Mapping):
        raise MetaError(f"{where}: expected an object")
    number, kind, settlers = data.get("seat"), data.get("kind"), data.get("settlers")
    token, bot, program = data.get("token", ""), data.get("bot"), data.get("program", False)
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise MetaError(f"{where}.seat: expected a seat number (1, 2, …), not {number!r}")
    if kind not in ("human", "bot"):
        raise MetaError(f"{where}.kind: expected human or bot, not {kind!r}")
    if not isinstance(settlers, list) or not all(isinstance(s, str) for s in settlers):
        raise MetaError(f"{where}.settlers: expected a list of settler ids")
    if not isinstance(token, str):
        raise MetaError(f"{where}.token: expected a string")
    if kind == "bot" and not isinstance(bot, str):
        raise MetaError(f"{where}.bot: a bot seat needs its bot's name")
    if not isinstance(program, bool):
        raise MetaError(f"{where}.program: expected true or false")
    return Seat(number, kind, tuple(settlers), token, bot if kind == "bot" else None, program)
