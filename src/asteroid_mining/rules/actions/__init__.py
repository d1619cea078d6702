"""The actions (R11, R13, E2): one module per action, registered here in the order players are offered them.

Each module holds an action's record (its JSON shape), its check, its effect and the actions of its kind an
actor could take now; this registry dispatches to them. Adding an action is one new module and its `RULE` in
`RULES` below.
"""

from __future__ import annotations

from typing import Any, Final, cast

from ..errors import GameFormatError, Refusal, shape_of
from ..events import Event
from ..state import Asteroid, GameState, Robot, Settler, Ufo
from . import build_gates, build_robot, deposit, drill, mine, move, place, wait
from .base import Action, ActionSpec, Actor, FieldSpec, Rule
from .build_gates import BuildGates
from .build_robot import BuildRobot
from .deposit import Deposit
from .drill import Drill
from .mine import Mine
from .move import Move
from .place import Place
from .wait import Wait

RULES: tuple[Rule[Any], ...] = (
    move.RULE, drill.RULE, mine.RULE, deposit.RULE, build_robot.RULE, build_gates.RULE, place.RULE, wait.RULE,
)
"""Every action's rule, in the order `Game.choices` lists them."""

RULE_BY_NAME: Final[dict[str, Rule[Any]]] = {rule.name: rule for rule in RULES}
"""Each action's rule by its JSON `type`."""

ACTION_TYPES: dict[str, type[Action]] = {rule.name: rule.record for rule in RULES}
"""Action classes by their JSON `type`."""

# Final: compiled, the registries are read directly (other module names are dictionary look-ups at each use)
_RULES_OF: Final[dict[str, tuple[Rule[Any], ...]]] = {
    kind: tuple(rule for rule in RULES if kind in rule.actors) for kind in ("settler", "robot", "ufo")
}
_RULE_OF_RECORD: Final[dict[type, Rule[Any]]] = {rule.record: rule for rule in RULES}
"""Each action's rule by its record class: `check` and `perform` find it by the action's type (a class's
`name` is a class variable, which compiled code reads as slowly as any attribute)."""
_RULES_OF_ACTOR: Final[dict[type, tuple[Rule[Any], ...]]] = {
    Settler: _RULES_OF["settler"], Robot: _RULES_OF["robot"], Ufo: _RULES_OF["ufo"],
}
"""The rules an actor may follow, by the actor's class (for `legal_actions`, at every decision)."""

ACTION_SPECS: tuple[ActionSpec, ...] = tuple(rule.spec() for rule in RULES)
"""What clients need to know of each action: name, fields (required or optional), which actors may do it."""

__all__ = [
    "ACTION_SPECS", "ACTION_TYPES", "RULES", "RULE_BY_NAME", "Action", "ActionSpec", "Actor", "BuildGates",
    "BuildRobot", "Deposit", "Drill", "FieldSpec", "Mine", "Move", "Place", "Rule", "Wait", "action_from_json",
    "actor_refusal", "cannot_do", "check", "legal_actions", "perform", "standing_refusal", "turn_refusal",
]


# the shapes of this module's refusals, made once: a refusal is its shape and its values (no dict on the way)
_CANNOT_DO: Final = shape_of("cannot_do", ("actor", "kind", "action"))
_GAME_OVER: Final = shape_of("game_over", ("status",))
_UNKNOWN_ACTOR: Final = shape_of("unknown_actor", ("actor",))
_NOT_AN_ACTOR: Final = shape_of("not_an_actor", ("actor", "kind"))
_DEAD: Final = shape_of("dead", ("actor", "kind"))
_NOT_YOUR_TURN: Final = shape_of("not_your_turn", ("actor", "turn"))


def action_from_json(data: Any, path: str = "") -> Action:
    """Read an action from its JSON form; raises GameFormatError naming the JSON path of the problem.

    The one decoder of actions: the fields come from each action's spec.
    """
    where = f"{path}." if path else ""
    if not isinstance(data, dict):
        raise GameFormatError(path, "an action must be an object")
    kind = data.get("type")
    rule = RULE_BY_NAME.get(kind) if isinstance(kind, str) else None
    if rule is None:
        raise GameFormatError(f"{where}type", f"unknown action type {kind!r} (known: {', '.join(RULE_BY_NAME)})")
    actor = data.get("actor")
    if not isinstance(actor, str):
        raise GameFormatError(f"{where}actor", "must be a string")
    args: list[str | None] = []
    for spec in rule.fields:
        value = data.get(spec.name)
        if value is None and not spec.required:
            args.append(None)
        elif not isinstance(value, str):
            raise GameFormatError(f"{where}{spec.name}", "must be a string")
        else:
            args.append(value)
    known = {"type", "actor", *(spec.name for spec in rule.fields)}
    for key in data:
        if key not in known:
            raise GameFormatError(f"{where}{key}", f"not a field of a {rule.name} action")
    return cast(Action, cast(Any, rule.record)(actor, *args))


def standing_refusal(state: GameState, actor_id: str) -> Refusal | None:
    """Why `actor_id` cannot act at all now (the game is over, no such actor, not an actor, dead), or None."""
    if not state.running:
        return Refusal(_GAME_OVER, (state.status,))
    actor = state.things.get(actor_id)
    if actor is None:
        return Refusal(_UNKNOWN_ACTOR, (actor_id,))
    if not isinstance(actor, (Settler, Robot, Ufo)):
        return Refusal(_NOT_AN_ACTOR, (actor_id, actor.kind))
    if not actor.alive:
        return Refusal(_DEAD, (actor_id, actor.kind))
    return None


def turn_refusal(state: GameState, actor: Actor) -> Refusal | None:
    """Strict turns: `not_your_turn` for a settler whose step it is not (R9a), else None."""
    if isinstance(actor, Settler) and state.options.turns == "strict" and state.turn != actor.id:
        return Refusal(_NOT_YOUR_TURN, (actor.id, state.turn or ""))
    return None


def actor_refusal(state: GameState, actor_id: str) -> Refusal | None:
    """The refusal of every action of `actor_id` now, whatever the action (but `cannot_do`), or None."""
    refusal = standing_refusal(state, actor_id)
    if refusal is None:
        actor = state.things[actor_id]
        assert isinstance(actor, (Settler, Robot, Ufo))
        refusal = turn_refusal(state, actor)
    return refusal


def cannot_do(actor: Actor, rule: Rule[Any]) -> Refusal:
    """The refusal of an action this kind of actor may never do."""
    return Refusal(_CANNOT_DO, (actor.id, actor.kind, rule.name))


def check(state: GameState, action: Action) -> Refusal | None:
    """The refusal of `action` in this state, or None when the rules accept it. Changes nothing."""
    if not state.running:
        return Refusal(_GAME_OVER, (state.status,))
    actor = state.things.get(action.actor)
    if not isinstance(actor, (Settler, Robot, Ufo)) or not actor.alive:
        return standing_refusal(state, action.actor)
    rule = _rule_of(action)
    if actor.kind not in rule.actors:
        return cannot_do(actor, rule)
    if isinstance(actor, Settler) and state.options.turns == "strict" and state.turn != actor.id:
        return turn_refusal(state, actor)
    assert actor.at is not None
    return rule.refuse(state, actor, state.asteroids[actor.at], action)


def _rule_of(action: Action) -> Rule[Any]:
    """The rule of `action`: by its record's class, or by its name for a subclass of a record."""
    return _RULE_OF_RECORD.get(type(action)) or RULE_BY_NAME[action.name]


def perform(state: GameState, actor: Actor, action: Action) -> list[Event]:
    """Carry out an accepted action and return the events it caused."""
    events: list[Event] = []
    assert actor.at is not None
    _rule_of(action).perform(state, actor, state.asteroids[actor.at], action, events)
    return events


def legal_actions(state: GameState, actor_id: str) -> list[Action]:
    """The accepted actions of `actor_id`, in a stable order; empty when it cannot act now."""
    actor = state.things.get(actor_id)
    if not state.running or not isinstance(actor, (Settler, Robot, Ufo)) or not actor.alive:
        return []
    if isinstance(actor, Settler) and state.options.turns == "strict" and state.turn != actor_id:
        return []
    assert actor.at is not None
    here: Asteroid = state.asteroids[actor.at]
    out: list[Action] = []
    rules = _RULES_OF_ACTOR.get(type(actor))
    for rule in rules if rules is not None else _RULES_OF[actor.kind]:
        rule.legal(state, actor, here, out)
    return out

