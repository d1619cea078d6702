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
_FIRST: Final[dict[str, str]] = {}
"""The first member of an object, by key: `actor` -> `{"actor":`."""
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


def first_member(key: str) -> str:
    """`{` and `key` as a JSON string and `:`: what opens an object whose first member is `key`."""
    found = _FIRST.get(key)
    if found is None:
        found = _remember(_FIRST, key, "{" + _quote(key) + ":")
    return found


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


def write_value(item: str | int | bool | None, out: list[str]) -> None:
    """Append a string, an integer, a boolean or None as JSON text."""
    if isinstance(item, str):
        out.append(quote(item))
    elif item is None:
        out.append("null")
    elif isinstance(item, bool):
        out.append("true" if item else "false")
    else:
        out.append(integer(item))


def write_flat_object(items: dict[str, str | int], out: list[str]) -> None:
    """Append a JSON object of strings and integers (a refusal's params)."""
    write_open_object(items, out)
    out.append("}")


def write_open_object(items: dict[str, str | int], out: list[str]) -> None:
    """`write_flat_object` but for the closing brace, which the caller writes with those that follow it."""
    first = True
    for key, item in items.items():
        if isinstance(item, bool):  # True == 1: not a key of the caches of members
            out.append(first_member(key) if first else next_member(key))
            write_value(item, out)
        else:
            # a refusal's members repeat (the same actor, asteroid, kind): each kept whole, once written
            cache = _FIRST_PAIRS if first else _NEXT_PAIRS
            pairs = cache.get(key)
            if pairs is None:
                pairs = cache[key] = {}
            pair = pairs.get(item)
            if pair is None:
                opening = first_member(key) if first else next_member(key)
                pair = _remember_pair(pairs, item, opening + (quote(item) if isinstance(item, str)
                                                              else integer(item)))
            out.append(pair)
        first = False
    if first:
        out.append("{")


_FIRST_PAIRS: Final[dict[str, dict[str | int, str]]] = {}
_NEXT_PAIRS: Final[dict[str, dict[str | int, str]]] = {}
"""Members of a flat object, first and later ones, by key and value: `asteroid` -> `a7` -> `,"asteroid":"a7"`."""


def _remember_pair(cache: dict[str | int, str], item: str | int, text: str) -> str:
    if len(cache) >= _LIMIT:
        cache.clear()
    cache[item] = text
    return text
