"""`mine`: take the exposed core's unit into the cargo hold (R11); a UFO takes it into its hold (E2)."""

from __future__ import annotations

from dataclasses import dataclass

from ..effects import check_win, lose_core, touch
from ..errors import Refusal
from ..events import Event, Mined
from ..materials import CARGO_LIMIT
from ..state import Asteroid, GameState, Robot, Settler
from .base import Action, Actor, Rule


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
    actors = ("settler", "ufo")

    def refuse(self, state: GameState, actor: Actor, here: Asteroid, action: Mine) -> Refusal | None:
        """Needs the mantle drilled through, a core that is not hollow, and room in a settler's hold."""
        if here.mantle > 0:
            return Refusal("mantle_left", {"actor": actor.id, "asteroid": here.id, "mantle": here.mantle})
        if here.core == "hollow":
            return Refusal("core_hollow", {"actor": actor.id, "asteroid": here.id})
        if isinstance(actor, Settler) and actor.carry_total >= CARGO_LIMIT:
            return Refusal("cargo_full", {"actor": actor.id, "limit": CARGO_LIMIT})
        return None

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


    def legal(self, state: GameState, actor: Actor, here: Asteroid, out: list[Action]) -> None:
        """The mine on an exposed core that is not hollow, with room in a settler's hold."""
        if here.mantle == 0 and here.core != "hollow" and (
                not isinstance(actor, Settler) or actor.carry_total < CARGO_LIMIT):
            out.append(Mine(actor.id))


RULE = MineRule()
