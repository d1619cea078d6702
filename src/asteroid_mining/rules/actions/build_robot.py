"""`build robot [NEWID]`: a robot from 1 iron, 1 carbon and 1 uranium, on the settler's asteroid (R11, R13)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Final

from ..effects import place_actor, touch
from ..errors import Refusal
from ..events import Event, RobotBuilt
from ..materials import ROBOT_COST
from ..state import Asteroid, GameState, Robot, Settler
from .base import Action, Actor, Rule
from .costs import affords, missing, needs_of, new_id_refusal, pay

_NEEDS: Final = needs_of(ROBOT_COST)
"""A robot's cost by kind, as `missing` takes it."""


@dataclass(frozen=True, slots=True)
class BuildRobot(Action):
    """Build a robot from 1 iron, 1 carbon and 1 uranium; `new_id` names it (else `robotN`)."""

    new_id: str | None = None

    def __init__(self, actor: str, new_id: str | None = None) -> None:
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "new_id", new_id)


BuildRobot.name = "build_robot"
BuildRobot.doc = "Build a robot from 1 iron, 1 carbon and 1 uranium; `new_id` names it (else `robotN`)."


class BuildRobotRule(Rule[BuildRobot]):
    """Settlers only; the robot is AI-controlled (R13)."""

    record = BuildRobot
    offered = 50
    key = "b"
    meanings: ClassVar[Mapping[str, str]] = {"new_id": "the new robot's id (default: the lowest free robotN)"}
    words: ClassVar[Mapping[str, tuple[str, str]]] = {"new_id": ("NEWID", "new")}

    def refuse(self, state: GameState, actor: Actor, here: Asteroid, action: BuildRobot) -> Refusal | None:
        """Needs the materials; a chosen id must be free and valid."""
        assert isinstance(actor, Settler)
        return missing(actor, _NEEDS, "robot") or new_id_refusal(state, actor, action.new_id)

    def may_accept(self, state: GameState, actor: Actor, here: Asteroid) -> bool:
        """Only when the cargo pays for it."""
        return isinstance(actor, Settler) and affords(actor, _NEEDS)

    def perform(self, state: GameState, actor: Actor, here: Asteroid, action: BuildRobot,
                events: list[Event]) -> None:
        """Pay, and a new AI robot stands on the settler's asteroid."""
        assert isinstance(actor, Settler)
        pay(state, actor, ROBOT_COST)
        rid = action.new_id or state.fresh_ids("robot", 1)[0]
        robot = Robot(rid, state.next_index(), None)
        state.robots[rid] = robot
        state.things[rid] = robot
        place_actor(state, robot, here)
        touch(state, actor.id)
        events.append(RobotBuilt(actor.id, rid, here.id))

    def candidates(self, state: GameState, actor: Actor, here: Asteroid | None) -> list[BuildRobot]:
        """The one build, with the default id."""
        return [BuildRobot(actor.id)]


RULE = BuildRobotRule()
