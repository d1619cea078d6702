"""Ids of things: one namespace per game, `[A-Za-z][A-Za-z0-9_-]*`, a few reserved words."""

from __future__ import annotations

import re

ID_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
RESERVED = frozenset(("none", "game", "true", "false"))
_ID_COLUMN = re.compile(r"(?:[A-Za-z][A-Za-z0-9_-]*\n)*\Z")
"""Valid ids, each followed by a newline: `ID_PATTERN` over a whole column of ids in one match."""


def id_problem(text: str) -> str | None:
    """A sentence saying why `text` cannot be an id, or None when it can."""
    if not ID_PATTERN.match(text):
        return f"{text!r} is not a valid id (a letter, then letters, digits, '_' or '-')"
    if text in RESERVED:
        return f"{text!r} is reserved and cannot be an id"
    return None


def all_ids(texts: list[str]) -> bool:
    """True when `id_problem` has nothing to say about any of `texts` (checked at once, for big loads)."""
    if not texts:
        return True
    column = "\n".join(texts) + "\n"
    # the count rules out a text holding a newline of its own, which would read as two ids
    return (column.count("\n") == len(texts) and _ID_COLUMN.match(column) is not None
            and RESERVED.isdisjoint(texts))
