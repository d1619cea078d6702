"""`move X`: fly to a neighbouring asteroid, or through an active gate orbiting the actor's asteroid (R11, E2)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Final

from ..effects import check_win, place_actor
from ..errors import Refusal, shape_of
from ..events import Event, Moved
from ..state import Asteroid, GameState, Settler, Ufo
from .base import Action, Actor, Rule

# the shapes of this module's refusals, made once: a refusal is its shape and its values (no dict on the way)
_NO_SUCH_TARGET: Final = shape_of("no_such_target", ("actor", "target"))
_NOT_NEIGHBOUR: Final = shape_of("not_neighbour", ("actor", "target", "asteroid"))
_CANNOT_DO: Final = shape_of("cannot_do", ("actor", "kind", "action", "gate"))
_GATE_DESTROYED: Final = shape_of("gate_destroyed", ("actor", "gate"))
_GATE_ELSEWHERE: Final = shape_of("gate_elsewhere", ("actor", "gate", "asteroid"))
_GATE_INACTIVE: Final = shape_of("gate_inactive", ("actor", "gate", "partner"))
_EXPLODED: Final = shape_of("exploded", ("actor", "target"))


@dataclass(frozen=True, slots=True)
class Move(Action):
    """Fly to a neighbouring asteroid, or through an active gate orbiting the actor's asteroid."""

    target: str

    def __init__(self, actor: str, target: str) -> None:
        object.__setattr__(self, "actor", actor)
        object.__setattr__(self, "target", target)


Move.name = "move"
Move.doc = "Fly to a neighbouring asteroid, or through an active gate orbiting the actor's asteroid."


class MoveRule(Rule[Move]):
    """Moves: settlers and robots through gates too, UFOs between neighbours only."""

    record = Move
    offered = 10
    key = None  # no button: a move is played on the map (or with 1-9)
    actors = ("settler", "robot", "ufo")
    meanings: ClassVar[Mapping[str, str]] = {
        "target": "a neighbouring asteroid, or a gate orbiting the actor's asteroid",
    }
    words: ClassVar[Mapping[str, tuple[str, str]]] = {"target": ("X", "thing")}
    # every neighbour exists (an explosion unlinks it): moving there is accepted without a look, and only the
    # gates are judged (a hub has hundreds of neighbours)
    to_neighbours = True

    def refuse(self, state: GameState, actor: Actor, here: Asteroid, action: Move) -> Refusal | None:
        """A neighbour, or an active gate orbiting the actor's asteroid (never for a UFO)."""
        target = state.things.get(action.target)
        if target is None or target.kind not in ("asteroid", "gate"):
            return Refusal(_NO_SUCH_TARGET, (actor.id, action.target))
        if target.kind == "asteroid":
            if target.id in here.neighbours:
                return None
            if not state.asteroids[target.id].exists:
                return Refusal(_EXPLODED, (actor.id, target.id))
            return Refusal(_NOT_NEIGHBOUR, (actor.id, target.id, here.id))
        if isinstance(actor, Ufo):
            return Refusal(_CANNOT_DO, (actor.id, actor.kind, "move", target.id))
        gate = state.gates[target.id]
        if not gate.exists:
            return Refusal(_GATE_DESTROYED, (actor.id, gate.id))
        if gate.at != here.id:
            return Refusal(_GATE_ELSEWHERE, (actor.id, gate.id, here.id))
        if not state.gate_active(gate):
            return Refusal(_GATE_INACTIVE, (actor.id, gate.id, gate.partner))
        return None

    def perform(self, state: GameState, actor: Actor, here: Asteroid, action: Move, events: list[Event]) -> None:
        """Fly there (through the gate to its partner's asteroid); a settler may complete a win (R14)."""
        via = None
        target_id = action.target
        gate = state.gates.get(target_id)
        if gate is not None:
            via = gate.id
            target_id = state.gates[gate.partner].at or ""
        target = state.asteroids[target_id]
        place_actor(state, actor, target)
        events.append(Moved(actor.id, here.id, target.id, via))
        if isinstance(actor, Settler):
            check_win(state, target, events)

    def towards(self, actor: str, asteroid: str) -> Move:
        """The move to a neighbour."""
        return Move(actor, asteroid)

    def candidates(self, state: GameState, actor: Actor, here: Asteroid | None) -> list[Move]:
        """After the neighbours (`to_neighbours`): each gate orbiting the actor's asteroid."""
        if here is None or not here.gates:
            return []
        aid = actor.id
        return [Move(aid, g) for g in here.gates]


RULE = MoveRule()
