"""What every action shares: its record (the JSON shape), its spec, and the rule that judges and carries it out.

An action is a module of this package holding, side by side, its frozen record class (a subclass of `Action`),
and its `Rule`: which actors may do it, its check (why the rules refuse it), its effect, and the actions of its
kind a settler could take now (for `Game.choices` and `legal_actions`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass
from dataclasses import fields as dataclass_fields
from types import MappingProxyType
from typing import Any, ClassVar, Generic, TypeVar, cast

from ..dangers import Danger
from ..errors import Refusal
from ..events import Event
from ..records import field_names
from ..state import Asteroid, GameState, Robot, Settler, Ufo

Actor = Settler | Robot | Ufo
"""Anything that acts."""


class _Named:
    """What names an action's class: its JSON `type`, set by each class after its body.

    Compiled by mypyc, a class variable declared in a dataclass's body would reach `dataclasses` as an ordinary
    field, hence this plain base class and the assignments after the classes.
    """

    __slots__ = ()
    name: ClassVar[str]
    """The action's JSON `type`."""
    doc: ClassVar[str]
    """The action in a sentence, for clients: the class's docstring, which compiled classes do not keep."""


@dataclass(frozen=True, slots=True)
class Action(_Named):
    """An action: a small frozen record with a stable JSON form `{"type": name, "actor": …, …}`.

    Subclasses are frozen dataclasses that add their fields (strings or None) after `actor`; they do not declare
    `actor` again (compiled by mypyc, an inherited attribute declared again would look like a default), and
    write out their `__init__` (so that the compiled engine builds them in native code, see `events`).
    """

    actor: str
    """The id of the settler, robot or UFO that acts."""

    def to_json(self) -> dict[str, Any]:
        """The action as a JSON object."""
        out: dict[str, Any] = {"type": self.name}
        for name in field_names(type(self)):
            out[name] = getattr(self, name)
        return out

    def args(self) -> dict[str, str]:
        """The fields that say what the action is about (all but `actor`), leaving out those not given."""
        out: dict[str, str] = {}
        for name in field_names(type(self))[1:]:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        return out


@dataclass(slots=True)
class Choice:
    """One action the actor could take now: `refusal` is None when the rules accept it; `danger`, what it
    would set off (a drill's). A value, compared and hashed by its fields; nothing assigns to them after it is
    made."""

    action: Action
    refusal: Refusal | None
    danger: Danger | None

    def __init__(self, action: Action, refusal: Refusal | None, danger: Danger | None = None) -> None:
        # plain assignments, not a frozen record's `object.__setattr__`: a hub's choices make hundreds of these,
        # and in the pure build that was a fifth of their cost (compiled, either is native code)
        self.action = action
        self.refusal = refusal
        self.danger = danger

    def __hash__(self) -> int:
        return hash((self.action, self.refusal, self.danger))

    def to_json(self, refusal: dict[str, Any] | None = None) -> dict[str, Any]:
        """`{"action": name, …its arguments, "refusal": …}`, and `"danger"` when there is one. `refusal`: the
        refusal's JSON when the caller has it already."""
        action = self.action
        if refusal is None and self.refusal is not None:
            refusal = self.refusal.to_json()
        out: dict[str, Any] = {"action": action.name, **action.args(), "refusal": refusal}
        if self.danger is not None:
            out["danger"] = self.danger.to_json()
        return out


A = TypeVar("A", bound=Action)

FIELD_SORTS = ("thing", "new", "material")
"""What a field may name: an existing thing's id, the id of a thing the action makes, or a material kind."""


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field of an action's JSON form besides `type` and `actor`: a string, required or optional.

    `word` and `sort` say how the scenario language writes it (the placeholder of its usage, e.g. `X` in
    `move X`) and what it names (one of `FIELD_SORTS`); they are not part of the JSON form.
    """

    name: str
    required: bool
    meaning: str
    word: str
    sort: str

    def to_json(self) -> dict[str, Any]:
        """The field as a JSON object."""
        return {"name": self.name, "required": self.required, "meaning": self.meaning}


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """What a client needs to know of an action: its name, its fields, and which kinds of actor may do it."""

    name: str
    doc: str
    fields: tuple[FieldSpec, ...]
    actors: tuple[str, ...]
    key: str | None = None
    """The key of its button on the client's action bar (`Rule.key`); None: no button."""

    def to_json(self) -> dict[str, Any]:
        """The spec as a JSON object."""
        return {"name": self.name, "doc": self.doc, "fields": [f.to_json() for f in self.fields],
                "actors": list(self.actors), "key": self.key}


class Sink:
    """Where the one judging loop (`actions.judge`) puts its judgements: each candidate with its refusal (None:
    accepted) and its action's danger. `legal_actions` keeps the accepted actions, `choices` makes `Choice`
    objects, `choices_text` writes JSON text; none judges anything itself.

    `keeps_refused` and `wants_danger` are the sink's own data: a sink that keeps only accepted actions is not
    handed the candidates of a rule refused as a whole, and one that does not show dangers is not given them.
    """

    def __init__(self, keeps_refused: bool, wants_danger: bool) -> None:
        self.keeps_refused = keeps_refused
        self.wants_danger = wants_danger

    def rule(self, rule: Rule[Any]) -> None:
        """The rule whose candidates come next."""

    def take(self, action: Action, refusal: Refusal | None, danger: Danger | None) -> None:
        """One candidate and its judgement."""
        raise NotImplementedError

    def neighbours(self, rule: Rule[Any], actor: Actor, here: Asteroid, danger: Danger | None) -> None:
        """The candidates towards each neighbour of `here`, accepted (a rule's `to_neighbours`). A sink may
        write them faster than one by one; this is what it must amount to."""
        aid = actor.id
        for n in here.neighbours:
            self.take(rule.towards(aid, n), None, danger)


class ChoiceSink(Sink):
    """Makes a `Choice` of each judgement (`Game.choices`)."""

    def __init__(self) -> None:
        super().__init__(True, True)
        self.out: list[Choice] = []

    def take(self, action: Action, refusal: Refusal | None, danger: Danger | None) -> None:
        """The choice of `action`."""
        self.out.append(Choice(action, refusal, danger))


class LegalSink(Sink):
    """Keeps the accepted actions (`legal_actions`)."""

    def __init__(self) -> None:
        # the two flags set here rather than through `Sink.__init__`: a sink is made at every `legal_actions`
        self.keeps_refused = False
        self.wants_danger = False
        self.out: list[Action] = []

    def take(self, action: Action, refusal: Refusal | None, danger: Danger | None) -> None:
        """`action` when it is accepted."""
        if refusal is None:
            self.out.append(action)

    def neighbours(self, rule: Rule[Any], actor: Actor, here: Asteroid, danger: Danger | None) -> None:
        """Each one, accepted."""
        aid = actor.id
        out = self.out
        for n in here.neighbours:
            out.append(rule.towards(aid, n))


class Rule(Generic[A]):
    """The rules of one action. Subclasses set the class attributes and override what differs."""

    record: type[A]
    """The action's record class."""
    # class variables, so that the compiled classes take subclasses' tuples of other lengths
    actors: ClassVar[tuple[str, ...]] = ("settler",)
    """Kinds of actor that may do it (R11, R13, E2)."""
    verb: ClassVar[str]
    """The action in a few words, for the refusal `cannot_do`."""
    meanings: ClassVar[Mapping[str, str]] = MappingProxyType({})
    """What each field of the record besides `actor` holds, in a few words (for the spec)."""
    words: ClassVar[Mapping[str, tuple[str, str]]] = MappingProxyType({})
    """How the scenario language writes each field besides `actor`: its placeholder and its sort (`FIELD_SORTS`)."""
    offered: ClassVar[int]
    """Its place among the actions, which `Game.choices` lists (and the action spaces built on the specs
    number) in the order of this number: the engine's own take 10, 20, … so that a new one fits between."""
    key: ClassVar[str | None]
    """The key of its button on the client's action bar, one lowercase letter, or None for no button (a move is
    played on the map). Every action settlers take says it, each its own key (`actions` refuses to load
    otherwise, naming the module); `make protocol` writes the client's action table, its buttons in the order
    of `offered`, from the specs."""
    to_neighbours: ClassVar[bool] = False
    """A shortcut for speed, declared as data: the first candidates are one towards each neighbour of the actor's
    asteroid (`towards`), in `Asteroid.neighbours` order, and the rules accept them without a look (every
    neighbour exists: an explosion unlinks it). `candidates` gives the others. The judging loop
    (`actions.judge`) hands them to its sink as accepted; `refuse` must accept each of them too (the property
    tests compare both with `check`)."""

    def __init__(self) -> None:
        # the record's own fields decide the JSON shape: a field with a default may be left out
        record_fields = dataclass_fields(cast(Any, self.record))[1:]
        self.fields: tuple[FieldSpec, ...] = tuple(
            FieldSpec(f.name, f.default is MISSING, self.meanings[f.name], *self.words[f.name])
            for f in record_fields
        )
        """The fields of its JSON form besides `type` and `actor`, in the record's order."""

    @property
    def name(self) -> str:
        """The action's JSON `type`."""
        return self.record.name

    def spec(self) -> ActionSpec:
        """The action's public spec."""
        # an action only robots or UFOs take may leave `key` out (`actions` holds settlers' actions to it)
        key: str | None = getattr(self, "key", None)
        return ActionSpec(self.name, self.record.doc, self.fields, self.actors, key)

    def refuse(self, state: GameState, actor: Actor, here: Asteroid, action: A) -> Refusal | None:
        """Why the rules refuse `action` of an actor that may act now and may do this action, or None."""
        return None

    def may_accept(self, state: GameState, actor: Actor, here: Asteroid) -> bool:
        """False only when `refuse` would refuse every candidate now: a necessary condition, never a judgement.

        The judging loop asks it for a sink that keeps only accepted actions (`legal_actions`, which bots and
        the learning environments call at every decision), so that a rule refused as a whole costs one look
        instead of its candidates and their refusals. Whatever it lets through is still judged by `refuse`, so
        it can never accept an action; that it never hides one is held over random play by
        tests/rules/test_choices_properties.py (`choices(...).legal()`, which never asks it, equals
        `legal_actions`). True (no shortcut) unless a rule says otherwise."""
        return True

    def perform(self, state: GameState, actor: Actor, here: Asteroid, action: A, events: list[Event]) -> None:
        """Carry out an accepted action, appending the events it causes."""
        raise NotImplementedError

    def candidates(self, state: GameState, actor: Actor, here: Asteroid | None) -> list[A]:
        """Every action of this kind the actor could be offered now, legal or not, in a stable order (after the
        neighbours' of a rule that declares `to_neighbours`): the judging loop refuses each with `refuse`.

        `here` is None for an actor that is nowhere (dead or destroyed).
        """
        raise NotImplementedError

    def towards(self, actor: str, asteroid: str) -> A:
        """The candidate towards a neighbouring asteroid, for a rule that declares `to_neighbours`."""
        raise NotImplementedError

    def danger(self, state: GameState, actor: Actor, here: Asteroid | None) -> Danger | None:
        """A hint for the player: what this action would set off (only `drill` has one)."""
        return None
