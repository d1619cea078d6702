"""`build gates [G1 G2]`: a linked gate pair from 2 iron, 1 ice and 1 uranium, carried by the settler (R11)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Final

from ..effects import touch
from ..errors import Refusal, shape_of
from ..events import Event, GatesBuilt
from ..materials import GATES_COST
from ..state import Asteroid, GameState, Gate, Settler
from .base import Action, Actor, Rule
from .costs import affords, missing, needs_of, new_id_refusal, pay

_NEEDS: Final = needs_of(GATES_COST)
"""A pair of gates' cost by kind, as `missing` takes it."""

# the shapes of this module's refusals, made once: a refusal is its shape and its values (no dict on the way)
_CARRIES_GATES: Final = shape_of("carries_gates", ("actor", "gates"))
_BAD_ID: Final = shape_of("bad_id", ("actor", "problem"))
_BAD_ID_ID: Final = shape_of("bad_id", ("actor", "problem", "id"))


@dataclass(frozen=True, slots=True)
class BuildGates(Action):
    """Build a linked gate pair from 2 iron, 1 ice and 1 uranium; ids default to `gateN`."""

    first: str | None = None
    second: str | None = None

    def __init__(self, actor: str, first: str | None = None, second: str | None = None) -> None:
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "first", first)
        object.__setattr__(self, "second", second)


BuildGates.name = "build_gates"
BuildGates.doc = "Build a linked gate pair from 2 iron, 1 ice and 1 uranium; ids default to `gateN`."


class BuildGatesRule(Rule[BuildGates]):
    """Settlers only, one pair at a time."""

    record = BuildGates
    offered = 60
    key = "g"
    meanings: ClassVar[Mapping[str, str]] = {
        "first": "the first gate's id (give both ids or neither)", "second": "the second gate's id",
    }
    words: ClassVar[Mapping[str, tuple[str, str]]] = {"first": ("G1", "new"), "second": ("G2", "new")}

    def refuse(self, state: GameState, actor: Actor, here: Asteroid, action: BuildGates) -> Refusal | None:
        """Not while carrying gates; needs the materials; both ids or neither, different, free, valid."""
        assert isinstance(actor, Settler)
        if actor.gates:
            return Refusal(_CARRIES_GATES, (actor.id, len(actor.gates)))
        refusal = missing(actor, _NEEDS, "gates")
        if refusal:
            return refusal
        if (action.first is None) != (action.second is None):
            return Refusal(_BAD_ID, (actor.id, "unpaired"))
        if action.first is not None and action.first == action.second:
            return Refusal(_BAD_ID_ID, (actor.id, "same", action.first))
        return new_id_refusal(state, actor, action.first) or new_id_refusal(state, actor, action.second)

    def may_accept(self, state: GameState, actor: Actor, here: Asteroid) -> bool:
        """Only by a settler carrying no gates whose cargo pays for a pair."""
        return isinstance(actor, Settler) and not actor.gates and affords(actor, _NEEDS)

    def perform(self, state: GameState, actor: Actor, here: Asteroid, action: BuildGates,
                events: list[Event]) -> None:
        """Pay, and the settler carries the new pair."""
        assert isinstance(actor, Settler)
        pay(state, actor, GATES_COST)
        if action.first is None or action.second is None:
            first, second = state.fresh_ids("gate", 2)
        else:
            first, second = action.first, action.second
        for gid, partner in ((first, second), (second, first)):
            gate = Gate(gid, state.next_index(), partner, carrier=actor.id)
            state.gates[gid] = gate
            state.things[gid] = gate
            actor.gates.append(gid)
            touch(state, gid)
        touch(state, actor.id)
        events.append(GatesBuilt(actor.id, first, second))

    def candidates(self, state: GameState, actor: Actor, here: Asteroid | None) -> list[BuildGates]:
        """The one build, with the default ids."""
        return [BuildGates(actor.id)]


RULE = BuildGatesRule()
