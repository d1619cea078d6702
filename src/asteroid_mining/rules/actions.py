"""Actions (R11, R13, E2): small frozen records with a stable JSON form."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import GameFormatError


@dataclass(frozen=True, slots=True)
class Move:
    """Fly to a neighbouring asteroid, or through an active gate orbiting the actor's asteroid."""

    actor: str
    target: str
    name: ClassVar[str] = "move"

    def to_json(self) -> dict[str, Any]:
        """The action as JSON."""
        return {"type": self.name, "actor": self.actor, "target": self.target}


@dataclass(frozen=True, slots=True)
class Drill:
    """Drill one layer of the mantle."""

    actor: str
    name: ClassVar[str] = "drill"

    def to_json(self) -> dict[str, Any]:
        """The action as JSON."""
        return {"type": self.name, "actor": self.actor}


@dataclass(frozen=True, slots=True)
class Mine:
    """Take the core's unit into the cargo hold (a UFO takes it into its hold)."""

    actor: str
    name: ClassVar[str] = "mine"

    def to_json(self) -> dict[str, Any]:
        """The action as JSON."""
        return {"type": self.name, "actor": self.actor}


@dataclass(frozen=True, slots=True)
class Deposit:
    """Put one unit of `kind` from the cargo into a shelter's hollow core."""

    actor: str
    kind: str
    name: ClassVar[str] = "deposit"

    def to_json(self) -> dict[str, Any]:
        """The action as JSON."""
        return {"type": self.name, "actor": self.actor, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class BuildRobot:
    """Build a robot from 1 iron, 1 carbon and 1 uranium; `new_id` names it (else `robotN`)."""

    actor: str
    new_id: str | None = None
    name: ClassVar[str] = "build_robot"

    def to_json(self) -> dict[str, Any]:
        """The action as JSON."""
        return {"type": self.name, "actor": self.actor, "new_id": self.new_id}


@dataclass(frozen=True, slots=True)
class BuildGates:
    """Build a linked gate pair from 2 iron, 1 ice and 1 uranium; ids default to `gateN`."""

    actor: str
    first: str | None = None
    second: str | None = None
    name: ClassVar[str] = "build_gates"

    def to_json(self) -> dict[str, Any]:
        """The action as JSON."""
        return {"type": self.name, "actor": self.actor, "first": self.first, "second": self.second}


@dataclass(frozen=True, slots=True)
class Place:
    """Put a carried gate into orbit around the actor's asteroid."""

    actor: str
    gate: str
    name: ClassVar[str] = "place"

    def to_json(self) -> dict[str, Any]:
        """The action as JSON."""
        return {"type": self.name, "actor": self.actor, "gate": self.gate}


@dataclass(frozen=True, slots=True)
class Wait:
    """Do nothing this step."""

    actor: str
    name: ClassVar[str] = "wait"

    def to_json(self) -> dict[str, Any]:
        """The action as JSON."""
        return {"type": self.name, "actor": self.actor}


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
