"""Compact JSON text written directly, for what the server sends after every action (`Choices.to_text`).

The text is exactly what orjson writes for the same value as a dict (`orjson.dumps(value).decode()`): no
spaces, keys in insertion order, UTF-8 as is, only `"`, `\\` and control characters escaped. Writing it here,
in the compiled engine, spares the server the dicts it would otherwise build only to encode them.

Writers append pieces to a list that is joined once at the end. The pieces that recur (ids, codes, keys and
what surrounds them) are made once and kept: ids, codes and parameter names come back after every action.
"""

from __future__ import annotations

import json
from typing import Final

# Final: compiled, a module's constants are C variables rather than a lookup in the module's dict each time
_LIMIT: Final = 1 << 16
"""Beyond this many entries a cache starts afresh (the ids of many belts pass through a long-running server)."""
_QUOTED: Final[dict[str, str]] = {}
"""Strings as JSON strings: `a7` -> `"a7"`."""
_NEXT: Final[dict[str, str]] = {}
"""A later member of an object, by key: `actor` -> `,"actor":`."""
_INTS: Final[tuple[str, ...]] = tuple(str(i) for i in range(256))
"""Small non-negative integers as text (rounds, counts, units)."""


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
