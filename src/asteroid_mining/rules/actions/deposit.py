"""`deposit KIND`: put one unit from the cargo into a shelter's hollow core (R11); it may react at once (R6)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Final

from ..effects import fill_core, react, touch
from ..errors import Refusal
from ..events import Deposited, Event
from ..json_text import quoted_between
from ..materials import KINDS, MATERIALS
from ..state import Asteroid, GameState, Settler
from .base import Action, Actor, Rule


@dataclass(frozen=True, slots=True)
class Deposit(Action):
    """Put one unit of `kind` from the cargo into a shelter's hollow core."""

    kind: str

    def __init__(self, actor: str, kind: str) -> None:
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "kind", kind)

    def write_args(self, out: list[str]) -> None:
        """`Action.write_args`, written out."""
        out.append(quoted_between(_ARGS, self.kind, ',"kind":', ""))


_ARGS: Final[dict[str, str]] = {}
"""The argument as JSON text, by value: `,"kind":"…"`."""

Deposit.name = "deposit"
Deposit.doc = "Put one unit of `kind` from the cargo into a shelter's hollow core."


class DepositRule(Rule[Deposit]):
    """Settlers only."""

    record = Deposit
    meanings: ClassVar[Mapping[str, str]] = {"kind": "a material: " + ", ".join(KINDS)}
    words: ClassVar[Mapping[str, tuple[str, str]]] = {"kind": ("KIND", "material")}

    def refuse(self, state: GameState, actor: Actor, here: Asteroid, action: Deposit) -> Refusal | None:
        """A material the settler carries, into the hollow core of a drilled-through asteroid."""
        assert isinstance(actor, Settler)
        kind = action.kind
        if kind not in MATERIALS:
            return Refusal("no_such_material", {"actor": actor.id, "kind": kind})
        if here.mantle > 0:
            return Refusal("mantle_left", {"actor": actor.id, "asteroid": here.id, "mantle": here.mantle,
                                           "kind": kind})
        if here.core != "hollow":
            return Refusal("core_not_hollow", {"actor": actor.id, "asteroid": here.id, "core": here.core})
        if actor.cargo[kind] == 0:
            return Refusal("not_carried", {"actor": actor.id, "kind": kind})
        return None

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


    def legal(self, state: GameState, actor: Actor, here: Asteroid, out: list[Action]) -> None:
        """A deposit of each material the settler carries, on a shelter."""
        if here.mantle > 0 or here.core != "hollow" or not isinstance(actor, Settler):
            return
        cargo = actor.cargo
        for kind in KINDS:
            if cargo[kind] > 0:
                out.append(Deposit(actor.id, kind))


RULE = DepositRule()
