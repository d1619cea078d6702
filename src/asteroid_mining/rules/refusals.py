"""What the rules refuse (R9a, R11, R13, R16a, E2): one check per action, each with a stable code.

`check` never changes the state. Codes are part of the public interface (clients and bots match on them).
"""

from __future__ import annotations

from .actions import Action, BuildGates, BuildRobot, Deposit, Drill, Mine, Move, Place, Wait
from .errors import Refusal
from .ids import id_problem
from .materials import CARGO_LIMIT, GATES_COST, MATERIALS, ROBOT_COST
from .state import Asteroid, GameState, Robot, Settler, Ufo

REFUSAL_CODES: dict[str, str] = {
    "game_over": "the game has been won or lost (R16a)",
    "unknown_actor": "no such settler, robot or UFO",
    "not_an_actor": "asteroids and gates do not act",
    "dead": "the actor is dead or destroyed",
    "not_your_turn": "strict turns: another settler's step (R9a)",
    "cannot_do": "this kind of actor cannot do this action (R11, R13, E2)",
    "no_such_target": "the target is neither an asteroid nor a gate",
    "exploded": "the target asteroid has exploded",
    "not_neighbour": "the target asteroid is not a neighbour",
    "gate_destroyed": "the gate has been destroyed",
    "gate_elsewhere": "the gate does not orbit the actor's asteroid",
    "gate_inactive": "the gate's partner is not placed",
    "drilled_through": "the mantle is already 0",
    "mantle_left": "the mantle is not drilled through",
    "core_hollow": "the core is hollow",
    "cargo_full": "the cargo hold is full",
    "no_such_material": "not a material kind",
    "core_not_hollow": "the core is not hollow",
    "not_carried": "the settler carries no unit of that kind",
    "missing_materials": "not enough materials in the cargo",
    "carries_gates": "the settler already carries gates",
    "bad_id": "the new id is not a valid id or is taken",
    "gate_not_carried": "the settler does not carry that gate",
    "partner_here": "the gate's partner already orbits this asteroid",
    "turns_strict": "rounds end by themselves in strict turns",
}
"""Every refusal code with what it means."""

_ACTOR_NOUN = {"settler": "settlers", "robot": "robots", "ufo": "UFOs"}
_ALLOWED: dict[str, frozenset[str]] = {
    "settler": frozenset(("move", "drill", "mine", "deposit", "build_robot", "build_gates", "place", "wait")),
    "robot": frozenset(("move", "drill", "wait")),
    "ufo": frozenset(("move", "mine", "wait")),
}
_VERB = {
    "move": "move",
    "drill": "drill",
    "mine": "mine",
    "deposit": "deposit materials",
    "build_robot": "build robots",
    "build_gates": "build gates",
    "place": "place gates",
    "wait": "wait",
}


def check(state: GameState, action: Action) -> Refusal | None:
    """The refusal of `action` in this state, or None when the rules accept it."""
    if not state.running:
        return Refusal("game_over", f"the game is over: it was {state.status}")
    actor = state.things.get(action.actor)
    if actor is None:
        return Refusal("unknown_actor", f"there is no {action.actor} in this game")
    if not isinstance(actor, Settler | Robot | Ufo):
        return Refusal("not_an_actor", f"{action.actor} is {'an' if actor.kind == 'asteroid' else 'a'} "
                       f"{actor.kind}: only settlers, robots and UFOs act")
    if not actor.alive:
        word = "dead" if isinstance(actor, Settler) else "destroyed"
        return Refusal("dead", f"{actor.id} is {word}")
    if action.name not in _ALLOWED[actor.kind]:
        return Refusal("cannot_do", f"{_ACTOR_NOUN[actor.kind]} cannot {_VERB[action.name]}")
    if isinstance(actor, Settler) and state.options.turns == "strict" and state.turn != actor.id:
        return Refusal("not_your_turn", f"it is {state.turn}'s turn, not {actor.id}'s")
    assert actor.at is not None
    here = state.asteroids[actor.at]
    return _CHECKS[action.name](state, actor, here, action)


def _move(state: GameState, actor: Settler | Robot | Ufo, here: Asteroid, action: Action) -> Refusal | None:
    assert isinstance(action, Move)
    target = state.things.get(action.target)
    if target is None or target.kind not in ("asteroid", "gate"):
        return Refusal("no_such_target", f"{action.target} is neither an asteroid nor a gate")
    if target.kind == "asteroid":
        if not state.asteroids[target.id].exists:
            return Refusal("exploded", f"{target.id} has exploded")
        if target.id == here.id:
            return Refusal("not_neighbour", f"{actor.id} is already on {here.id}")
        if target.id not in here.neighbours:
            return Refusal("not_neighbour", f"{target.id} is not a neighbour of {here.id}")
        return None
    if isinstance(actor, Ufo):
        return Refusal("cannot_do", "UFOs never travel through gates")
    gate = state.gates[target.id]
    if not gate.exists:
        return Refusal("gate_destroyed", f"gate {gate.id} has been destroyed")
    if gate.at != here.id:
        return Refusal("gate_elsewhere", f"gate {gate.id} does not orbit {here.id}")
    if not state.gate_active(gate):
        return Refusal("gate_inactive", f"gate {gate.id} is not active: its partner {gate.partner} is not placed")
    return None


def _drill(state: GameState, actor: Settler | Robot | Ufo, here: Asteroid, action: Action) -> Refusal | None:
    if here.mantle == 0:
        return Refusal("drilled_through", f"{actor.id} cannot drill {here.id}: it is already drilled through")
    return None


def _mine(state: GameState, actor: Settler | Robot | Ufo, here: Asteroid, action: Action) -> Refusal | None:
    if here.mantle > 0:
        layers = "1 layer" if here.mantle == 1 else f"{here.mantle} layers"
        return Refusal("mantle_left", f"{actor.id} cannot mine {here.id}: {layers} of mantle left")
    if here.core == "hollow":
        return Refusal("core_hollow", f"{actor.id} cannot mine {here.id}: its core is hollow")
    if isinstance(actor, Settler) and actor.carry_total >= CARGO_LIMIT:
        return Refusal("cargo_full", f"{actor.id} cannot mine: the cargo hold is full ({CARGO_LIMIT} units)")
    return None


def _deposit(state: GameState, actor: Settler | Robot | Ufo, here: Asteroid, action: Action) -> Refusal | None:
    assert isinstance(action, Deposit) and isinstance(actor, Settler)
    if action.kind not in MATERIALS:
        return Refusal("no_such_material", f"{action.kind} is not a material (ice, iron, carbon, uranium)")
    if here.mantle > 0:
        return Refusal("mantle_left", f"{actor.id} cannot deposit into {here.id}: it is not drilled through "
                       f"({here.mantle} of mantle left)")
    if here.core != "hollow":
        return Refusal("core_not_hollow", f"{actor.id} cannot deposit into {here.id}: its core holds {here.core}")
    if actor.cargo[action.kind] == 0:
        return Refusal("not_carried", f"{actor.id} carries no {action.kind}")
    return None


def _missing(settler: Settler, cost: dict[str, int], what: str) -> Refusal | None:
    lacking = [f"{n - settler.cargo[k]} {k}" for k, n in cost.items() if settler.cargo[k] < n]
    if lacking:
        return Refusal("missing_materials", f"{settler.id} cannot build {what}: needs {' and '.join(lacking)} more")
    return None


def _new_id(state: GameState, new_id: str | None) -> Refusal | None:
    if new_id is None:
        return None
    problem = id_problem(new_id)
    if problem is None and new_id in state.things:
        problem = f"{new_id} is already taken"
    return Refusal("bad_id", problem) if problem else None


def _build_robot(state: GameState, actor: Settler | Robot | Ufo, here: Asteroid, action: Action) -> Refusal | None:
    assert isinstance(action, BuildRobot) and isinstance(actor, Settler)
    return _missing(actor, ROBOT_COST, "a robot") or _new_id(state, action.new_id)


def _build_gates(state: GameState, actor: Settler | Robot | Ufo, here: Asteroid, action: Action) -> Refusal | None:
    assert isinstance(action, BuildGates) and isinstance(actor, Settler)
    if actor.gates:
        return Refusal("carries_gates", f"{actor.id} cannot build gates while carrying {', '.join(actor.gates)}")
    refusal = _missing(actor, GATES_COST, "a gate pair")
    if refusal:
        return refusal
    if (action.first is None) != (action.second is None):
        return Refusal("bad_id", "name both gates of the pair, or neither")
    if action.first is not None and action.first == action.second:
        return Refusal("bad_id", "the two gates of a pair need two different ids")
    return _new_id(state, action.first) or _new_id(state, action.second)


def _place(state: GameState, actor: Settler | Robot | Ufo, here: Asteroid, action: Action) -> Refusal | None:
    assert isinstance(action, Place) and isinstance(actor, Settler)
    if action.gate not in actor.gates:
        return Refusal("gate_not_carried", f"{actor.id} does not carry {action.gate}")
    partner = state.gates[state.gates[action.gate].partner]
    if partner.at == here.id:
        return Refusal("partner_here", f"{action.gate}'s partner {partner.id} already orbits {here.id}")
    return None


def _wait(state: GameState, actor: Settler | Robot | Ufo, here: Asteroid, action: Action) -> Refusal | None:
    assert isinstance(action, Wait)
    return None


_CHECKS = {
    Move.name: _move,
    Drill.name: _drill,
    Mine.name: _mine,
    Deposit.name: _deposit,
    BuildRobot.name: _build_robot,
    BuildGates.name: _build_gates,
    Place.name: _place,
    Wait.name: _wait,
}
