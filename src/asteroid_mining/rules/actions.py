"""Actions (R11, R13, E2): small frozen records with a stable JSON form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import GameFormatError
from .records import field_names


class _ActionBase:
    """Shared behaviour of every action: its JSON form `{"type": name, "actor": …, …}`.

    Each class sets its name after its body: compiled by mypyc, a class variable declared in a dataclass's
    body would reach `dataclasses` as an ordinary field.
    """

    __slots__ = ()
    name: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        """The action as a JSON object."""
        out: dict[str, Any] = {"type": self.name}
        for name in field_names(type(self)):
            out[name] = getattr(self, name)
        return out


@dataclass(frozen=True, slots=True)
class Move(_ActionBase):
    """Fly to a neighbouring asteroid, or through an active gate orbiting the actor's asteroid."""

    actor: str
    target: str


Move.name = "move"


@dataclass(frozen=True, slots=True)
class Drill(_ActionBase):
    """Drill one layer of the mantle."""

    actor: str


Drill.name = "drill"


@dataclass(frozen=True, slots=True)
class Mine(_ActionBase):
    """Take the core's unit into the cargo hold (a UFO takes it into its hold)."""

    actor: str


Mine.name = "mine"


@dataclass(frozen=True, slots=True)
class Deposit(_ActionBase):
    """Put one unit of `kind` from the cargo into a shelter's hollow core."""

    actor: str
    kind: str


Deposit.name = "deposit"


@dataclass(frozen=True, slots=True)
class BuildRobot(_ActionBase):
    """Build a robot from 1 iron, 1 carbon and 1 uranium; `new_id` names it (else `robotN`)."""

    actor: str
    new_id: str | None = None


BuildRobot.name = "build_robot"


@dataclass(frozen=True, slots=True)
class BuildGates(_ActionBase):
    """Build a linked gate pair from 2 iron, 1 ice and 1 uranium; ids default to `gateN`."""

    actor: str
    first: str | None = None
    second: str | None = None


BuildGates.name = "build_gates"


@dataclass(frozen=True, slots=True)
class Place(_ActionBase):
    """Put a carried gate into orbit around the actor's asteroid."""

    actor: str
    gate: str


Place.name = "place"


@dataclass(frozen=True, slots=True)
class Wait(_ActionBase):
    """Do nothing this step."""

    actor: str


Wait.name = "wait"


Action = Move | Drill | Mine | Deposit | BuildRobot | BuildGates | Place | Wait
"""Any action."""

ACTION_TYPES: dict[str, type[Action]] = {
    cls.name: cls for cls in (Move, Drill, Mine, Deposit, BuildRobot, BuildGates, Place, Wait)
}
"""Action classes by their JSON `type`."""

_FIELDS: dict[str, tuple[tuple[str, bool], ...]] = {
    "move": (("target", True),),
    "drill": (),
    "mine": (),
    "deposit": (("kind", True),),
    "build_robot": (("new_id", False),),
    "build_gates": (("first", False), ("second", False)),
    "place": (("gate", True),),
    "wait": (),
}


def action_from_json(data: Any, path: str = "") -> Action:
    """Read an action from its JSON form; raises GameFormatError naming the JSON path of the problem."""
    where = f"{path}." if path else ""
    if not isinstance(data, dict):
        raise GameFormatError(path, "an action must be an object")
    kind = data.get("type")
    if kind not in ACTION_TYPES:
        raise GameFormatError(f"{where}type", f"unknown action type {kind!r}")
    actor = data.get("actor")
    if not isinstance(actor, str):
        raise GameFormatError(f"{where}actor", "must be a string")
    args: dict[str, str | None] = {}
    for field_name, required in _FIELDS[kind]:
        value = data.get(field_name)
        if value is None and not required:
            args[field_name] = None
        elif not isinstance(value, str):
            raise GameFormatError(f"{where}{field_name}", "must be a string")
        else:
            args[field_name] = value
    return ACTION_TYPES[kind](actor, **args)  # type: ignore[arg-type]
