"""The belt file format: versioned JSON, read with every problem reported, written canonically.

A belt file looks like this (see `docs/maps.md` and the JSON Schema `belt.schema.json`)::

    {
      "format": "asteroid-mining/belt",
      "version": 1,
      "name": "Tutorial",
      "description": "Three asteroids and a hollow one.",
      "start": "A",
      "storm_sector": 30.0,
      "storm_interval": 10,
      "asteroids": [
        {"id": "A", "mantle": 0, "core": "hollow", "orbit": {"sun": "far"}, "position": [10.0, 0.0]},
        {"id": "B", "mantle": 2, "core": "iron", "orbit": "6/2/0", "position": [11.5, 1.0]}
      ],
      "links": [
        ["A", "B"]
      ],
      "gates": []
    }

Reading never half-loads: either a whole `Belt` comes back, or a `BeltError` lists every problem found, each
with the JSON path of what is wrong.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from ..collector import CollectorPaused
from ..rules.belt import Belt
from .checks import Checked, check_asteroids, check_gates, check_links, check_start
from .problems import BeltError, Problem
from .schema import belt_schema, json_type, structure_problems

FORMAT = "asteroid-mining/belt"
"""The value of the `format` field of every belt file."""
VERSION = 1
"""The format version this game reads and writes."""
DEFAULT_STORM_SECTOR = 30.0
"""The storm sector of a belt that does not say (the engine's default)."""

_SECTIONS = tuple(belt_schema()["properties"])


def load_belt(source: str | os.PathLike[str]) -> Belt:
    """Read a belt from a file path, or from JSON text (a `str` starting with `{`).

    Raises `BeltError` with every problem found (the file cannot be read, malformed JSON with its line and
    column, each structural and semantic problem with its JSON path); nothing is half-loaded.
    """
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return parse_belt_text(source)
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BeltError([Problem("", "no such file")], source=str(path)) from None
    except IsADirectoryError:
        raise BeltError([Problem("", "is a directory, not a belt file")], source=str(path)) from None
    except UnicodeDecodeError as wrong:
        problem = Problem("", f"not UTF-8 text (byte {wrong.start}): a belt file is JSON")
        raise BeltError([problem], source=str(path)) from None
    except OSError as wrong:
        raise BeltError([Problem("", f"cannot read it: {wrong.strerror or wrong}")], source=str(path)) from None
    return parse_belt_text(text, source=str(path))


def parse_belt_text(text: str, source: str = "") -> Belt:
    """Read a belt from JSON text; `source` names it in the error. Raises `BeltError`."""
    with CollectorPaused():  # a huge belt is a million new objects and no garbage (see collector)
        return _parse_belt_text(text, source)


def _parse_belt_text(text: str, source: str) -> Belt:
    try:
        doc = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError as wrong:
        problem = Problem(f"{wrong.lineno}:{wrong.colno}", f"malformed JSON: {wrong.msg}")
        raise BeltError([problem], source=source) from None
    except _NotJson as wrong:
        raise BeltError([Problem("", f"malformed JSON: {wrong}")], source=source) from None
    except RecursionError:
        raise BeltError([Problem("", "malformed JSON: nested too deeply")], source=source) from None
    except ValueError:  # a whole number with more digits than Python converts (thousands)
        raise BeltError([Problem("", "malformed JSON: a number far too long")], source=source) from None
    return parse_belt(doc, source=source)


class _NotJson(ValueError):
    """What strict JSON does not allow though Python's reader takes it."""


def _no_constant(name: str) -> Any:
    raise _NotJson(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotJson(f"{text[:20]} is too large a number")
    return value


def parse_belt(doc: Any, source: str = "") -> Belt:
    """A `Belt` from a decoded JSON document; raises `BeltError` with every problem found."""
    problems, checked = _check(doc)
    if problems or checked is None:
        raise BeltError(problems, source=source)
    return _build(doc, checked)


def belt_problems(doc: Any) -> list[Problem]:
    """Every problem of a decoded belt document, in document order; empty when it is a valid belt."""
    return _check(doc)[0]


def _check(doc: Any) -> tuple[list[Problem], Checked | None]:
    if not isinstance(doc, dict):
        return [Problem("", f"a belt must be a JSON object, not {json_type(doc)}")], None
    fmt = doc.get("format")
    if fmt != FORMAT:
        what = "missing" if fmt is None else f"{json.dumps(fmt)} is not {json.dumps(FORMAT)}"
        return [Problem("format", f"{what}: this is not an Asteroid Mining belt file")], None
    version = doc.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > VERSION:
        message = (
            f"this belt uses format version {version}, newer than this game reads ({VERSION}); "
            "update the game to open it"
        )
        return [Problem("version", message)], None
    out = Checked(problems=structure_problems(doc))
    asteroids, links, gates = doc.get("asteroids"), doc.get("links", []), doc.get("gates", [])
    if isinstance(asteroids, list):
        check_asteroids(asteroids, out)
    if isinstance(gates, list):
        check_gates(gates, out)
    if isinstance(links, list):
        check_links(links, out)
    if "start" in doc:
        check_start(doc["start"], out)
    for key in ("name", "description"):  # JSON may escape a lone surrogate (\ud800): no text any file can hold
        text = doc.get(key)
        if isinstance(text, str) and not _is_unicode(text):
            out.add(key, "is not valid Unicode text (it holds a lone surrogate)")
    sector = doc.get("storm_sector")
    if isinstance(sector, float) and not math.isfinite(sector):  # NaN passes every comparison of the schema
        out.add("storm_sector", f"must be a finite number, not {sector}")
    return sorted(out.problems, key=_document_order), out


def _is_unicode(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _document_order(problem: Problem) -> tuple[int, int]:
    """Sections in the schema's order, then elements in array order; a stable sort keeps the rest."""
    path = problem.path
    head, _, rest = path.partition("[")
    head = head.split(".")[0]
    if not path or path[0].isdigit():  # the document as a whole, or a place in malformed text
        return -1, -1
    section = _SECTIONS.index(head) if head in _SECTIONS else len(_SECTIONS)
    number = rest.split("]")[0]
    return section, int(number) if number.isdigit() else -1


def _build(doc: dict[str, Any], checked: Checked) -> Belt:
    start = checked.names[checked.index[doc["start"]]]
    return Belt(
        asteroids=tuple(checked.asteroids),
        links=tuple(checked.links),
        start=start,
        gates=tuple(checked.gates),
        name=doc.get("name", ""),
        description=doc.get("description", ""),
        storm_sector=float(doc.get("storm_sector", DEFAULT_STORM_SECTOR)),
        storm_interval=doc.get("storm_interval"),
    )


def belt_to_json(belt: Belt) -> dict[str, Any]:
    """The canonical JSON document of a belt (every field written out; `load` of it gives the belt back)."""
    asteroids: list[dict[str, Any]] = []
    for a in belt.asteroids:
        item: dict[str, Any] = {
            "id": a.id,
            "mantle": a.mantle,
            "core": a.core,
            "orbit": str(a.orbit) if a.orbit is not None else {"sun": a.sun},
        }
        if a.position is not None:
            item["position"] = [float(a.position[0]), float(a.position[1])]
        asteroids.append(item)
    return {
        "format": FORMAT,
        "version": VERSION,
        "name": belt.name,
        "description": belt.description,
        "start": belt.start,
        "storm_sector": float(belt.storm_sector),
        "storm_interval": belt.storm_interval,
        "asteroids": asteroids,
        "links": [[a, b] for a, b in belt.links],
        "gates": [
            {"first": g.first, "first_at": g.first_at, "second": g.second, "second_at": g.second_at} for g in belt.gates
        ],
    }


def dumps_belt(belt: Belt) -> str:
    """The belt as JSON text, laid out for people and for diffs: one asteroid, link or gate pair a line."""
    doc = belt_to_json(belt)
    lines = ["{"]
    for key, value in doc.items():
        if isinstance(value, list):
            if not value:
                lines.append(f'  "{key}": [],')
                continue
            lines.append(f'  "{key}": [')
            lines.extend(f"    {_compact(item)}," for item in value)
            lines[-1] = lines[-1][:-1]
            lines.append("  ],")
        else:
            lines.append(f'  "{key}": {_compact(value)},')
    lines[-1] = lines[-1][:-1]
    lines.append("}")
    return "\n".join(lines) + "\n"


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def save_belt(belt: Belt, path: str | os.PathLike[str], check: bool = True) -> None:
    """Write a belt file (atomically: a reader never sees half a file).

    With `check` (the default) the belt is first validated as a loader would, so that an invalid belt is never
    written: `BeltError` is raised instead.
    """
    text = dumps_belt(belt)
    if check:
        parse_belt(json.loads(text), source=str(path))
    target = Path(path)
    partial = target.with_name(f".{target.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, target)
