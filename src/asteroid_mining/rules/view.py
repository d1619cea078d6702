"""What the players see (R17): everything but the cores of asteroids nobody has surveyed."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .dangers import reacts_at
from .effects import winnable
from .orbit import Orbit
from .state import Asteroid, Forecast, GameState, Gate, Robot, Settler, Ufo

UNKNOWN = "unknown"
"""The core of an unsurveyed asteroid, as the players see it."""


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
