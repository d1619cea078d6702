"""Mutations of JSON documents, written out as text: wrong types, huge and non-finite numbers, deep nesting,
unicode, missing and extra fields.

Some of them cannot be Python values that `json.dumps` writes (`NaN` is, a 5,000-digit number is not, nesting
deeper than Python's recursion is not), so a mutated document is text: raw tokens go in through placeholders.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from .jsonschema_strategies import ANY_JSON

RAW_NUMBERS = (
    "NaN", "Infinity", "-Infinity", "1e400", "-1e400", "9" * 5000, "1" + "0" * 30, "-9223372036854775809",
    "9223372036854775808", "18446744073709551616", "1E+2", "-0", "0.0", "2.5", "1e-300", "4.9e-324", "1.0",
)
"""Numbers a strict reader refuses or that lie at the edge of some range."""
DEEP = ("[" * 3000 + "]" * 3000, '{"a":' * 1500 + "1" + "}" * 1500, "[" * 100 + "]" * 100)
"""Nesting deeper than any reader allows, and deeper than any document needs."""
STRINGS = st.sampled_from([
    "\ud800", "\udfff", "a\x00b", "\u202eevil", "🚀" * 20, "ｓ１", "٣/1/0", "s1\n", " s1", "x" * 70_000, "",
    "none", "game", "true", "<script>", "../../etc/passwd", "%00", "s" + "1" * 40,
]) | st.text(max_size=30)
"""Strings that have broken programs before: lone surrogates, NULs, bidi, lookalikes, huge ones."""


class _Raw:
    """Raw JSON text to put in a document where a value goes."""

    def __init__(self, text: str) -> None:
        self.text = text


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*prefix, i))
    return out


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _set(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    _get(value, path[:-1])[path[-1]] = new
    return value


@st.composite
def mutated(draw: st.DrawFn, base: st.SearchStrategy[Any], most: int = 3) -> str:
    """A value of `base`, changed in 0 to `most` places, as JSON text."""
    value = json.loads(json.dumps(draw(base)))  # a private copy to change
    for _ in range(draw(st.integers(0, most))):
        paths = _paths(value)
        path = draw(st.sampled_from(paths))
        here = _get(value, path)
        how = draw(st.sampled_from(["type", "number", "string", "drop", "extra", "nest", "deep"]))
        if how == "type":
            value = _set(value, path, draw(ANY_JSON))
        elif how == "number":
            value = _set(value, path, _Raw(draw(st.sampled_from(RAW_NUMBERS))))
        elif how == "string":
            value = _set(value, path, draw(STRINGS))
        elif how == "drop" and path:
            parent = _get(value, path[:-1])
            del parent[path[-1]]
        elif how == "extra" and isinstance(here, dict):
            here[draw(st.text(max_size=10))] = draw(ANY_JSON)
        elif how == "nest":
            value = _set(value, path, draw(st.sampled_from([[here], {"value": here}])))
        elif how == "deep":
            value = _set(value, path, _Raw(draw(st.sampled_from(DEEP))))
    return dumps(value)


def dumps(value: Any) -> str:
    """JSON text of `value`, raw tokens written as they are."""
    raws: list[str] = []

    def default(item: Any) -> Any:
        if isinstance(item, _Raw):
            raws.append(item.text)
            return f"\x00raw{len(raws) - 1}\x00"
        raise TypeError(type(item).__name__)

    text = json.dumps(value, default=default)
    for i, raw in enumerate(raws):
        text = text.replace(json.dumps(f"\x00raw{i}\x00"), raw)
    return text
