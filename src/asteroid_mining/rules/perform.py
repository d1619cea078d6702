"""What accepted actions do (R11, R13, E2). Each function assumes `refusals.check` accepted the action."""

from __future__ import annotations

from collections.abc import Callable

from .actions import Action, BuildGates, BuildRobot, Deposit, Drill, Mine, Move, Place, Wait
from .effects import attach_gate, check_win, fill_core, lose_core, place_actor, react
from .events import Deposited, Drilled, Event, GatePlaced, GatesBuilt, Mined, Moved, RobotBuilt, Waited
from .materials import GATES_COST, ROBOT_COST
from .state import Asteroid, GameState, Gate, Robot, Settler, Ufo

Actor = Settler | Robot | Ufo


def perform(state: GameState, actor: Actor, action: Action) -> list[Event]:
    """Carry out an accepted action and return the events it caused."""
    events: list[Event] = []
    assert actor.at is not None
    _PERFORM[action.name](state, actor, state.asteroids[actor.at], action, events)
    return events


def _move(state: GameState, actor: Actor, here: Asteroid, action: Action, events: list[Event]) -> None:
    assert isinstance(action, Move)
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


def _drill(state: GameState, actor: Actor, here: Asteroid, action: Action, events: list[Event]) -> None:
    here.mantle -= 1
    events.append(Drilled(actor.id, here.id, here.mantle + 1, here.mantle))
    if here.mantle == 0:
        here.surveyed = True
        react(state, here, events)


def _mine(state: GameState, actor: Actor, here: Asteroid, action: Action, events: list[Event]) -> None:
    kind = lose_core(state, here)
    actor.cargo[kind] += 1  # type: ignore[union-attr]  # robots are refused before this
    events.append(Mined(actor.id, here.id, kind))
    if isinstance(actor, Settler):
        state.cargo_units[kind] += 1
        check_win(state, here, events)


def _deposit(state: GameState, actor: Actor, here: Asteroid, action: Action, events: list[Event]) -> None:
    assert isinstance(action, Deposit) and isinstance(actor, Settler)
    actor.cargo[action.kind] -= 1
    state.cargo_units[action.kind] -= 1
    fill_core(state, here, action.kind)
    events.append(Deposited(actor.id, here.id, action.kind))
    react(state, here, events)


def _pay(state: GameState, settler: Settler, cost: dict[str, int]) -> None:
    for kind, n in cost.items():
        settler.cargo[kind] -= n
        state.cargo_units[kind] -= n


def _build_robot(state: GameState, actor: Actor, here: Asteroid, action: Action, events: list[Event]) -> None:
    assert isinstance(action, BuildRobot) and isinstance(actor, Settler)
    _pay(state, actor, ROBOT_COST)
    rid = action.new_id or state.fresh_ids("robot", 1)[0]
    robot = Robot(rid, state.next_index(), None)
    state.robots[rid] = robot
    state.things[rid] = robot
    place_actor(state, robot, here)
    events.append(RobotBuilt(actor.id, rid, here.id))


def _build_gates(state: GameState, actor: Actor, here: Asteroid, action: Action, events: list[Event]) -> None:
    assert isinstance(action, BuildGates) and isinstance(actor, Settler)
    _pay(state, actor, GATES_COST)
    if action.first is None or action.second is None:
        first, second = state.fresh_ids("gate", 2)
    else:
        first, second = action.first, action.second
    for gid, partner in ((first, second), (second, first)):
        gate = Gate(gid, state.next_index(), partner, carrier=actor.id)
        state.gates[gid] = gate
        state.things[gid] = gate
        actor.gates.append(gid)
    events.append(GatesBuilt(actor.id, first, second))


def _place(state: GameState, actor: Actor, here: Asteroid, action: Action, events: list[Event]) -> None:
    assert isinstance(action, Place) and isinstance(actor, Settler)
    gate = state.gates[action.gate]
    actor.gates.remove(gate.id)
    gate.carrier = None
    attach_gate(state, gate, here)
    events.append(GatePlaced(actor.id, gate.id, here.id, state.gate_active(gate)))


def _wait(state: GameState, actor: Actor, here: Asteroid, action: Action, events: list[Event]) -> None:
    events.append(Waited(actor.id))


_PERFORM: dict[str, Callable[[GameState, Actor, Asteroid, Action, list[Event]], None]] = {
    Move.name: _move,
    Drill.name: _drill,
    Mine.name: _mine,
    Deposit.name: _deposit,
    BuildRobot.name: _build_robot,
    BuildGates.name: _build_gates,
    Place.name: _place,
    Wait.name: _wait,
}
