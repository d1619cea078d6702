"""The public view (R17) as the server's messages carry it, and its diff, as pydantic models.

The server sends the engine's `Game.view()` as plain JSON (see `diff`); these models describe it for the
generated TypeScript types and for the tests, which validate real views and diffs against them (unknown fields
are errors), so the description cannot drift from the engine. Every message leaves out each asteroid's `near` and
`next_change` (clients derive them from `orbit`, `pinned` and the round; `diff.with_sun`).
"""

from __future__ import annotations

import ast
from dataclasses import fields as dataclass_fields
from functools import reduce
from importlib import resources
from operator import or_
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..rules import Event

Kind = Literal["ice", "iron", "carbon", "uranium"]
"""A material (`rules.KINDS`)."""
Core = Literal["ice", "iron", "carbon", "uranium", "hollow", "unknown"]
"""An asteroid's core as players see it: unknown until surveyed."""
Status = Literal["running", "won", "lost"]
"""The engine's status of a game."""


class Record(BaseModel):
    """A record of the protocol: every field is described, and no other may appear."""

    model_config = ConfigDict(extra="forbid")


def _absent_not_null(schema: dict[str, Any]) -> None:
    """A field left out when it has no value, never sent as null: its schema says only the type."""
    branches = schema.pop("anyOf", None)
    if branches is not None:
        rest = [b for b in branches if b.get("type") != "null"]
        if len(rest) == 1:
            schema.update(rest[0])
        else:
            schema["anyOf"] = rest
    schema.pop("default", None)


def absent(description: str = "") -> Any:
    """The `Field` of a value that messages leave out when there is none (never null)."""
    return Field(None, description=description or None, json_schema_extra=_absent_not_null)


class Cargo(Record):
    """Units of each material a settler carries."""

    ice: int
    iron: int
    carbon: int
    uranium: int


class UfoCargo(Record):
    """What a UFO has taken (only the materials it has)."""

    ice: int | None = absent()
    iron: int | None = absent()
    carbon: int | None = absent()
    uranium: int | None = absent()


class Options(Record):
    """The game's rule options (RULES.md, Options)."""

    uranium_fuse: int
    ufos: int
    haywire_gates: bool
    storm_warning: int
    storm_interval: int
    turns: Literal["strict", "free"]


class Asteroid(Record):
    """An asteroid as messages carry it (R17)."""

    id: str
    exists: Literal[True]
    mantle: int = Field(description="layers of rock left over the core")
    core: Core = Field(description="`unknown` until someone surveys it or drills through")
    surveyed: bool
    orbit: str | None = Field(description="`P/K/F`: near the Sun in round r when (r - 1 + F) mod P < K; "
                              "null: it is pinned")
    pinned: Literal["near", "far"] | None = Field(description="where an asteroid without an orbit stays")
    position: tuple[float, float] | None = Field(description="where to draw it; null on a belt without a layout")
    shelter: bool = Field(description="drilled through and hollow: it shelters from storms")
    exposures: int = Field(description="rounds its exposed uranium core has spent near the Sun")
    reacts_at: int | None = Field(description="the round at whose end its exposed reactive core reacts; null: "
                                  "no such core, or its orbit never brings it near")
    neighbours: list[str]
    gates: list[str] = Field(description="the gates orbiting it")
    settlers: list[str]
    robots: list[str]
    ufos: list[str]


class DestroyedAsteroid(Record):
    """An asteroid blown apart (R6): only its id is left."""

    id: str
    exists: Literal[False]


AsteroidRecord = Asteroid | DestroyedAsteroid
"""An asteroid of the view."""


class SettlerRecord(Record):
    """A settler: where it is (null once dead and gone), its cargo and the gates it carries."""

    id: str
    at: str | None
    alive: bool
    cargo: Cargo
    gates: list[str]


class RobotRecord(Record):
    """A robot: it drills and explores by itself (R13)."""

    id: str
    at: str | None
    alive: bool


class UfoRecord(Record):
    """A UFO: it steals exposed cores (E2)."""

    id: str
    at: str | None
    alive: bool
    cargo: UfoCargo


class GateRecord(Record):
    """A teleport gate: carried (`carrier`) or placed (`at`); `active` when it and its partner are placed."""

    id: str
    partner: str
    at: str | None
    carrier: str | None
    exists: bool
    haywire: bool
    active: bool


class ForecastRecord(Record):
    """A forecast storm: it hits `asteroids` at the end of `round` (R7)."""

    round: int
    asteroids: list[str]
    sector: tuple[float, float] | None


class GameView(Record):
    """The public view (R17) of a game, as messages carry it (no `near`, `next_change`: see the module)."""

    round: int
    status: Status
    turn: str | None = Field(description="the settler whose step it is; null once the game is over")
    winnable: bool
    options: Options
    asteroids: list[AsteroidRecord]
    settlers: list[SettlerRecord]
    robots: list[RobotRecord]
    ufos: list[UfoRecord]
    gates: list[GateRecord]
    forecasts: list[ForecastRecord]


class ViewDiff(Record):
    """What changed in the view after a command: the scalars always; a list's changed or new records (whole),
    and `forecasts` (the whole list), only when they changed."""

    round: int
    status: Status
    turn: str | None
    winnable: bool
    forecasts: list[ForecastRecord] | None = absent("the whole list, when it changed")
    asteroids: list[AsteroidRecord] | None = absent()
    settlers: list[SettlerRecord] | None = absent()
    robots: list[RobotRecord] | None = absent()
    ufos: list[UfoRecord] | None = absent()
    gates: list[GateRecord] | None = absent()


def _event_sources(source: str) -> dict[str, tuple[str, dict[str, str]]]:
    """Each event class's docstring and field annotations, as written in the engine's source (`rules/events.py`).

    The compiled engine keeps only the outer class of an annotation (`str | None` becomes `type`) and no
    docstrings, so both are read from the source the engine is built from: the same whichever build runs.
    """
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = (ast.get_docstring(node) or "", {
                item.target.id: ast.unparse(item.annotation) for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                and "ClassVar" not in ast.unparse(item.annotation)})
    return out


_TYPES = {"str": str, "int": int, "bool": bool, "float": float, "tuple": tuple, "None": None}
"""The names an event field's annotation may use."""


def _event_model(cls: type, doc: str, annotations: dict[str, str]) -> type[Record]:
    """The model of one event class: its `type` and its fields, each always present (null when it has no value:
    `event.to_json()` writes every field)."""
    fields: dict[str, Any] = {"type": (Literal[cls.type], ...)}  # type: ignore[attr-defined]
    for name in (f.name for f in dataclass_fields(cls)):
        if name not in annotations:
            raise TypeError(f"rules/events.py: {cls.__name__}.{name} has no annotation in the source")
        fields[name] = (eval(annotations[name], {"__builtins__": {}}, _TYPES), ...)
    return create_model(f"{cls.__name__}Event", __base__=Record, __doc__=doc, **fields)


def _event_models() -> tuple[type[Record], ...]:
    source = resources.files("asteroid_mining.rules").joinpath("events.py").read_text(encoding="utf-8")
    sources = _event_sources(source)
    return tuple(_event_model(cls, *sources.get(cls.__name__, ("", {}))) for cls in get_args(Event))


EVENT_MODELS: tuple[type[Record], ...] = _event_models()
"""One model per kind of event, derived from the engine's event records (`rules.Event`): a new event needs no
edit here."""
GameEvent: Any = Annotated[reduce(or_, EVENT_MODELS), Field(discriminator="type")]
"""An event as the engine writes it (`event.to_json()`, docs/engine.md): its `type` and its fields."""
