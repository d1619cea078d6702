"""`wait`: do nothing this step (R11)."""

from __future__ import annotations

from dataclasses import dataclass

from ..events import Event, Waited
from ..state import Asteroid, GameState
from .base import Action, Actor, Rule


@dataclass(frozen=True, slots=True)
class Wait(Action):
    """Do nothing this step."""

    def __init__(self, actor: str) -> None:
        object.__setattr__(self, "actor", actor)


Wait.name = "wait"
Wait.doc = "Do nothing this step."


class WaitRule(Rule[Wait]):
    """Anyone may wait."""

    record = Wait
    offered = 80
    key = "w"
    actors = ("settler", "robot", "ufo")

    def perform(self, state: GameState, actor: Actor, here: Asteroid, action: Wait, events: list[Event]) -> None:
        """Nothing happens but the event."""
        events.append(Waited(actor.id))

    def candidates(self, state: GameState, actor: Actor, here: Asteroid | None) -> list[Wait]:
        """The one wait."""
        return [Wait(actor.id)]


RULE = WaitRule()
