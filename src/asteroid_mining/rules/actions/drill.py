"""`drill`: drill one layer of the mantle (R11, R13); the last layer may set off a reaction (R6)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..dangers import Danger, drill_danger
from ..effects import react, touch
from ..errors import Refusal, shape_of
from ..events import Drilled, Event
from ..state import Asteroid, GameState
from .base import Action, Actor, Rule

# the shapes of this module's refusals, made once: a refusal is its shape and its values (no dict on the way)
_DRILLED_THROUGH: Final = shape_of("drilled_through", ("actor", "asteroid"))


@dataclass(frozen=True, slots=True)
class Drill(Action):
    """Drill one layer of the mantle."""

    def __init__(self, actor: str) -> None:
        object.__setattr__(self, "actor", actor)


Drill.name = "drill"
Drill.doc = "Drill one layer of the mantle."


class DrillRule(Rule[Drill]):
    """Settlers and robots drill; UFOs never do (E2)."""

    record = Drill
    offered = 20
    key = "d"
    actors = ("settler", "robot")

    def refuse(self, state: GameState, actor: Actor, here: Asteroid, action: Drill) -> Refusal | None:
        """Needs mantle > 0."""
        if here.mantle == 0:
            return Refusal(_DRILLED_THROUGH, (actor.id, here.id))
        return None

    def may_accept(self, state: GameState, actor: Actor, here: Asteroid) -> bool:
        """Only with mantle left."""
        return here.mantle > 0

    def perform(self, state: GameState, actor: Actor, here: Asteroid, action: Drill, events: list[Event]) -> None:
        """One layer less; the last one surveys the core and may set off a reaction (R6)."""
        here.mantle -= 1
        touch(state, here.id)
        events.append(Drilled(actor.id, here.id, here.mantle + 1, here.mantle))
        if here.mantle == 0:
            here.surveyed = True
            react(state, here, events)

    def candidates(self, state: GameState, actor: Actor, here: Asteroid | None) -> list[Drill]:
        """The one drill."""
        return [Drill(actor.id)]

    def danger(self, state: GameState, actor: Actor, here: Asteroid | None) -> Danger | None:
        """The last layer of a known reactive core near the Sun now or later (`dangers.drill_danger`)."""
        return None if here is None else drill_danger(state, here)


RULE = DrillRule()
