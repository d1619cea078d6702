"""The public view (R17) as the server's messages carry it, and its diff, as pydantic models.

The server sends the engine's `Game.view()` as plain JSON (see `diff`); these models describe it for the
generated TypeScript types and for the tests, which validate real views and diffs against them (unknown fields
are errors), so the description cannot drift from the engine. Every message leaves out each asteroid's `near` and
`next_change` (clients derive them from `orbit`, `pinned` and the round; `diff.with_sun`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

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


class GameEvent(BaseModel):
    """An event as the engine writes it (`event.to_json()`, docs/engine.md): its `type` and its fields."""

    model_config = ConfigDict(extra="allow")

    type: str
