"""`place G`: put a carried gate into orbit around the settler's asteroid (R11)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Final

from ..effects import attach_gate, touch
from ..errors import Refusal, shape_of
from ..events import Event, GatePlaced
from ..state import Asteroid, GameState, Settler
from .base import Action, Actor, Rule

# the shapes of this module's refusals, made once: a refusal is its shape and its values (no dict on the way)
_GATE_NOT_CARRIED: Final = shape_of("gate_not_carried", ("actor", "gate"))
_PARTNER_HERE: Final = shape_of("partner_here", ("actor", "gate", "partner", "asteroid"))


@dataclass(frozen=True, slots=True)
class Place(Action):
    """Put a carried gate into orbit around the actor's asteroid."""

    gate: str

    def __init__(self, actor: str, gate: str) -> None:
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "gate", gate)


Place.name = "place"
Place.doc = "Put a carried gate into orbit around the actor's asteroid."


class PlaceRule(Rule[Place]):
    """Settlers only; the pair is active once both gates are placed."""

    record = Place
    offered = 70
    key = "p"
    meanings: ClassVar[Mapping[str, str]] = {"gate": "a gate the settler carries"}
    words: ClassVar[Mapping[str, tuple[str, str]]] = {"gate": ("GATE", "thing")}

    def refuse(self, state: GameState, actor: Actor, here: Asteroid, action: Place) -> Refusal | None:
        """A gate the settler carries, whose partner does not already orbit this asteroid."""
        assert isinstance(actor, Settler)
        if action.gate not in actor.gates:
            return Refusal(_GATE_NOT_CARRIED, (actor.id, action.gate))
        partner = state.gates[state.gates[action.gate].partner]
        if partner.at == here.id:
            return Refusal(_PARTNER_HERE, (actor.id, action.gate, partner.id, here.id))
        return None

    def may_accept(self, state: GameState, actor: Actor, here: Asteroid) -> bool:
        """Only by a settler carrying a gate."""
        return isinstance(actor, Settler) and bool(actor.gates)

    def perform(self, state: GameState, actor: Actor, here: Asteroid, action: Place, events: list[Event]) -> None:
        """The gate orbits the settler's asteroid; the pair is active when both are placed."""
        assert isinstance(actor, Settler)
        gate = state.gates[action.gate]
        actor.gates.remove(gate.id)
        gate.carrier = None
        attach_gate(state, gate, here)
        touch(state, actor.id)
        events.append(GatePlaced(actor.id, gate.id, here.id, state.gate_active(gate)))

    def candidates(self, state: GameState, actor: Actor, here: Asteroid | None) -> list[Place]:
        """One per gate the settler carries."""
        if isinstance(actor, Settler):
            return [Place(actor.id, gid) for gid in actor.gates]
        return []


RULE = PlaceRule()
