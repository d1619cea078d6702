"""Compact JSON text written directly, for what the server sends after every action (`Choices.to_text`).

The text is exactly what orjson writes for the same value as a dict (`orjson.dumps(value).decode()`): no
spaces, keys in insertion order, UTF-8 as is, only `"`, `\\` and control characters escaped. Writing it here,
in the compiled engine, spares the server the dicts it would otherwise build only to encode them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final

# Final: compiled, a module's constants are then C variables rather than a lookup in the module's dict each time
_QUOTED: Final[dict[str, str]] = {}
"""Strings already written as JSON strings: ids, codes and kinds come back again and again."""
_QUOTED_LIMIT: Final = 1 << 16
"""Beyond this many the cache starts afresh (ids of many belts pass through a long-running server)."""
_PLAIN_LOW: Final = " "
"""The first character that needs no escape (below it: control characters)."""


def quote(text: str) -> str:
    """`text` as a JSON string literal (escaped as orjson and `json.dumps(…, ensure_ascii=False)` escape it)."""
    quoted = _QUOTED.get(text)
    if quoted is None:
        quoted = _quote(text)
        if len(_QUOTED) >= _QUOTED_LIMIT:
            _QUOTED.clear()
        _QUOTED[text] = quoted
    return quoted


def _quote(text: str) -> str:
    for ch in text:
        if ch < _PLAIN_LOW or ch == '"' or ch == "\\":
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
        out.append(str(item))


def write_flat_object(items: Mapping[str, str | int], out: list[str]) -> None:
    """Append a JSON object of strings and integers (a refusal's params)."""
    if isinstance(items, dict):  # always, in practice: iterated natively when compiled
        write_flat_dict(items, out)
    else:
        write_flat_dict(dict(items), out)


def write_flat_dict(items: dict[str, str | int], out: list[str]) -> None:
    """`write_flat_object` of a dict."""
    first = True
    for key, item in items.items():
        out.append("{" if first else ",")
        first = False
        out.append(quote(key))
        out.append(":")
        write_value(item, out)
    out.append("{}" if first else "}")
