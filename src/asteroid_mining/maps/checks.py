"""The belt checks made in code: every element of the big arrays, every id, and what a schema cannot say.

Each check appends `Problem`s and goes on, so that one reading of a file reports everything that is wrong
with it. The checks are written for speed (one pass per array, no per-element jsonschema): a huge belt's
20,000 asteroids and hundreds of thousands of links are checked in a fraction of a second.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from itertools import chain
from operator import itemgetter
from typing import Any, Literal

import numpy as np

from ..rules import ENGINE
from ..rules.belt import AsteroidSpec, GatePairSpec
from ..rules.bulk import resolve_pairs
from ..rules.ids import RESERVED
from ..rules.ids import id_problem as rules_id_problem
from ..rules.materials import CORES
from ..rules.orbit import Orbit
from .problems import Problem, json_path
from .schema import json_type

MAX_ID_LENGTH = 64
"""The longest id a belt may use."""
MAX_MANTLE = 1_000
"""The thickest mantle a belt may give an asteroid (the schema's `maximum`)."""
ORBIT_PATTERN = re.compile(r"[0-9]{1,6}/[0-9]{1,6}/[0-9]{1,6}", re.ASCII)
"""An orbit `P/K/F` as the schema's pattern has it: ASCII digits only (Python's `isdigit` would take `٣`), at
most six of them each."""
ASTEROID_FIELDS = frozenset(("id", "mantle", "core", "orbit", "position"))
"""The fields an asteroid object may have."""
GATE_FIELDS = ("first", "first_at", "second", "second_at")
"""The fields of a gate pair, in order."""
_GATE_FIELD_SET = frozenset(GATE_FIELDS)

_MISSING: Any = object()
_IDS_PATTERN = re.compile(r"(?:[A-Za-z][A-Za-z0-9_-]*\n)*", re.ASCII)
"""Valid ids, each followed by a newline: the rules' `ID_PATTERN` over a whole column of ids at once."""
_CORE_SET = frozenset(CORES)
_ID = itemgetter("id")


def id_problem(value: object) -> str | None:
    """Why `value` cannot be an id in a belt file, as a sentence, or None when it can.

    The rules' own id check (syntax, reserved words), plus what a file can get wrong besides: a value that is
    not a string, or an id too long for a player's screen.
    """
    if not isinstance(value, str):
        return f"an id must be a string, not {json_type(value)}"
    if len(value) > MAX_ID_LENGTH:
        return f"id {value[:20]!r}... is too long (at most {MAX_ID_LENGTH} characters)"
    return rules_id_problem(value)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_finite(value: float) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # a whole number too large for a float: no place in the plane either
        return False


@dataclass
class Checked:
    """What the checks collected: the problems, and the pieces of a belt when there are none."""

    problems: list[Problem] = field(default_factory=list)
    asteroids: list[AsteroidSpec] = field(default_factory=list)
    """The asteroids without a problem (all of them, when there is no problem)."""
    names: list[str] = field(default_factory=list)
    """The id of every asteroid declared with a valid, new id, in order."""
    index: dict[str, int] = field(default_factory=dict)
    """Asteroid id → position in `names`."""
    taken: dict[str, str | int] = field(default_factory=dict)
    """Every id declared (asteroids and gates share one namespace) → the path that declared it, or the index of
    the asteroid that did (`asteroids[i].id`: a huge belt's paths are written only when a problem needs one)."""
    links: list[tuple[str, str]] = field(default_factory=list)
    gates: list[GatePairSpec] = field(default_factory=list)

    def add(self, path: str, message: str) -> None:
        """Record one problem."""
        self.problems.append(Problem(path, message))

    def declare(self, value: object, path: str) -> bool:
        """Check a new id at `path`; True when it is valid and new (it is then taken)."""
        why = id_problem(value)
        if why is not None:
            self.add(path, why)
            return False
        assert isinstance(value, str)
        first = self.taken.get(value)
        if first is not None:
            where = first if isinstance(first, str) else f"asteroids[{first}].id"
            self.add(path, f"duplicate id {value!r} (already {where})")
            return False
        self.taken[value] = path
        return True

    def asteroid_ref(self, value: object, path: str) -> str | None:
        """Check a reference to an asteroid; its canonical id string, or None (the problem is recorded)."""
        if isinstance(value, str):
            at = self.index.get(value)
            if at is not None:
                return self.names[at]
            if value in self.taken:
                self.add(path, f"{value!r} is a gate, not an asteroid")
                return None
        why = id_problem(value)
        self.add(path, why if why is not None else f"{value!r} is not an asteroid of this belt")
        return None


def check_asteroids(items: list[Any], out: Checked) -> None:
    """Check every asteroid object; collect specs and declare their ids.

    A valid array (the common case) is checked column by column in bulk; any doubt sends it to the one-by-one
    check, which explains every problem with its path.
    """
    if not out.taken and _asteroids_in_bulk(items, out):
        return
    _check_asteroids_one_by_one(items, out)


def _asteroids_in_bulk(items: list[Any], out: Checked) -> bool:
    """Accept a whole array of valid asteroids at once, or change nothing and return False.

    Each column is checked with C-level passes (`map`, sets, one regular expression), strictly enough that
    anything accepted here has no problem one by one either, and gives the same specs.
    """
    if not items or set(map(type, items)) != {dict} or not all(map(ASTEROID_FIELDS.issuperset, items)):
        return False
    try:
        ids = list(map(_ID, items))
    except KeyError:
        return False
    if set(map(type, ids)) != {str} or max(map(len, ids)) > MAX_ID_LENGTH:
        return False
    column = "\n".join(ids) + "\n"
    if column.count("\n") != len(ids) or _IDS_PATTERN.fullmatch(column) is None or not RESERVED.isdisjoint(ids):
        return False
    index = dict(zip(ids, range(len(ids)), strict=True))
    if len(index) != len(ids):  # an id given twice
        return False
    mantles = [item.get("mantle", 3) for item in items]
    if set(map(type, mantles)) != {int} or min(mantles) < 0 or max(mantles) > MAX_MANTLE:
        return False
    cores = [item.get("core", "hollow") for item in items]
    if set(map(type, cores)) != {str} or not _CORE_SET.issuperset(cores):
        return False
    positions = [item.get("position", _MISSING) for item in items]
    xys: list[tuple[float, float] | None]
    if _MISSING in positions:
        if positions.count(_MISSING) != len(positions):
            return False
        xys = [None] * len(items)
    else:
        if set(map(type, positions)) != {list} or set(map(len, positions)) != {2}:
            return False
        flat = list(chain.from_iterable(positions))
        if not {int, float}.issuperset(map(type, flat)):
            return False
        try:
            if not all(map(math.isfinite, flat)):
                return False
        except OverflowError:  # a whole number too large for a float
            return False
        xs = list(map(float, flat))
        xys = list(zip(xs[0::2], xs[1::2], strict=True))
    raw = [item.get("orbit", _MISSING) for item in items]
    cache: dict[str, Orbit] = {}
    orbits: list[Orbit | None] = []
    suns: list[Literal["near", "far"]] = []
    scratch = Checked()
    for value in raw:
        if type(value) is str:
            known = cache.get(value)
            if known is not None:
                orbits.append(known)
                suns.append("far")
                continue
        orbit, sun = _orbit(value, "", cache, scratch)
        if sun is None:
            return False
        orbits.append(orbit)
        suns.append(sun)
    out.asteroids.extend(map(AsteroidSpec, ids, mantles, cores, orbits, suns, xys))
    out.names.extend(ids)
    out.index.update(index)  # (both were empty: copies of the table, not 100,000 insertions each)
    out.taken.update(index)
    return True


def _check_asteroids_one_by_one(items: list[Any], out: Checked) -> None:
    orbits: dict[str, Orbit] = {}
    positioned: list[int] = []
    unpositioned: list[int] = []
    for i, item in enumerate(items):
        path = f"asteroids[{i}]"
        if not isinstance(item, dict):
            out.add(path, f"an asteroid must be an object, not {json_type(item)}")
            continue
        ok = True
        if not ASTEROID_FIELDS.issuperset(item):
            for name in item:
                if name not in ASTEROID_FIELDS:
                    out.add(f"{path}.{name}" if str(name).isidentifier() else f"{path}[{name!r}]", "unknown field")
            ok = False
        aid = item.get("id", _MISSING)
        if aid is _MISSING:
            out.add(f"{path}.id", "missing (this field is required)")
            ok = False
        elif out.declare(aid, f"{path}.id"):
            out.index[aid] = len(out.names)
            out.names.append(aid)
        else:
            ok = False
        mantle = item.get("mantle", 3)
        if type(mantle) is float and mantle.is_integer():
            mantle = int(mantle)  # JSON has one kind of number: 2.0 is the whole number 2, as for JSON Schema
        if type(mantle) is not int or not 0 <= mantle <= MAX_MANTLE:
            out.add(f"{path}.mantle", f"the mantle must be a whole number of layers from 0 to {MAX_MANTLE}, not "
                    f"{_short(mantle)}")
            ok = False
        core = item.get("core", "hollow")
        if core not in CORES or not isinstance(core, str):
            out.add(f"{path}.core", f"{core!r} is not a material (expected one of {', '.join(CORES)})")
            ok = False
        orbit, sun = _orbit(item.get("orbit", _MISSING), f"{path}.orbit", orbits, out)
        if sun is None:
            ok = False
        position = item.get("position", _MISSING)
        if position is _MISSING:
            unpositioned.append(i)
            xy = None
        else:
            positioned.append(i)
            if (
                isinstance(position, list)
                and len(position) == 2
                and all(_is_number(c) and _is_finite(c) for c in position)
            ):
                xy = (float(position[0]), float(position[1]))
            else:
                out.add(f"{path}.position", "a position must be [x, y], two finite numbers")
                ok = False
        if ok and sun is not None:
            out.asteroids.append(AsteroidSpec(aid, mantle, core, orbit, sun, xy))
    if positioned and unpositioned:
        odd, have = (unpositioned, "a position") if len(unpositioned) <= len(positioned) else (positioned, "none")
        for i in odd:
            out.add(
                f"asteroids[{i}].position",
                f"{'missing' if have == 'a position' else 'given'}: either every asteroid has a position or none "
                f"has ({len(positioned)} of {len(items)} have one)",
            )


def _orbit(
    value: Any, path: str, cache: dict[str, Orbit], out: Checked
) -> tuple[Orbit | None, Literal["near", "far"] | None]:
    """The orbit, or the pinned side; (None, None) when the value is wrong (the problem is recorded)."""
    if value is _MISSING:
        return None, "far"
    if isinstance(value, str):
        known = cache.get(value)
        if known is not None:
            return known, "far"
        parts = value.split("/")
        if len(parts) == 3 and all(p.isdigit() for p in parts) and ORBIT_PATTERN.fullmatch(value) is None:
            out.add(path, f"an orbit must be P/K/F, three whole numbers of at most six digits (0-9), not "
                    f"{_short(value)}")
            return None, None
        try:
            orbit = Orbit.parse(value)
        except ValueError as wrong:
            out.add(path, str(wrong))
            return None, None
        cache[value] = orbit
        return orbit, "far"
    if isinstance(value, dict) and value.keys() == {"sun"} and value["sun"] in ("near", "far"):
        return None, "near" if value["sun"] == "near" else "far"
    out.add(path, 'an orbit must be "P/K/F" or {"sun": "near"} or {"sun": "far"}, not ' + _short(value))
    return None, None


def _short(value: object) -> str:
    import json

    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a whole number far too large"  # (and one too long to write out at all: Python limits digits)
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def check_links(items: list[Any], out: Checked) -> None:
    """Check every link: two different asteroids of the belt, each pair listed once (R2).

    A valid array (the common case) is checked in bulk; any doubt sends it to the one-by-one check, which
    explains every problem with its path.
    """
    if not _links_in_bulk(items, out):
        _check_links_one_by_one(items, out)


def _links_in_bulk(items: list[Any], out: Checked) -> bool:
    """Accept a whole array of valid links at once, or change nothing and return False.

    The ends are looked up and self-links ruled out in one loop of the compiled engine (`rules.bulk`), or, on
    the pure engine, in C-level passes and numpy (the same loop interpreted is slower); duplicate pairs are found
    with numpy over the pairs' keys, sorted.
    """
    if not items:
        return True
    found = _pairs_compiled(items, out) if ENGINE == "compiled" else _pairs_numpy(items, out)
    if found is None:
        return False
    pairs, keys = found
    keys.sort()  # (a sort, not np.unique: the latter hashes, many times slower)
    if bool((keys[1:] == keys[:-1]).any()):
        return False
    out.links.extend(pairs)
    return True


_Pairs = tuple[list[tuple[str, str]], "np.ndarray[Any, np.dtype[np.int64]]"]
"""The links as pairs of declared names, and each pair's key: the lower index times the count plus the higher."""


def _pairs_compiled(items: list[Any], out: Checked) -> _Pairs | None:
    resolved = resolve_pairs(items, out.index, out.names)
    if resolved is None:
        return None
    pairs, keys = resolved
    return pairs, np.array(keys, dtype=np.int64)


def _pairs_numpy(items: list[Any], out: Checked) -> _Pairs | None:
    if set(map(type, items)) != {list} or set(map(len, items)) != {2}:
        return None
    try:
        at = list(map(out.index.get, chain.from_iterable(items)))
    except TypeError:  # an unhashable end (an array or object)
        return None
    try:
        ends = np.array(at, dtype=np.int64)
    except TypeError:  # an end that is not an asteroid of this belt (None)
        return None
    first, second = ends[0::2], ends[1::2]
    if bool((first == second).any()):
        return None
    keys = np.minimum(first, second) * max(1, len(out.names)) + np.maximum(first, second)
    names = np.array(out.names, dtype=object)  # the declared strings, not the copies each link holds
    return list(zip(names[first].tolist(), names[second].tolist(), strict=True)), keys


def _check_links_one_by_one(items: list[Any], out: Checked) -> None:
    index_get, names, n = out.index.get, out.names, max(1, len(out.names))
    seen: dict[int, int] = {}
    links = out.links
    for j, link in enumerate(items):
        if type(link) is not list or len(link) != 2:
            out.add(f"links[{j}]", "a link must be a pair of asteroid ids, [a, b]")
            continue
        a, b = link
        try:
            ia, ib = index_get(a), index_get(b)
        except TypeError:  # an unhashable end (an array or object)
            ia = ib = None
        if ia is None or ib is None:
            if ia is None:
                out.asteroid_ref(a, f"links[{j}][0]")
            if ib is None:
                out.asteroid_ref(b, f"links[{j}][1]")
            continue
        if ia == ib:
            out.add(f"links[{j}]", f"links {a!r} to itself (no asteroid neighbours itself, R2)")
            continue
        first = seen.setdefault(ia * n + ib if ia < ib else ib * n + ia, j)
        if first != j:
            out.add(f"links[{j}]", f"duplicate link: {a}–{b} is already links[{first}]")
            continue
        links.append((names[ia], names[ib]))


def check_gates(items: list[Any], out: Checked) -> None:
    """Check every gate pair: an object of the four fields, new ids, orbiting two different asteroids.

    Judged here, not by the schema (jsonschema took half a millisecond a pair, and a belt may hold thousands):
    every problem the schema's `gatePair` finds is found here too, worded as the schema's (a test holds the two
    to agreement). One pass, each check a dictionary lookup: linear in the number of pairs.
    """
    for k, item in enumerate(items):
        path = f"gates[{k}]"
        if not isinstance(item, dict):
            out.add(path, f"must be an object, not {json_type(item)}")
            continue
        ok = True
        if len(item) != len(GATE_FIELDS) or not _GATE_FIELD_SET.issuperset(item):
            for name in item:
                if name not in _GATE_FIELD_SET:
                    out.add(json_path(["gates", k, name]), "unknown field")
                    ok = False
        ends: list[str | None] = []
        for name in GATE_FIELDS:
            if name not in item:
                out.add(f"{path}.{name}", "missing (this field is required)")
                ok = False
                continue
            if name.endswith("_at"):
                ends.append(out.asteroid_ref(item[name], f"{path}.{name}"))
            elif not out.declare(item[name], f"{path}.{name}"):
                ok = False
        if len(ends) == 2 and ends[0] is not None and ends[0] == ends[1]:
            out.add(path, f"both gates of a pair orbit {ends[0]!r} (they must orbit two different asteroids)")
            ok = False
        if ok and len(ends) == 2 and ends[0] is not None and ends[1] is not None:
            out.gates.append(GatePairSpec(item["first"], ends[0], item["second"], ends[1]))


def check_start(value: object, out: Checked) -> str | None:
    """Check the starting asteroid; its id, or None."""
    return out.asteroid_ref(value, "start")
