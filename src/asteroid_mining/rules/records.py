"""What the frozen record classes (actions, events) share: the names of their fields, looked up once per class."""

from __future__ import annotations

from dataclasses import fields

_NAMES: dict[type, tuple[str, ...]] = {}  # class -> its fields' names: facts about code, not game state


def field_names(cls: type) -> tuple[str, ...]:
    """The names of a dataclass's fields, in order (`dataclasses.fields` is slow for a per-event call)."""
    names = _NAMES.get(cls)
    if names is None:
        names = _NAMES[cls] = tuple(f.name for f in fields(cls))
    return names
