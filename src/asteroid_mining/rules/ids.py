"""Ids of things: one namespace per game, `[A-Za-z][A-Za-z0-9_-]*`, a few reserved words."""

from __future__ import annotations

import re

ID_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
RESERVED = frozenset(("none", "game", "true", "false"))


def id_problem(text: str) -> str | None:
    """A sentence saying why `text` cannot be an id, or None when it can."""
    if not ID_PATTERN.match(text):
        return f"{text!r} is not a valid id (a letter, then letters, digits, '_' or '-')"
    if text in RESERVED:
        return f"{text!r} is reserved and cannot be an id"
    return None
