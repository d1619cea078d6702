"""Strict JSON request bodies, read the same way in the server's process and in the process that reads large
ones first (`server.offload`): this module imports nothing but orjson, so that process starts in a moment and
holds little memory.

- `parse_strict`: strict JSON (orjson: no `NaN`, no `Infinity`, no number too large for a double), nested at most
  `MAX_DEPTH` levels, or the reason it is not, as a sentence;
- `precheck`: that, and for a new game's belt larger than the server allows, the document without the belt's
  items (each section keeps its length, which is all the size check reads).
"""

from __future__ import annotations

from typing import Any

import orjson

MAX_DEPTH = 32
"""The deepest nesting of arrays and objects a request body may have (a belt document needs 4)."""
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
    if _too_deep(document):
        return f"malformed JSON: nested deeper than {MAX_DEPTH} levels", None
    return None, document


def _too_deep(document: Any) -> bool:
    """Whether arrays and objects nest deeper than MAX_DEPTH in `document` (one pass, no recursion)."""
    level: list[Any] = [document]
    for _ in range(MAX_DEPTH):
        below: list[Any] = []
        for value in level:
            if isinstance(value, dict):
                below.extend(v for v in value.values() if isinstance(v, dict | list))
            elif isinstance(value, list):
                below.extend(v for v in value if isinstance(v, dict | list))
        if not below:
            return False
        level = below
    return True


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
