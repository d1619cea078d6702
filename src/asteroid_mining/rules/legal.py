"""Every action the rules accept from an actor now (R11, R13, E2), in O(degree)."""

from __future__ import annotations

from .actions import Action, BuildGates, BuildRobot, Deposit, Drill, Mine, Move, Place, Wait
from .materials import CARGO_LIMIT, GATES_COST, HOLLOW, KINDS, ROBOT_COST
from .state import GameState, Robot, Settler, Ufo


def legal_actions(state: GameState, actor_id: str) -> list[Action]:
    """The accepted actions of `actor_id`, in a stable order; empty when it cannot act now."""
    actor = state.things.get(actor_id)
    if not state.running or not isinstance(actor, Settler | Robot | Ufo) or not actor.alive:
        return []
    if isinstance(actor, Settler) and state.options.turns == "strict" and state.turn != actor_id:
        return []
    assert actor.at is not None
    here = state.asteroids[actor.at]
    out: list[Action] = [Move(actor_id, n) for n in here.neighbours]
    if not isinstance(actor, Ufo):
        out.extend(Move(actor_id, g) for g in here.gates if state.gate_active(state.gates[g]))
    if here.mantle > 0 and not isinstance(actor, Ufo):
        out.append(Drill(actor_id))
    can_hold = isinstance(actor, Ufo) or (isinstance(actor, Settler) and actor.carry_total < CARGO_LIMIT)
    if here.mantle == 0 and here.core != HOLLOW and can_hold:
        out.append(Mine(actor_id))
    if isinstance(actor, Settler):
        cargo = actor.cargo
        if here.mantle == 0 and here.core == HOLLOW:
            out.extend(Deposit(actor_id, k) for k in KINDS if cargo[k] > 0)
        if all(cargo[k] >= n for k, n in ROBOT_COST.items()):
            out.append(BuildRobot(actor_id))
        if not actor.gates and all(cargo[k] >= n for k, n in GATES_COST.items()):
            out.append(BuildGates(actor_id))
        for gid in actor.gates:
            if state.gates[state.gates[gid].partner].at != here.id:
                out.append(Place(actor_id, gid))
    out.append(Wait(actor_id))
    return out
