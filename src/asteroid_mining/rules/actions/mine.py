"""`mine`: take the exposed core's unit into the cargo hold (R11); a UFO takes it into its hold (E2)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..effects import check_win, lose_core, touch
from ..errors import Refusal, shape_of
from ..events import Event, Mined
from ..materials import CARGO_LIMIT
from ..state import Asteroid, GameState, Robot, Settler
from .base import Action, Actor, Rule

# the shapes of this module's refusals, made once: a refusal is its shape and its values (no dict on the way)
_MANTLE_LEFT: Final = shape_of("mantle_left", ("actor", "asteroid", "mantle"))
_CORE_HOLLOW: Final = shape_of("core_hollow", ("actor", "asteroid"))
_CARGO_FULL: Final = shape_of("cargo_full", ("actor", "limit"))


@dataclass(frozen=True, slots=True)
class Mine(Action):
    """Take the core's unit into the cargo hold (a UFO takes it into its hold)."""

    def __init__(self, actor: str) -> None:
        object.__setattr__(self, "actor", actor)


Mine.name = "mine"
Mine.doc = "Take the core's unit into the cargo hold (a UFO takes it into its hold)."


class MineRule(Rule[Mine]):
    """Settlers mine up to the cargo limit; UFOs' holds have none; robots carry nothing."""

    record = Mine
    offered = 30
    key = "m"
    actors = ("settler", "ufo")

    def refuse(self, state: GameState, actor: Actor, here: Asteroid, action: Mine) -> Refusal | None:
        """Needs the mantle drilled through, a core that is not hollow, and room in a settler's hold."""
        if here.mantle > 0:
            return Refusal(_MANTLE_LEFT, (actor.id, here.id, here.mantle))
        if here.core == "hollow":
            return Refusal(_CORE_HOLLOW, (actor.id, here.id))
        if isinstance(actor, Settler) and actor.carry_total >= CARGO_LIMIT:
            return Refusal(_CARGO_FULL, (actor.id, CARGO_LIMIT))
        return None

    def may_accept(self, state: GameState, actor: Actor, here: Asteroid) -> bool:
        """Only on an exposed core that is not hollow."""
        return here.mantle == 0 and here.core != "hollow"

    def perform(self, state: GameState, actor: Actor, here: Asteroid, action: Mine, events: list[Event]) -> None:
        """The unit goes to the hold and the core is hollow; a settler may complete a win (R14)."""
        assert not isinstance(actor, Robot)
        kind = lose_core(state, here)
        actor.cargo[kind] += 1
        touch(state, actor.id)
        events.append(Mined(actor.id, here.id, kind))
        if isinstance(actor, Settler):
            state.cargo_units[kind] += 1
            check_win(state, here, events)

    def candidates(self, state: GameState, actor: Actor, here: Asteroid | None) -> list[Mine]:
        """The one mine."""
        return [Mine(actor.id)]


RULE = MineRule()
