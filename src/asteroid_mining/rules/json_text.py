"""The engine's one serialisation module: compact JSON text written directly, a writer per type, for what the
server sends after every action (`Game.choices_text`).

The text is exactly what orjson writes for the same value's `to_json()` (`orjson.dumps(value.to_json())`): no
spaces, keys in insertion order, UTF-8 as is, only `"`, `\\` and control characters escaped. Writing it here,
in the compiled engine, spares the server the dicts it would otherwise build only to encode them. The records
(actions, refusals, choices, dangers, reactions, storms) know their JSON form (`to_json`) and nothing of text;
everything about text is here:

- the pieces of JSON text that recur (ids, codes, keys and what surrounds them) are made once and kept: ids,
  codes and parameter names come back after every action;
- an action's head is written from a table made once per record class (its `name` and fields), so that a new
  action needs no writer of its own;
- a refusal is written as its values between pieces made once per shape (`RefusalShape`), and a refused
  choice's whole tail is kept by its values;
- the moves to an asteroid's neighbours are kept as one text on the asteroid (`Asteroid.moves_text`), which
  the asteroid's own link methods forget whenever its links change.

Writers append pieces to a list that is joined once at the end. `choices_text` runs the one judging loop
(`actions.judge`) with a sink that writes each judgement as it is made, instead of making `Choice` objects
first.
"""

from __future__ import annotations

import json
from typing import Any, Final, cast

from .actions import RULES, Action, actor_refusal, judge
from .actions.base import Actor, Choice, Rule, Sink
from .choices import Choices, StormOutlook, choices, reactions_near, storms_ahead
from .dangers import Danger, Reaction
from .errors import Refusal, RefusalShape
from .records import field_names
from .refusals import ParamValue
from .state import Asteroid, GameState, Robot, Settler, Ufo

# Final: compiled, a module's constants are C variables rather than a lookup in the module's dict each time
_LIMIT: Final = 1 << 16
"""Beyond this many entries a cache starts afresh (the ids of many belts pass through a long-running server)."""
_QUOTED: Final[dict[str, str]] = {}
"""Strings as JSON strings: `a7` -> `"a7"`."""
_NEXT: Final[dict[str, str]] = {}
"""A later member of an object, by key: `actor` -> `,"actor":`."""
_INTS: Final[tuple[str, ...]] = tuple(str(i) for i in range(256))
"""Small non-negative integers as text (rounds, counts, units)."""


# ----- strings and numbers --------------------------------------------------------------------------------

def quote(text: str) -> str:
    """`text` as a JSON string literal (escaped as orjson and `json.dumps(…, ensure_ascii=False)` escape it)."""
    quoted = _QUOTED.get(text)
    if quoted is None:
        quoted = _remember(_QUOTED, text, _quote(text))
    return quoted


def next_member(key: str) -> str:
    """`,` and `key` as a JSON string and `:`: what comes before the value of a later member `key`."""
    found = _NEXT.get(key)
    if found is None:
        found = _remember(_NEXT, key, "," + _quote(key) + ":")
    return found


def quoted_between(cache: dict[str, str], text: str, before: str, after: str) -> str:
    """`before`, `text` as a JSON string, `after`, kept in `cache` (one per pair of `before` and `after`)."""
    found = cache.get(text)
    if found is None:
        found = _remember(cache, text, before + _quote(text) + after)
    return found


def integer(number: int) -> str:
    """An integer as JSON text."""
    if 0 <= number < 256:
        return _INTS[number]
    return str(number)


def _remember(cache: dict[str, str], key: str, text: str) -> str:
    if len(cache) >= _LIMIT:
        cache.clear()
    cache[key] = text
    return text


def _quote(text: str) -> str:
    for ch in text:
        if ch < " " or ch == '"' or ch == "\\":
            # the rare text that needs escapes: the standard library escapes exactly the characters orjson does
            return json.dumps(text, ensure_ascii=False)
    return '"' + text + '"'


# ----- actions ----------------------------------------------------------------------------------------------

class _ActionText:
    """What a choice of one action record class is written with: `,{"action":NAME` (the comma that separates it
    from the choice before, then its name), and each argument's key."""

    def __init__(self, record: type[Action]) -> None:
        self.opener: Final = ',{"action":' + _quote(record.name)
        self.fields: Final = field_names(record)[1:]
        """The arguments (every field but `actor`), in order."""
        self.members: Final = tuple("," + _quote(name) + ":" for name in self.fields)
        self.single: Final = self.opener + self.members[0] if self.fields else self.opener
        """The opener and the one argument's key, for a record of one argument."""
        self.by_value: Final[dict[str, str]] = {}
        """The head of a record of one argument, by the argument: `,{"action":"move","target":"a7"`."""


_ACTIONS: Final[dict[type, _ActionText]] = {}


def _action_text(record: type) -> _ActionText:
    table = _ACTIONS.get(record)
    if table is None:
        table = _ACTIONS[record] = _ActionText(record)
    return table


def _write_head(out: list[str], table: _ActionText, action: Action) -> None:
    """Append `,{"action":NAME` and the arguments given (`Action.args`) as JSON text to `out`: how a choice's
    JSON text opens, after the comma that separates it from the one before (`table`: the action's class's)."""
    fields = table.fields
    if len(fields) == 1:
        value = getattr(action, fields[0])
        if value is None:
            out.append(table.opener)
        else:
            out.append(quoted_between(table.by_value, value, table.single, ""))
        return
    out.append(table.opener)
    for i in range(len(fields)):
        value = getattr(action, fields[i])
        if value is not None:
            out.append(table.members[i])
            out.append(quote(value))


# ----- refusals ---------------------------------------------------------------------------------------------

class _ShapeText:
    """The JSON text around the values of one refusal shape."""

    def __init__(self, shape: RefusalShape) -> None:
        keys = shape.keys
        self.head: Final = '{"code":' + _quote(shape.code) + ',"params":{' + (_quote(keys[0]) + ":" if keys else "")
        """`{"code":CODE,"params":{` and the first key with its colon: what opens the refusal's JSON text."""
        self.choice_head: Final = ',"refusal":' + self.head
        """What opens a choice's refusal, after its action: `,"refusal":` and `head`."""
        self.openers: Final = ("", *("," + _quote(key) + ":" for key in keys[1:]))
        """What comes before each value but the first: its comma, key and colon."""
        self.choice_texts: Final[dict[tuple[ParamValue, ...], str]] = {}
        """`refused_choice_tail` by the values, once written."""


_TEXTS_LIMIT: Final = 1024
"""Beyond this many texts a shape's `choice_texts` start afresh: a long-running server sees many games' ids."""


def _shape_text(shape: RefusalShape) -> _ShapeText:
    """The text around the values of `shape`, kept on the shape once made (`RefusalShape.text`: a shape is made
    once, and the writer's is its only use of it)."""
    found = shape.text
    if found is None:
        found = shape.text = _ShapeText(shape)
    return cast(_ShapeText, found)


def write_refusal(out: list[str], refusal: Refusal) -> None:
    """Append `refusal.to_json()` as JSON text to `out`, in pieces."""
    text = _shape_text(refusal.shape)
    out.append(text.head)
    _write_values(out, text, refusal.values)
    out.append("}}")


def refused_choice_tail(refusal: Refusal) -> str:
    """`,"refusal":`, the refusal's JSON text and the `}` that closes a choice without a danger: how a refused
    choice's JSON text ends. Kept by shape and values once written: a settler's refusals come back after every
    action (its cargo is short of a robot's every time, its asteroid's mantle is still there)."""
    text = _shape_text(refusal.shape)
    texts = text.choice_texts
    values = refusal.values
    found = texts.get(values)
    if found is None:
        out = [text.choice_head]
        plain = _write_values(out, text, values)
        out.append("}}}")
        found = "".join(out)
        if plain:  # a value True would be found under 1 (they are equal): such a one is not kept
            if len(texts) >= _TEXTS_LIMIT:
                texts.clear()
            texts[values] = found
    return found


def _write_values(out: list[str], text: _ShapeText, values: tuple[ParamValue, ...]) -> bool:
    """Append the values with the keys but the first (which the shape's heads end with); False when a value is
    a boolean."""
    openers = text.openers
    plain = True
    for i in range(len(values)):
        if i:
            out.append(openers[i])
        value = values[i]
        if isinstance(value, str):
            out.append(quote(value))
        elif isinstance(value, bool):  # True == 1: written as JSON's true, as orjson writes it
            out.append("true" if value else "false")
            plain = False
        else:
            out.append(integer(value))
    return plain


# ----- hints ------------------------------------------------------------------------------------------------

_DANGERS: Final[dict[str, str]] = {}
_REACTIONS: Final[dict[str, str]] = {}
"""What opens a danger's and a reaction's JSON text, by core: `{"core":"ice","in_rounds":`,
`{"core":"ice","effect":`."""


def write_danger(out: list[str], danger: Danger) -> None:
    """Append `danger.to_json()` as JSON text to `out`, in pieces."""
    out.append(quoted_between(_DANGERS, danger.core, '{"core":', ',"in_rounds":'))
    out.append(integer(danger.in_rounds))
    out.append("}")


def write_reaction(out: list[str], found: Reaction) -> None:
    """Append `found.to_json()` as JSON text to `out`, in pieces."""
    out.append(quoted_between(_REACTIONS, found.core, '{"core":', ',"effect":'))
    out.append(quote(found.effect))
    out.append(',"in_rounds":')
    out.append(integer(found.in_rounds))
    out.append("}")


def write_storm(out: list[str], storm: StormOutlook) -> None:
    """Append `storm.to_json()` as JSON text to `out`, in pieces."""
    out.append('{"round":')
    out.append(integer(storm.round))
    out.append(',"in_rounds":')
    out.append(integer(storm.in_rounds))
    out.append(',"in_path":true,"sheltered":' if storm.in_path else ',"in_path":false,"sheltered":')
    out.append("true}" if storm.sheltered else "false}")


# ----- choices ----------------------------------------------------------------------------------------------

def write_choice(out: list[str], action: Action, refusal: Refusal | None, danger: Danger | None) -> None:
    """Append a comma and the JSON text of the choice of `action` (`Choice.to_json()`) to `out`, in pieces.
    Choices are written in lists: the writer of a list drops the first one's comma."""
    _write_choice(out, _action_text(type(action)), action, refusal, danger)


def _write_choice(out: list[str], table: _ActionText, action: Action, refusal: Refusal | None,
                  danger: Danger | None) -> None:
    """`write_choice` with the table of the action's class at hand."""
    _write_head(out, table, action)
    if refusal is None:
        out.append(',"refusal":null}' if danger is None else ',"refusal":null')
    elif danger is None:
        out.append(refused_choice_tail(refusal))
    else:
        text = _shape_text(refusal.shape)
        out.append(text.choice_head)
        _write_values(out, text, refusal.values)
        out.append("}}")
    if danger is not None:
        out.append(',"danger":')
        write_danger(out, danger)
        out.append("}")


_NEIGHBOUR_MOVES: Final[dict[str, str]] = {}
"""The JSON text of an accepted move, after its comma, by target: `,{"action":"move","target":"a7","refusal":null}`."""
_TABLES: Final[dict[Rule[Any], _ActionText]] = {rule: _action_text(rule.record) for rule in RULES}
"""The text of each rule's record class, its candidates' class: made once, so that writing a settler's choices
looks nothing up by class."""
_NEIGHBOURS_KEPT: Final = tuple(rule for rule in RULES if rule.to_neighbours)[:1]
"""The rule whose candidates towards the neighbours are kept as text on the asteroid (`Asteroid.moves_text`
holds one text: the moves')."""


class _TextSink(Sink):
    """Writes each judgement of the judging loop (`actions.judge`) as JSON text, without a `Choice` in between."""

    def __init__(self, out: list[str]) -> None:
        super().__init__(True, True)
        self.out = out
        self.table: _ActionText | None = None

    def rule(self, rule: Rule[Any]) -> None:
        """The text of the rule's record class."""
        self.table = _TABLES[rule]

    def take(self, action: Action, refusal: Refusal | None, danger: Danger | None) -> None:
        """The choice of `action`, after its comma."""
        table = self.table
        assert table is not None
        _write_choice(self.out, table, action, refusal, danger)

    def neighbours(self, rule: Rule[Any], actor: Actor, here: Asteroid, danger: Danger | None) -> None:
        """The moves to the neighbours, which the rules accept without a look: the same text whoever makes them,
        kept on the asteroid once written (`Asteroid.moves_text`) until its links change."""
        table = self.table
        assert table is not None
        if danger is not None or rule not in _NEIGHBOURS_KEPT:
            super().neighbours(rule, actor, here, danger)
            return
        moves = here.moves_text
        if moves is None:
            moves = here.moves_text = "".join([
                quoted_between(_NEIGHBOUR_MOVES, n, table.single, ',"refusal":null}') for n in here.neighbours
            ])
        if moves:  # each choice is written after its comma: an empty piece would take the first one's
            self.out.append(moves)


_SETTLERS: Final[dict[str, str]] = {}
"""What opens the choices' JSON text, by actor: `{"settler":"s1","round":`."""
_MEMBERS: Final[dict[str, str]] = {}
_LATER: Final[dict[str, str]] = {}
"""An asteroid's id as the first or a later key of `reactions`: `"a7":`, `,"a7":`."""


def choices_text(state: GameState, actor_id: str) -> str | None:
    """`choices(state, actor_id).to_json()` as JSON text, or None when the actor cannot act now
    (`actor_refusal`). KeyError as `choices`.

    Written as the choices are judged, without the `Choice` objects in between: the server asks this after
    every action, and making the objects only to write them out was half the cost.
    """
    actor = state.things.get(actor_id)
    if not isinstance(actor, (Settler, Robot, Ufo)):
        raise KeyError(f"there is no settler, robot or UFO {actor_id} in this game")
    if actor_refusal(state, actor_id) is not None:
        return None
    if actor.at is None:  # not for a living actor; `choices` says what such a one could do
        return choices_to_text(choices(state, actor_id))
    here = state.asteroids[actor.at]
    out = [quoted_between(_SETTLERS, actor_id, '{"settler":', ',"round":'), integer(state.round),
           ',"refusal":null,"choices":[']
    start = len(out)
    judge(state, actor, None, None, _TextSink(out))
    if len(out) > start:
        out[start] = out[start][1:]  # each choice is written after a comma: not the first
    _write_hints(out, reactions_near(state, here), storms_ahead(state, here))
    return "".join(out)


def choices_to_text(made: Choices) -> str:
    """`made.to_json()` as JSON text (`choices_text` writes the same without making the choices first)."""
    out = [quoted_between(_SETTLERS, made.settler, '{"settler":', ',"round":'), integer(made.round)]
    if made.refusal is None:
        out.append(',"refusal":null,"choices":[')
    else:
        out.append(',"refusal":')
        write_refusal(out, made.refusal)
        out.append(',"choices":[')
    start = len(out)
    for c in made.choices:
        write_choice(out, c.action, c.refusal, c.danger)
    if len(out) > start:
        out[start] = out[start][1:]  # each choice is written after a comma: not the first
    _write_hints(out, made.reactions, made.storms)
    return "".join(out)


def choice_to_text(choice: Choice) -> str:
    """`choice.to_json()` as JSON text."""
    out: list[str] = []
    write_choice(out, choice.action, choice.refusal, choice.danger)
    return "".join(out)[1:]


def refusal_to_text(refusal: Refusal) -> str:
    """`refusal.to_json()` as JSON text."""
    out: list[str] = []
    write_refusal(out, refusal)
    return "".join(out)


def _write_hints(out: list[str], reactions: dict[str, Reaction], storms: tuple[StormOutlook, ...]) -> None:
    """Close the choices' list and append `reactions` and `storms` as JSON text (what ends the choices' text)."""
    out.append('],"reactions":{')
    first = True
    for aid, found in reactions.items():
        out.append(quoted_between(_MEMBERS, aid, "", ":") if first else quoted_between(_LATER, aid, ",", ":"))
        first = False
        write_reaction(out, found)
    out.append('},"storms":[')
    first = True
    for storm in storms:
        if not first:
            out.append(",")
        first = False
        write_storm(out, storm)
    out.append("]}")
