"""Every refusal the rules can give (R9a, R11, R13, R16a, E2): its stable code, what it means, the names of the
values its sentence needs, and the English sentence as a template.

Codes and parameter names are part of the public interface: clients, bots and scenario files match on codes,
and a client translates a refusal from its code and parameters alone. The English sentence (`Refusal.message`)
is rendered from the template here, for the command line, scripts and logs.

A template is plain text with these marks:

- `{name}` — the value of parameter `name`;
- `{name=value}` — a guard: the template applies only when parameter `name` equals `value` (renders nothing);
- `{name?}` — a guard: the template applies only when parameter `name` is given (renders nothing);
- `[...]` — an optional part, rendered only when every parameter it names is given; a `, ` opening the first
  optional part rendered in a row is dropped, so that lists read naturally.

A code may have several templates: the first whose plain `{name}`s and guards outside optional parts are all
satisfied is used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .materials import KINDS

ParamValue = str | int
"""The value of a refusal's parameter."""


@dataclass(frozen=True, slots=True)
class RefusalKind:
    """One refusal code: what it means, its parameters (required, then optional) and its English templates."""

    code: str
    meaning: str
    params: tuple[str, ...]
    optional: tuple[str, ...]
    templates: tuple[str, ...]


_MISSING = "".join(f"[, {{{k}}} {k}]" for k in KINDS)

REFUSAL_KINDS: dict[str, RefusalKind] = {
    k.code: k
    for k in (
        RefusalKind("game_over", "the game has been won or lost (R16a)", ("status",), (),
                    ("the game is over: it was {status}",)),
        RefusalKind("unknown_actor", "no such settler, robot or UFO", ("actor",), (),
                    ("there is no {actor} in this game",)),
        RefusalKind("not_an_actor", "asteroids and gates do not act", ("actor", "kind"), (),
                    ("{kind=asteroid}{actor} is an asteroid: only settlers, robots and UFOs act",
                     "{actor} is a {kind}: only settlers, robots and UFOs act")),
        RefusalKind("dead", "the actor is dead or destroyed", ("actor", "kind"), (),
                    ("{kind=settler}{actor} is dead", "{actor} is destroyed")),
        RefusalKind("not_your_turn", "strict turns: another settler's step (R9a)", ("actor", "turn"), (),
                    ("it is {turn}'s turn, not {actor}'s",)),
        RefusalKind("cannot_do", "this kind of actor cannot do this action (R11, R13, E2)",
                    ("actor", "kind", "action"), ("gate",),
                    ("{gate?}{actor} cannot travel through gate {gate}: UFOs never travel through gates",
                     "{kind=ufo}{actor} cannot {action}: UFOs never do",
                     "{kind=robot}{actor} cannot {action}: robots never do",
                     "{actor} cannot {action}")),
        RefusalKind("no_such_target", "the target is neither an asteroid nor a gate", ("actor", "target"), (),
                    ("{target} is neither an asteroid nor a gate",)),
        RefusalKind("exploded", "the target asteroid has exploded", ("actor", "target"), (),
                    ("{target} has exploded",)),
        RefusalKind("not_neighbour", "the target asteroid is not a neighbour", ("actor", "target", "asteroid"), (),
                    ("{actor} cannot move to {target}: it is not a neighbour of {asteroid}",)),
        RefusalKind("gate_destroyed", "the gate has been destroyed", ("actor", "gate"), (),
                    ("gate {gate} has been destroyed",)),
        RefusalKind("gate_elsewhere", "the gate does not orbit the actor's asteroid", ("actor", "gate", "asteroid"),
                    (), ("gate {gate} does not orbit {asteroid}",)),
        RefusalKind("gate_inactive", "the gate's partner is not placed", ("actor", "gate", "partner"), (),
                    ("gate {gate} is not active: its partner {partner} is not placed",)),
        RefusalKind("drilled_through", "the mantle is already 0", ("actor", "asteroid"), (),
                    ("{actor} cannot drill {asteroid}: it is already drilled through",)),
        RefusalKind("mantle_left", "the mantle is not drilled through", ("actor", "asteroid", "mantle"), ("kind",),
                    ("{kind?}{actor} cannot deposit {kind} into {asteroid}: it is not drilled through "
                     "({mantle} of mantle left)",
                     "{mantle=1}{actor} cannot mine {asteroid}: 1 layer of mantle left",
                     "{actor} cannot mine {asteroid}: {mantle} layers of mantle left")),
        RefusalKind("core_hollow", "the core is hollow", ("actor", "asteroid"), (),
                    ("{actor} cannot mine {asteroid}: its core is hollow",)),
        RefusalKind("cargo_full", "the cargo hold is full", ("actor", "limit"), (),
                    ("{actor} cannot mine: the cargo hold is full ({limit} units)",)),
        RefusalKind("no_such_material", "not a material kind", ("actor", "kind"), (),
                    ("{kind} is not a material (ice, iron, carbon, uranium)",)),
        RefusalKind("core_not_hollow", "the core is not hollow", ("actor", "asteroid", "core"), (),
                    ("{actor} cannot deposit into {asteroid}: its core holds {core}",)),
        RefusalKind("not_carried", "the settler carries no unit of that kind", ("actor", "kind"), (),
                    ("{actor} carries no {kind}",)),
        RefusalKind("missing_materials", "not enough materials in the cargo: the units lacking, by kind",
                    ("actor", "build"), KINDS,
                    ("{build=robot}{actor} cannot build a robot: needs " + _MISSING + " more",
                     "{actor} cannot build a gate pair: needs " + _MISSING + " more")),
        RefusalKind("carries_gates", "the settler already carries gates", ("actor", "gates"), (),
                    ("{actor} cannot build gates while carrying {gates} of them",)),
        RefusalKind("bad_id", "a new id is not a valid id, is reserved or taken, or the pair's ids are wrong "
                    "(`problem`: invalid, reserved, taken, unpaired, same)", ("actor", "problem"), ("id",),
                    ("{problem=invalid}{id!r} is not a valid id (a letter, then letters, digits, '_' or '-')",
                     "{problem=reserved}{id!r} is reserved and cannot be an id",
                     "{problem=taken}{id} is already taken",
                     "{problem=unpaired}name both gates of the pair, or neither",
                     "the two gates of a pair need two different ids")),
        RefusalKind("gate_not_carried", "the settler does not carry that gate", ("actor", "gate"), (),
                    ("{actor} does not carry {gate}",)),
        RefusalKind("partner_here", "the gate's partner already orbits this asteroid",
                    ("actor", "gate", "partner", "asteroid"), (),
                    ("{gate}'s partner {partner} already orbits {asteroid}",)),
        RefusalKind("turns_strict", "rounds end by themselves in strict turns", (), (),
                    ("in strict turns the round ends by itself after the last step",)),
    )
}
"""Every refusal code, in the order the rules check them."""

REFUSAL_CODES: dict[str, str] = {code: kind.meaning for code, kind in REFUSAL_KINDS.items()}
"""Every refusal code with what it means."""

_MARK = re.compile(r"\{(\w+)(!r)?(?:(=)(\w*)|(\?))?\}")
_PART = re.compile(r"\[([^\]]*)\]")


# A template is parsed once (the regular expressions run on its text, never on the params): every refusal the
# engine offers is rendered, and a server renders thousands of different ones a second.
Guard = tuple[str, bool, str]
"""A mark of a template checked by `_fits`: its parameter's name, whether it asks for a value, that value."""
Piece = str | tuple[str, bool]
"""A piece of a filled text: literal text, or a parameter's name and whether it is written with `repr`."""

_guards: dict[str, tuple[Guard, ...]] = {}
_pieces: dict[str, tuple[Piece, ...]] = {}
_layouts: dict[str, tuple[tuple[bool, str], ...]] = {}


def _guards_of(text: str) -> tuple[Guard, ...]:
    found = _guards.get(text)
    if found is None:
        found = _guards[text] = tuple((m.group(1), bool(m.group(3)), m.group(4) or "")
                                      for m in _MARK.finditer(_PART.sub("", text)))
    return found


def _fits(text: str, params: Mapping[str, ParamValue]) -> bool:
    """Every parameter and guard of `text` (optional parts aside) is satisfied by `params`."""
    return all(name in params and (not eq or str(params[name]) == value) for name, eq, value in _guards_of(text))


def _pieces_of(text: str) -> tuple[Piece, ...]:
    found = _pieces.get(text)
    if found is None:
        out: list[Piece] = []
        pos = 0
        for m in _MARK.finditer(text):
            if m.start() > pos:
                out.append(text[pos:m.start()])
            if not (m.group(3) or m.group(5)):  # a guard writes nothing
                out.append((m.group(1), bool(m.group(2))))
            pos = m.end()
        if pos < len(text):
            out.append(text[pos:])
        found = _pieces[text] = tuple(out)
    return found


def _fill(text: str, params: Mapping[str, ParamValue]) -> str:
    out: list[str] = []
    for piece in _pieces_of(text):
        if isinstance(piece, str):
            out.append(piece)
        else:
            value = params[piece[0]]
            out.append(repr(value) if piece[1] else str(value))
    return "".join(out)


def render(code: str, params: Mapping[str, ParamValue]) -> str:
    """The English sentence of a refusal (see the module's notes on templates)."""
    kind = REFUSAL_KINDS.get(code)
    if kind is None:
        return code
    template = next((t for t in kind.templates if _fits(t, params)), kind.templates[-1])
    try:
        return _render(template, params)
    except KeyError:  # a refusal made by hand without all its parameters: say at least what it is
        return f"{code}: {kind.meaning}"


def _layout(template: str) -> tuple[tuple[bool, str], ...]:
    """The template cut into its fixed texts and optional parts (`[...]`), in order: (is a part, text)."""
    found = _layouts.get(template)
    if found is None:
        out: list[tuple[bool, str]] = []
        pos = 0
        for m in _PART.finditer(template):
            if m.start() > pos:
                out.append((False, template[pos:m.start()]))
            out.append((True, m.group(1)))
            pos = m.end()
        out.append((False, template[pos:]))
        found = _layouts[template] = tuple(out)
    return found


def _render(template: str, params: Mapping[str, ParamValue]) -> str:
    out: list[str] = []
    in_row = False
    for optional, text in _layout(template):
        if not optional:
            out.append(_fill(text, params))
            in_row = False
        elif _fits(text, params):
            filled = _fill(text, params)
            out.append(filled[2:] if not in_row and filled.startswith(", ") else filled)
            in_row = True
    return "".join(out)
