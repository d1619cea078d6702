"""Strict JSON request bodies, read the same way in the server's process and in the process that reads large
ones first (`server.offload`): this module imports nothing but orjson, so that process starts in a moment and
holds little memory.

- `parse_strict`: strict JSON (orjson: no `NaN`, no `Infinity`, no number too large for a double), nested at most
  `MAX_DEPTH` levels, no object of more than `MAX_MEMBERS` members, or the reason it is not, as a sentence;
- `precheck`: that, and for a new game's belt larger than the server allows, the document without the belt's
  items (each section keeps its length, which is all the size check reads).
"""

from __future__ import annotations

from typing import Any

import orjson

MAX_DEPTH = 32
"""The deepest nesting of arrays and objects a request body may have (a belt document needs 4)."""
MAX_MEMBERS = 256
"""The most members an object of a request body may have (a belt document's widest has a dozen; no body has a
map of free keys). The schemas' validation, on the event loop, costs a few microseconds a member and builds an
error for each unknown one: 200,000 members (4 MB) held the loop for half a second."""
BELT_SECTIONS = ("asteroids", "links", "gates")
"""The sections of a belt document the server's size limits count (`server.belts`), in the order it checks them."""


def parse_strict(body: bytes) -> tuple[str | None, Any]:
    """(None, the document) for strict JSON no deeper than MAX_DEPTH; (why not, as a sentence, None) otherwise."""
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError as bad:
        if "depth limit" in str(bad).lower() or "recursion" in str(bad).lower():  # orjson gives up at 1024
            return f"malformed JSON: nested deeper than {MAX_DEPTH} levels", None
        return f"malformed JSON: {bad}", None
    shape = _shape_problem(document)
    if shape is not None:
        return shape, None
    return None, document


def _shape_problem(document: Any) -> str | None:
    """Why `document` nests deeper than MAX_DEPTH or has an object wider than MAX_MEMBERS, as a sentence; None when
    it does neither (one pass, no recursion)."""
    level: list[Any] = [document]
    for _ in range(MAX_DEPTH):
        below: list[Any] = []
        for value in level:
            if isinstance(value, dict):
                if len(value) > MAX_MEMBERS:
                    return (f"{_path_to(document, value)}: an object has at most {MAX_MEMBERS} members, this one "
                            f"{len(value)}")
                below.extend(v for v in value.values() if isinstance(v, dict | list))
            elif isinstance(value, list):
                below.extend(v for v in value if isinstance(v, dict | list))
        if not below:
            return None
        level = below
    return f"malformed JSON: nested deeper than {MAX_DEPTH} levels"


def _path_to(document: Any, target: Any) -> str:
    """Where `target` is in `document`, as a JSON path (`belt.asteroids[3]`; `the body` for the whole of it)."""
    level: list[tuple[str, Any]] = [("", document)]
    while level:
        below: list[tuple[str, Any]] = []
        for path, value in level:
            if value is target:
                return path or "the body"
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(item, dict | list):
                    below.append((f"{path}.{key}" if isinstance(key, str) and path else
                                  key if isinstance(key, str) else f"{path}[{key}]", item))
        level = below
    return "the body"


def precheck(body: bytes, limits: tuple[int, int, int]) -> tuple[str | None, Any] | None:
    """A create-game body read where it is not played: `(why, None)` when it is not strict JSON; `(None, the
    document without its belt's items)` when its belt has more asteroids, links or gate pairs than `limits`
    allows; None when it must be read where it is played (it may well be)."""
    problem, document = parse_strict(body)
    if problem is not None:
        return problem, None
    belt = document.get("belt") if isinstance(document, dict) else None
    if not isinstance(belt, dict):
        return None
    counts = [len(section) if isinstance(section := belt.get(name), list) else 0 for name in BELT_SECTIONS]
    if all(count <= limit for count, limit in zip(counts, limits, strict=True)):
        return None
    items_left_out = {key: [None] * len(value) if key in BELT_SECTIONS and isinstance(value, list) else value
                      for key, value in belt.items()}
    return None, {**document, "belt": items_left_out}
