"""Statements of the scenario language and the parser that reads them from lines (SCENARIO.md)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ..rules import REFUSAL_CODES
from ..rules.materials import CARGO_LIMIT, CORES, KINDS
from ..rules.options import OptionError, parse_option
from ..rules.orbit import Orbit
from ..texts import refusal_text
from .lexer import Line, ScriptError, a_kind, check_id, tokenize, whole_number
from .words import FIRST_WORDS, choose

OPS = ("==", "!=", "<", "<=", ">", ">=", "in")
"""The comparison operators of `expect`."""



@dataclass(frozen=True, slots=True)
class Statement:
    """Base of every statement: where it was written and its text."""

    line: int
    text: str


@dataclass(frozen=True, slots=True)
class Rules(Statement):
    """`rules classic|extended`."""

    preset: str


@dataclass(frozen=True, slots=True)
class SetOption(Statement):
    """`set KEY VALUE` (the value is checked here and kept as written)."""

    key: str
    value: str


@dataclass(frozen=True, slots=True)
class Seed(Statement):
    """`seed N`."""

    seed: int


@dataclass(frozen=True, slots=True)
class NewAsteroid(Statement):
    """`asteroid ID [mantle=N] [core=CORE] [sun=near|far] [orbit=P/K/F]`."""

    id: str
    mantle: int = 3
    core: str = "hollow"
    sun: str | None = "far"
    orbit: Orbit | None = None


@dataclass(frozen=True, slots=True)
class Link(Statement):
    """`link A B [C ...]`."""

    first: str
    others: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NewSettler(Statement):
    """`settler ID at=A [carry=KIND:N,…]`."""

    id: str
    at: str
    cargo: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class NewMachine(Statement):
    """`robot ID at=A [ai=on|off]` or `ufo ID at=A [ai=on|off]` (`kind` is `robot` or `ufo`)."""

    kind: str
    id: str
    at: str
    ai: bool = True


@dataclass(frozen=True, slots=True)
class SetAi(Statement):
    """`ai ID on|off`."""

    id: str
    on: bool


@dataclass(frozen=True, slots=True)
class NewGates(Statement):
    """`gates G1=WHERE G2=WHERE`."""

    first: str
    first_where: str
    second: str
    second_where: str


@dataclass(frozen=True, slots=True)
class Do(Statement):
    """`[reject[=CODE]] do ACTOR ACTION [ARGS]`; `action` is the first word of the action's name, `args` the
    words after it (`words.choose` tells the action and its fields' values)."""

    actor: str
    action: str
    args: tuple[str, ...]
    reject: bool = False
    code: str | None = None
    """With `reject=CODE`: the refusal code the rules must give."""


@dataclass(frozen=True, slots=True)
class EndRound(Statement):
    """`end-round`."""


@dataclass(frozen=True, slots=True)
class Sun(Statement):
    """`sun A near|far`."""

    asteroid: str
    near: bool


@dataclass(frozen=True, slots=True)
class Storm(Statement):
    """`storm A [B ...]`."""

    asteroids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Forecast(Statement):
    """`forecast ROUND A [B ...]`."""

    round: int
    asteroids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Expect(Statement):
    """`expect PATH OP VALUE`; `path` is the path cut at its dots."""

    path: tuple[str, ...]
    op: str
    value: str


@dataclass(frozen=True, slots=True)
class Show(Statement):
    """`show [ID]`."""

    target: str | None


def parse(source: str) -> Iterator[Statement]:
    """Every statement of `source` in order; raises ScriptError (with the line) at the first bad one."""
    for line in tokenize(source):
        yield parse_line(line)


def parse_line(line: Line) -> Statement:
    """The statement written on `line`; raises ScriptError naming the problem."""
    head, *rest = line.words
    if head.startswith("reject="):
        return _reject(line, rest, head.removeprefix("reject="))
    handler = _HANDLERS.get(head)
    if handler is None:
        raise ScriptError(f"unknown statement {head!r}", line.number)
    return handler(line, rest)


def _error(line: Line, message: str) -> ScriptError:
    return ScriptError(message, line.number)


def _split_options(line: Line, words: list[str], allowed: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
    """Positional words and `key=value` options (any order after the positional words)."""
    positional: list[str] = []
    options: dict[str, str] = {}
    for word in words:
        if "=" not in word:
            if options:
                raise _error(line, f"{word!r} must come before the key=value options")
            positional.append(word)
            continue
        key, value = word.split("=", 1)
        if key not in allowed:
            known = ", ".join(allowed) if allowed else "none"
            raise _error(line, f"unknown option {key!r} for {line.words[0]} (known: {known})")
        if key in options:
            raise _error(line, f"option {key!r} given twice")
        if not value:
            raise _error(line, f"option {key!r} has no value")
        options[key] = value
    return positional, options


def _count(line: Line, words: list[str], expected: int, usage: str) -> None:
    if len(words) != expected:
        raise _error(line, f"expected: {usage}")


def _on_off(line: Line, word: str, what: str) -> bool:
    if word not in ("on", "off"):
        raise _error(line, f"{what} must be on or off, not {word!r}")
    return word == "on"


def _rules(line: Line, words: list[str]) -> Statement:
    _count(line, words, 1, "rules classic|extended")
    if words[0] not in ("classic", "extended"):
        raise _error(line, f"unknown rules preset {words[0]!r} (expected classic or extended)")
    return Rules(line.number, line.text, words[0])


def _set(line: Line, words: list[str]) -> Statement:
    _count(line, words, 2, "set KEY VALUE")
    try:
        parse_option(words[0], words[1])
    except OptionError as exc:
        raise _error(line, str(exc)) from None
    return SetOption(line.number, line.text, words[0], words[1])


def _seed(line: Line, words: list[str]) -> Statement:
    _count(line, words, 1, "seed N")
    return Seed(line.number, line.text, whole_number(words[0], "the seed", line.number))


def _asteroid(line: Line, words: list[str]) -> Statement:
    positional, opts = _split_options(line, words, ("mantle", "core", "sun", "orbit"))
    _count(line, positional, 1, "asteroid ID [mantle=N] [core=CORE] [sun=near|far] [orbit=P/K/F]")
    ident = check_id(positional[0], line.number)
    mantle = whole_number(opts.get("mantle", "3"), "mantle", line.number)
    core = opts.get("core", "hollow")
    if core not in CORES:
        raise _error(line, f"core must be one of {', '.join(CORES)}, not {core!r}")
    sun: str | None = opts.get("sun", "far")
    if sun not in ("near", "far"):
        raise _error(line, f"sun must be near or far, not {sun!r}")
    orbit = None
    if "orbit" in opts:
        sun = None
        if "sun" in opts:
            raise _error(line, "give either sun= or orbit=, not both")
        try:
            orbit = Orbit.parse(opts["orbit"])
        except ValueError as exc:
            raise _error(line, str(exc)) from None
    return NewAsteroid(line.number, line.text, ident, mantle, core, sun, orbit)


def _link(line: Line, words: list[str]) -> Statement:
    _, _opts = _split_options(line, words, ())
    if len(words) < 2:
        raise _error(line, "expected: link A B [C ...]")
    ids = [check_id(w, line.number) for w in words]
    return Link(line.number, line.text, ids[0], tuple(ids[1:]))


def _cargo(line: Line, text: str) -> dict[str, int]:
    cargo: dict[str, int] = {}
    for item in text.split(","):
        kind, sep, count = item.partition(":")
        if not sep or kind not in KINDS:
            raise _error(line, f"carry must be KIND:N,… with KIND one of {', '.join(KINDS)}, not {item!r}")
        if kind in cargo:
            raise _error(line, f"carry names {kind} twice")
        cargo[kind] = whole_number(count, f"carry of {kind}", line.number)
    total = sum(cargo.values())
    if total > CARGO_LIMIT:
        raise _error(line, f"a settler carries at most {CARGO_LIMIT} units, not {total}")
    return cargo


def _settler(line: Line, words: list[str]) -> Statement:
    positional, opts = _split_options(line, words, ("at", "carry"))
    _count(line, positional, 1, "settler ID at=A [carry=KIND:N,…]")
    ident = check_id(positional[0], line.number)
    if "at" not in opts:
        raise _error(line, "a settler needs at=ASTEROID")
    at = check_id(opts["at"], line.number)
    cargo = _cargo(line, opts["carry"]) if "carry" in opts else {}
    return NewSettler(line.number, line.text, ident, at, cargo)


def _machine(line: Line, words: list[str]) -> Statement:
    kind = line.words[0]
    positional, opts = _split_options(line, words, ("at", "ai"))
    _count(line, positional, 1, f"{kind} ID at=A [ai=on|off]")
    ident = check_id(positional[0], line.number)
    if "at" not in opts:
        raise _error(line, f"{a_kind(kind)} needs at=ASTEROID")
    at = check_id(opts["at"], line.number)
    ai = _on_off(line, opts.get("ai", "on"), "ai")
    return NewMachine(line.number, line.text, kind, ident, at, ai)


def _ai(line: Line, words: list[str]) -> Statement:
    _count(line, words, 2, "ai ID on|off")
    return SetAi(line.number, line.text, check_id(words[0], line.number), _on_off(line, words[1], "ai"))


def _gates(line: Line, words: list[str]) -> Statement:
    usage = "gates G1=WHERE G2=WHERE"
    _count(line, words, 2, usage)
    pairs = []
    for word in words:
        gate, sep, where = word.partition("=")
        if not sep or not where:
            raise _error(line, f"expected: {usage}")
        pairs.append((check_id(gate, line.number), check_id(where, line.number)))
    if pairs[0][0] == pairs[1][0]:
        raise _error(line, "the two gates of a pair need two different ids")
    return NewGates(line.number, line.text, pairs[0][0], pairs[0][1], pairs[1][0], pairs[1][1])


def _do(line: Line, words: list[str], reject: bool = False, code: str | None = None) -> Statement:
    usage = "do ACTOR ACTION [ARGS]"
    if len(words) < 2:
        raise _error(line, f"expected: {usage}")
    actor, action, *args = words
    check_id(actor, line.number)
    family = FIRST_WORDS.get(action)
    if family is None:
        raise _error(line, f"unknown action {action!r} (known: {', '.join(FIRST_WORDS)})")
    chosen = choose(action, args)
    if chosen is None:
        # several actions share this first word (`build robot`, `build gates`): the next words choose one
        raise _error(line, "expected: " + " or ".join(a.usage() for a in family))
    found, values = chosen
    if len(values) not in found.counts():
        what = f"{action} expects: " if len(family) == 1 else "expected: "
        raise _error(line, what + found.usage())
    pairs = list(zip(found.spec.fields, values, strict=False))
    new_ids = [word for spec, word in pairs if spec.sort == "new"]
    for index, word in enumerate(new_ids):
        if word in new_ids[:index]:
            # the rules' own words for one new id given twice
            raise _error(line, refusal_text("bad_id", {"actor": actor, "problem": "same", "id": word}))
    for spec, word in pairs:
        if spec.sort == "material" and word not in KINDS:
            raise _error(line, f"{' '.join(found.words)} needs a material kind ({', '.join(KINDS)}), not {word!r}")
        if spec.sort in ("thing", "new"):
            check_id(word, line.number)
    return Do(line.number, line.text, actor, action, tuple(args), reject, code)


def _reject(line: Line, words: list[str], code: str | None = None) -> Statement:
    usage = "reject do ACTOR ACTION [ARGS]" if code is None else "reject=CODE do ACTOR ACTION [ARGS]"
    if code is not None and code not in REFUSAL_CODES:
        what = f"unknown refusal code {code!r}" if code else "reject= needs a refusal code"
        raise _error(line, f"{what} (known: {', '.join(REFUSAL_CODES)})")
    if not words or words[0] != "do":
        raise _error(line, f"expected: {usage}")
    return _do(line, words[1:], reject=True, code=code)


def _end_round(line: Line, words: list[str]) -> Statement:
    _count(line, words, 0, "end-round")
    return EndRound(line.number, line.text)


def _sun(line: Line, words: list[str]) -> Statement:
    _count(line, words, 2, "sun A near|far")
    if words[1] not in ("near", "far"):
        raise _error(line, f"sun must be near or far, not {words[1]!r}")
    return Sun(line.number, line.text, check_id(words[0], line.number), words[1] == "near")


def _storm(line: Line, words: list[str]) -> Statement:
    if not words:
        raise _error(line, "expected: storm A [B ...]")
    return Storm(line.number, line.text, tuple(check_id(w, line.number) for w in words))


def _forecast(line: Line, words: list[str]) -> Statement:
    if len(words) < 2:
        raise _error(line, "expected: forecast ROUND A [B ...]")
    round_no = whole_number(words[0], "the round", line.number, minimum=1)
    return Forecast(line.number, line.text, round_no, tuple(check_id(w, line.number) for w in words[1:]))


def _expect(line: Line, words: list[str]) -> Statement:
    usage = "expect PATH OP VALUE"
    _count(line, words, 3, usage)
    path, op, value = words
    if op not in OPS:
        raise _error(line, f"unknown operator {op!r} (known: {' '.join(OPS)})")
    parts = tuple(path.split("."))
    if len(parts) < 2 or not all(parts):
        raise _error(line, f"a path is ID.FIELD or game.FIELD, not {path!r}")
    return Expect(line.number, line.text, parts, op, value)


def _show(line: Line, words: list[str]) -> Statement:
    if len(words) > 1:
        raise _error(line, "expected: show [ID]")
    return Show(line.number, line.text, words[0] if words else None)


_HANDLERS = {
    "rules": _rules,
    "set": _set,
    "seed": _seed,
    "asteroid": _asteroid,
    "link": _link,
    "settler": _settler,
    "robot": _machine,
    "ufo": _machine,
    "ai": _ai,
    "gates": _gates,
    "do": _do,
    "reject": _reject,
    "end-round": _end_round,
    "sun": _sun,
    "storm": _storm,
    "forecast": _forecast,
    "expect": _expect,
    "show": _show,
}
