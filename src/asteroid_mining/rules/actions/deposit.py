"""`deposit KIND`: put one unit from the cargo into a shelter's hollow core (R11); it may react at once (R6)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Final

from ..effects import fill_core, react, touch
from ..errors import Refusal, shape_of
from ..events import Deposited, Event
from ..materials import KINDS, MATERIALS
from ..state import Asteroid, GameState, Settler
from .base import Action, Actor, Rule

# the shapes of this module's refusals, made once: a refusal is its shape and its values (no dict on the way)
_NO_SUCH_MATERIAL: Final = shape_of("no_such_material", ("actor", "kind"))
_MANTLE_LEFT: Final = shape_of("mantle_left", ("actor", "asteroid", "mantle", "kind"))
_CORE_NOT_HOLLOW: Final = shape_of("core_not_hollow", ("actor", "asteroid", "core"))
_NOT_CARRIED: Final = shape_of("not_carried", ("actor", "kind"))


@dataclass(frozen=True, slots=True)
class Deposit(Action):
    """Put one unit of `kind` from the cargo into a shelter's hollow core."""

    kind: str

    def __init__(self, actor: str, kind: str) -> None:
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "kind", kind)


Deposit.name = "deposit"
Deposit.doc = "Put one unit of `kind` from the cargo into a shelter's hollow core."


class DepositRule(Rule[Deposit]):
    """Settlers only."""

    record = Deposit
    offered = 40
    key = "e"
    meanings: ClassVar[Mapping[str, str]] = {"kind": "a material: " + ", ".join(KINDS)}
    words: ClassVar[Mapping[str, tuple[str, str]]] = {"kind": ("KIND", "material")}

    def refuse(self, state: GameState, actor: Actor, here: Asteroid, action: Deposit) -> Refusal | None:
        """A material the settler carries, into the hollow core of a drilled-through asteroid."""
        assert isinstance(actor, Settler)
        kind = action.kind
        if kind not in MATERIALS:
            return Refusal(_NO_SUCH_MATERIAL, (actor.id, kind))
        if here.mantle > 0:
            return Refusal(_MANTLE_LEFT, (actor.id, here.id, here.mantle, kind))
        if here.core != "hollow":
            return Refusal(_CORE_NOT_HOLLOW, (actor.id, here.id, here.core))
        if actor.cargo[kind] == 0:
            return Refusal(_NOT_CARRIED, (actor.id, kind))
        return None

    def may_accept(self, state: GameState, actor: Actor, here: Asteroid) -> bool:
        """Only into the hollow core of a drilled-through asteroid, by a settler carrying something."""
        return here.mantle == 0 and here.core == "hollow" and isinstance(actor, Settler) and actor.carry_total > 0

    def perform(self, state: GameState, actor: Actor, here: Asteroid, action: Deposit, events: list[Event]) -> None:
        """The unit becomes the core; it may react at once (R6)."""
        assert isinstance(actor, Settler)
        actor.cargo[action.kind] -= 1
        state.cargo_units[action.kind] -= 1
        touch(state, actor.id)
        fill_core(state, here, action.kind)
        events.append(Deposited(actor.id, here.id, action.kind))
        react(state, here, events)

    def candidates(self, state: GameState, actor: Actor, here: Asteroid | None) -> list[Deposit]:
        """One per material, in the canonical order."""
        aid = actor.id
        return [Deposit(aid, kind) for kind in KINDS]


RULE = DepositRule()
