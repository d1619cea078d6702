"""The hand-made belts shipped with the game (`maps/belts/*.json`)."""

from __future__ import annotations

from importlib import resources

from ..rules.belt import Belt
from .format import parse_belt_text
from .problems import BeltError, Problem

_FOLDER = "belts"


def shipped_names() -> list[str]:
    """The names of the shipped belts, sorted (`tutorial`, `puzzle-gates`, ...)."""
    folder = resources.files(__package__).joinpath(_FOLDER)
    return sorted(entry.name[: -len(".json")] for entry in folder.iterdir() if entry.name.endswith(".json"))


def load_shipped(name: str) -> Belt:
    """The shipped belt called `name`; raises `BeltError` when there is none of that name."""
    if name not in shipped_names():
        known = ", ".join(shipped_names())
        raise BeltError([Problem("", f"no shipped belt is called {name!r} (shipped: {known})")], source=name)
    text = resources.files(__package__).joinpath(_FOLDER, f"{name}.json").read_text(encoding="utf-8")
    return parse_belt_text(text, source=f"{name}.json")
