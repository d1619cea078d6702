"""The actions (R11, R13, E2): one module per action, found here and listed in the order players are offered them.

Each module holds an action's record (its JSON shape), its check (`refuse`), its effect and the actions of its
kind an actor could take now (`candidates`); this registry dispatches to them, and `judge` is the one loop that
judges every candidate, for `legal_actions`, `Game.choices` and its JSON text alike (each a `Sink`). Adding an
action is one new module of this package with its `RULE`: `RULES` holds every module's, in the order of their
`Rule.offered`.
"""

from __future__ import annotations

import importlib
import itertools
import pkgutil
from typing import Any, Final, cast

from .. import _engine
from ..errors import GameFormatError, Refusal, shape_of
from ..events import Event
from ..state import Asteroid, GameState, Robot, Settler, Ufo
from .base import Action, ActionSpec, Actor, ChoiceSink, FieldSpec, LegalSink, Rule, Sink
from .build_gates import BuildGates
from .build_robot import BuildRobot
from .deposit import Deposit
from .drill import Drill
from .mine import Mine
from .move import Move
from .place import Place
from .wait import Wait

_NOT_ACTIONS: Final = frozenset({"base", "costs"})
"""The modules of this package that are not an action's."""
_NO_KEY: Final = object()
"""A rule that says no `Rule.key` at all (None says: no button)."""


def _found_rules() -> tuple[Rule[Any], ...]:
    """The `RULE` of every action module of this package (each module but `_NOT_ACTIONS`), by `Rule.offered`;
    ValueError naming a module without a `Rule` named `RULE`, or two rules offered at the same place."""
    # where the package is, from the engine's build chooser (`_engine`, never compiled): compiled, the modules'
    # own `__file__` does not name their place
    package = f"{_engine.PACKAGE}.actions"
    rules: list[Rule[Any]] = []
    modules: dict[str, str] = {}
    for info in pkgutil.iter_modules([str(_engine.HERE / "actions")]):
        if info.name in _NOT_ACTIONS or info.name.startswith("_"):
            continue
        rule = getattr(importlib.import_module(f"{package}.{info.name}"), "RULE", None)
        if not isinstance(rule, Rule):
            raise ValueError(f"rules/actions/{info.name}.py: an action module needs its rule as RULE")
        rules.append(rule)
        modules[rule.name] = info.name
    if not rules:
        raise ImportError(f"rules/actions: no action module found in {_engine.HERE / 'actions'}")
    rules.sort(key=lambda rule: rule.offered)
    _check_keys(rules, modules)
    for first, second in itertools.pairwise(rules):
        if first.offered == second.offered:
            raise ValueError(f"rules/actions: {first.name} and {second.name} are both offered at {first.offered}")
    return tuple(rules)


def _check_keys(rules: list[Rule[Any]], modules: dict[str, str]) -> None:
    """Every action settlers take says the key of its button (`Rule.key`): one lowercase letter, or None for no
    button, and no two the same; ValueError naming the action and its module otherwise. The client's action
    table is written from these keys (`make protocol`): a settler action must not reach it without one."""
    owner: dict[str, str] = {}
    for rule in rules:
        where = f"rules/actions/{modules[rule.name]}.py"
        key: object = getattr(rule, "key", _NO_KEY)
        if "settler" not in rule.actors:
            if key is not _NO_KEY and key is not None:
                raise ValueError(f"{where}: {rule.name} has the key {key!r} but settlers do not take it (no button)")
            continue
        if key is _NO_KEY:
            raise ValueError(f"{where}: {rule.name} needs its key in {type(rule).__name__}: the key of its button on "
                             "the action bar (`key = 'x'`, one lowercase letter), or `key = None` for no button")
        if key is None:
            continue
        if not isinstance(key, str) or len(key) != 1 or not "a" <= key <= "z":
            raise ValueError(f"{where}: {rule.name}'s key must be one lowercase letter (or None: no button), "
                             f"not {key!r}")
        if key in owner:
            raise ValueError(f"{where}: {rule.name}'s key {key!r} is {owner[key]}'s already "
                             f"(rules/actions/{modules[owner[key]]}.py): give it another")
        owner[key] = rule.name


RULES: tuple[Rule[Any], ...] = _found_rules()
"""Every action's rule, in the order `Game.choices` lists them (`Rule.offered`)."""

RULE_BY_NAME: Final[dict[str, Rule[Any]]] = {rule.name: rule for rule in RULES}
"""Each action's rule by its JSON `type`."""

ACTION_TYPES: dict[str, type[Action]] = {rule.name: rule.record for rule in RULES}
"""Action classes by their JSON `type`."""

# Final: compiled, the registries are read directly (other module names are dictionary look-ups at each use)
_RULE_OF_RECORD: Final[dict[type, Rule[Any]]] = {rule.record: rule for rule in RULES}
"""Each action's rule by its record class: `check` and `perform` find it by the action's type (a class's
`name` is a class variable, which compiled code reads as slowly as any attribute)."""

ACTION_SPECS: tuple[ActionSpec, ...] = tuple(rule.spec() for rule in RULES)
"""What clients need to know of each action: name, fields (required or optional), which actors may do it."""

__all__ = [
    "ACTION_SPECS", "ACTION_TYPES", "PLANS", "RULES", "RULE_BY_NAME", "Action", "ActionSpec", "Actor", "BuildGates",
    "BuildRobot", "ChoiceSink", "Deposit", "Drill", "FieldSpec", "LegalSink", "Mine", "Move", "Place", "Rule",
    "Sink", "Wait", "action_from_json", "actor_refusal", "cannot_do", "check", "judge", "legal_actions", "perform",
    "standing_refusal", "turn_refusal",
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


PLANS: Final[dict[str, tuple[tuple[Rule[Any], bool, bool], ...]]] = {
    kind: tuple((rule, kind in rule.actors, rule.to_neighbours) for rule in RULES)
    for kind in ("settler", "robot", "ufo")
}
"""For each kind of actor, each rule in the order of `RULES`, whether this kind may do it and whether its first
candidates are the neighbours' (`Rule.to_neighbours`): read once, not at every decision."""


class _Plan:
    """One entry of `PLANS` as a native object: compiled code reads its fields directly, where a tuple would be
    checked and unpacked at every decision."""

    def __init__(self, rule: Rule[Any], may: bool, to_neighbours: bool) -> None:
        self.rule = rule
        self.may = may
        self.to_neighbours = to_neighbours


_PLANS_OF_KIND: Final[dict[str, tuple[_Plan, ...]]] = {
    kind: tuple(_Plan(rule, may, to_neighbours) for rule, may, to_neighbours in plans)
    for kind, plans in PLANS.items()
}
_PLANS_OF_TYPE: Final[dict[type, tuple[_Plan, ...]]] = {
    Settler: _PLANS_OF_KIND["settler"], Robot: _PLANS_OF_KIND["robot"], Ufo: _PLANS_OF_KIND["ufo"],
}
"""The plans by the actor's class: `kind` is a class variable, which compiled code looks up slowly (through
the generic attribute protocol), and this is the hottest path of `legal_actions`."""


def judge(state: GameState, actor: Actor, standing: Refusal | None, turn: Refusal | None, sink: Sink) -> None:
    """The one judging loop: every candidate of every rule (`Rule.candidates`, and the neighbours' of a rule
    that declares `to_neighbours`) goes to `sink` with its refusal and its action's danger.

    `standing` and `turn` are the actor's `standing_refusal` and `turn_refusal` (the latter None when the
    former is not). The refusal of an action is, in this order as in `check`: `standing`, `cannot_do` for a kind
    of actor that may never do it, `turn`, then the rule's own `refuse`. A sink that keeps only accepted
    actions (`Sink.keeps_refused`) is handed none of a rule refused as a whole, nor of one whose quick
    `Rule.may_accept` says that `refuse` would refuse every candidate now.
    """
    keeps = sink.keeps_refused
    if not keeps and (standing is not None or turn is not None):
        return
    here: Asteroid | None = state.asteroids[actor.at] if actor.at is not None else None
    wants_danger = sink.wants_danger
    plans = _PLANS_OF_TYPE.get(type(actor))
    for plan in plans if plans is not None else _PLANS_OF_KIND[actor.kind]:
        rule = plan.rule
        may = plan.may
        to_neighbours = plan.to_neighbours
        refusal = standing
        if refusal is None:
            if not may:
                if not keeps:
                    continue
                refusal = cannot_do(actor, rule)
            else:
                refusal = turn
        if not keeps and here is not None and not rule.may_accept(state, actor, here):
            continue  # every candidate would be refused: one look instead of each candidate and its refusal
        sink.rule(rule)
        danger = rule.danger(state, actor, here) if wants_danger else None
        if refusal is None and here is not None:
            if to_neighbours:
                sink.neighbours(rule, actor, here, danger)
            for action in rule.candidates(state, actor, here):
                sink.take(action, rule.refuse(state, actor, here, action), danger)
        else:
            if to_neighbours and here is not None:
                aid = actor.id
                for n in here.neighbours:
                    sink.take(rule.towards(aid, n), refusal, danger)
            for action in rule.candidates(state, actor, here):
                sink.take(action, refusal, danger)


def legal_actions(state: GameState, actor_id: str) -> list[Action]:
    """The accepted actions of `actor_id`, in a stable order; empty when it cannot act now (`judge` with a
    sink that keeps the accepted ones)."""
    actor = state.things.get(actor_id)
    if not state.running or not isinstance(actor, (Settler, Robot, Ufo)) or not actor.alive:
        return []
    if isinstance(actor, Settler) and state.options.turns == "strict" and state.turn != actor_id:
        return []
    sink = LegalSink()
    judge(state, actor, None, None, sink)
    return sink.out
