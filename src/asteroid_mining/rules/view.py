"""What the players see (R17): everything but the cores of asteroids nobody has surveyed.

The view's records are declared here (`PlayerView` and the records it holds), beside the functions that write
them: their fields, types and meanings, from which the server derives its protocol models (`server.view_schemas`,
read from this source: a field added here needs no edit there, and its tests validate real views against the
models, unknown fields refused). The functions build plain dicts of these shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, NotRequired, TypedDict

from .dangers import reacts_at
from .effects import winnable
from .orbit import Orbit
from .state import Asteroid, Forecast, GameState, Gate, Robot, Settler, Ufo

UNKNOWN = "unknown"
"""The core of an unsurveyed asteroid, as the players see it."""


# ----- the records of the view (a `NotRequired` field is left out when it has no value, never null) -----
class CargoView(TypedDict):
    """Units of each material a settler carries."""

    ice: int
    iron: int
    carbon: int
    uranium: int


class UfoCargoView(TypedDict):
    """What a UFO has taken (only the materials it has)."""

    ice: NotRequired[int]
    iron: NotRequired[int]
    carbon: NotRequired[int]
    uranium: NotRequired[int]


class OptionsView(TypedDict):
    """The game's rule options (RULES.md, Options)."""

    uranium_fuse: int
    ufos: int
    haywire_gates: bool
    storm_warning: int
    storm_interval: int
    turns: Literal["strict", "free"]


class AsteroidView(TypedDict):
    """An asteroid as the players see it (R17)."""

    id: str
    exists: Literal[True]
    mantle: int
    """layers of rock left over the core"""
    core: Literal["ice", "iron", "carbon", "uranium", "hollow", "unknown"]
    """`unknown` until someone surveys it or drills through"""
    surveyed: bool
    near: NotRequired[bool]
    """near the Sun this round (R5); messages leave it out: it follows from `orbit`, `pinned` and the round"""
    next_change: NotRequired[int | None]
    """the round it next moves nearer or farther (R5); messages leave it out, as `near`"""
    orbit: str | None
    """`P/K/F`: near the Sun in round r when (r - 1 + F) mod P < K; null: it is pinned"""
    pinned: Literal["near", "far"] | None
    """where an asteroid without an orbit stays"""
    position: tuple[float, float] | None
    """where to draw it; null on a belt without a layout"""
    shelter: bool
    """drilled through and hollow: it shelters from storms"""
    exposures: int
    """rounds its exposed uranium core has spent near the Sun"""
    reacts_at: int | None
    """the round at whose end its exposed reactive core reacts; null: no such core, or its orbit never brings it
    near"""
    neighbours: list[str]
    gates: list[str]
    """the gates orbiting it"""
    settlers: list[str]
    robots: list[str]
    ufos: list[str]


class DestroyedAsteroidView(TypedDict):
    """An asteroid blown apart (R6): only its id is left."""

    id: str
    exists: Literal[False]


class SettlerView(TypedDict):
    """A settler: where it is (null once dead and gone), its cargo and the gates it carries."""

    id: str
    at: str | None
    alive: bool
    cargo: CargoView
    gates: list[str]


class RobotView(TypedDict):
    """A robot: it drills and explores by itself (R13)."""

    id: str
    at: str | None
    alive: bool


class UfoView(TypedDict):
    """A UFO: it steals exposed cores (E2)."""

    id: str
    at: str | None
    alive: bool
    cargo: UfoCargoView


class GateView(TypedDict):
    """A teleport gate: carried (`carrier`) or placed (`at`); `active` when it and its partner are placed."""

    id: str
    partner: str
    at: str | None
    carrier: str | None
    exists: bool
    haywire: bool
    active: bool


class ForecastView(TypedDict):
    """A forecast storm: it hits `asteroids` at the end of `round` (R7)."""

    round: int
    asteroids: list[str]
    sector: tuple[float, float] | None


class PlayerView(TypedDict):
    """The public view (R17) of a game; messages leave out each asteroid's `near` and `next_change`."""

    round: int
    status: Literal["running", "won", "lost"]
    turn: str | None
    """the settler whose step it is; null once the game is over"""
    winnable: bool
    options: OptionsView
    asteroids: list[AsteroidView | DestroyedAsteroidView]
    settlers: list[SettlerView]
    robots: list[RobotView]
    ufos: list[UfoView]
    gates: list[GateView]
    forecasts: list[ForecastView]


def _sorted_ids(state: GameState, ids: dict[str, None]) -> list[str]:
    if len(ids) < 2:
        return list(ids)
    return sorted(ids, key=lambda tid: state.things[tid].index)


def asteroid_view(state: GameState, a: Asteroid, sun: bool = True, frozen: bool = False) -> dict[str, Any]:
    """One asteroid as the players see it, with its sun state and the round it next changes (R5).

    `reacts_at` is the round at whose end its exposed reactive core reacts (R6, E1), or None: no such core, or
    the orbit never brings it near (`rules.dangers.reacts_at`).

    `sun=False` leaves out `near` and `next_change`, which follow from `orbit`, `pinned` and the round alone
    (see `sun_state`), for callers that send records and let their readers derive them. `frozen=True` gives
    tuples in place of lists (the same JSON), for callers that keep many records: a dict that holds only
    strings, numbers and tuples of them is not tracked by Python's cyclic garbage collector.
    """
    if not a.exists:
        return {"id": a.id, "exists": False}
    seq: Callable[[Iterable[Any]], Sequence[Any]] = tuple if frozen else list
    record: dict[str, Any] = {
        "id": a.id,
        "exists": True,
        "mantle": a.mantle,
        "core": a.core if a.surveyed or a.mantle == 0 else UNKNOWN,
        "surveyed": a.surveyed,
    }
    if sun:
        record["near"] = state.is_near(a)
        record["next_change"] = a.orbit.next_change(state.round) if a.orbit else None
    record.update(
        orbit=str(a.orbit) if a.orbit else None,
        pinned=a.pinned,
        position=seq(a.position) if a.position else None,
        shelter=a.shelter,
        exposures=a.exposures,
        reacts_at=reacts_at(state, a) if a.mantle == 0 else None,
        neighbours=seq(a.neighbours),
        gates=seq(a.gates),
        settlers=seq(_sorted_ids(state, a.settlers)),
        robots=seq(_sorted_ids(state, a.robots)),
        ufos=seq(_sorted_ids(state, a.ufos)),
    )
    return record


def sun_state(orbit: str | None, pinned: str | None, round_no: int) -> tuple[bool, int | None]:
    """`near` and `next_change` of an asteroid's view from its `orbit` and `pinned` fields in round `round_no`.

    The same values `asteroid_view` gives (R5): an asteroid without an orbit is near only when pinned near,
    and never changes by itself.
    """
    if orbit is None:
        return pinned == "near", None
    parsed = Orbit.parse(orbit)
    return parsed.is_near(round_no), parsed.next_change(round_no)


def settler_view(s: Settler) -> dict[str, Any]:
    """One settler as the players see it."""
    return {"id": s.id, "at": s.at, "alive": s.alive, "cargo": dict(s.cargo), "gates": list(s.gates)}


def robot_view(r: Robot) -> dict[str, Any]:
    """One robot as the players see it."""
    return {"id": r.id, "at": r.at, "alive": r.alive}


def ufo_view(u: Ufo) -> dict[str, Any]:
    """One UFO as the players see it."""
    return {"id": u.id, "at": u.at, "alive": u.alive, "cargo": dict(u.cargo)}


def gate_view(state: GameState, g: Gate) -> dict[str, Any]:
    """One gate as the players see it."""
    return {"id": g.id, "partner": g.partner, "at": g.at, "carrier": g.carrier, "exists": g.exists,
            "haywire": g.haywire, "active": state.gate_active(g)}


def forecast_view(f: Forecast) -> dict[str, Any]:
    """One storm forecast (R7)."""
    return {"round": f.round, "asteroids": list(f.asteroids), "sector": list(f.sector) if f.sector else None}


def thing_view(state: GameState, tid: str, sun: bool = True, frozen: bool = False) -> dict[str, Any]:
    """The view entry of one thing, as `player_view` gives it; KeyError for an unknown id.

    `sun` and `frozen` apply to asteroids (see `asteroid_view`).
    """
    thing = state.things[tid]
    if isinstance(thing, Asteroid):
        return asteroid_view(state, thing, sun, frozen)
    if isinstance(thing, Settler):
        return settler_view(thing)
    if isinstance(thing, Robot):
        return robot_view(thing)
    if isinstance(thing, Ufo):
        return ufo_view(thing)
    return gate_view(state, thing)


def player_view(state: GameState, include_asteroids: bool = True) -> dict[str, Any]:
    """The public state of the game as JSON-ready data (R17).

    `include_asteroids=False` leaves out the one part that grows with the belt, for callers that follow the
    asteroids one by one (`asteroid_view`).
    """
    view: dict[str, Any] = {
        "round": state.round,
        "status": state.status,
        "turn": state.turn,
        "winnable": winnable(state),
        "options": state.options.to_json(),
    }
    if include_asteroids:
        view["asteroids"] = [asteroid_view(state, a) for a in state.asteroids.values()]
    view["settlers"] = [settler_view(s) for s in state.settlers.values()]
    view["robots"] = [robot_view(r) for r in state.robots.values()]
    view["ufos"] = [ufo_view(u) for u in state.ufos.values()]
    view["gates"] = [gate_view(state, g) for g in state.gates.values()]
    view["forecasts"] = [forecast_view(f) for f in state.forecasts]
    return view
