"""Solar storms (R7): forecasts, the storm generator of real games (R12 step 5) and storm regions.

In a laid-out belt a storm covers an angular sector seen from the Sun; without a layout, an asteroid and its
neighbours. Scripts never forecast by themselves; they schedule storms explicitly.
"""

from __future__ import annotations

import math
from bisect import bisect_left

from .effects import storm_hit
from .events import Event, StormForecast
from .state import Asteroid, Forecast, GameState


def angle_of(position: tuple[float, float]) -> float:
    """The angle in degrees [0, 360) of a point seen from the Sun at (0, 0)."""
    return math.degrees(math.atan2(position[1], position[0])) % 360.0


def index_angles(state: GameState) -> None:
    """Sort the laid-out asteroids by angle once, so that a sector is found by bisection (ties: by creation)."""
    angles: list[float] = []
    ids: list[str] = []
    last = -1
    in_creation_order = True
    for a in state.asteroids.values():
        if a.position is not None:
            angles.append(angle_of(a.position))
            ids.append(a.id)
            in_creation_order = in_creation_order and a.index > last
            last = a.index
    if in_creation_order and all(angle == angle for angle in angles):
        # a stable sort on the angles alone keeps ties in creation order, and sorts floats much faster than
        # it sorts tuples (not with a NaN angle, from a position of NaN, which tuples order their own way)
        ranks = sorted(range(len(angles)), key=angles.__getitem__)
        state.angles = [angles[k] for k in ranks]
        state.angle_ids = [ids[k] for k in ranks]
        return
    pairs = sorted(
        (angle_of(a.position), a.index, a.id) for a in state.asteroids.values() if a.position is not None
    )
    state.angles = [p[0] for p in pairs]
    state.angle_ids = [p[2] for p in pairs]


def sector_ids(state: GameState, start: float, width: float) -> list[str]:
    """Ids of the laid-out asteroids whose angle lies in [start, start + width) (wrapping at 360°)."""
    angles, ids = state.angles, state.angle_ids
    if width >= 360.0:
        return list(ids)
    start %= 360.0
    if start >= 360.0:  # a tiny negative start rounds up to 360.0
        start = 0.0
    end = start + width
    lo = bisect_left(angles, start)
    if end <= 360.0:
        return ids[lo:bisect_left(angles, end)]
    return ids[lo:] + ids[: bisect_left(angles, end - 360.0)]


def add_forecast(state: GameState, forecast: Forecast, events: list[Event]) -> None:
    """Schedule a storm and tell the players (R7)."""
    state.forecasts.append(forecast)
    for aid in forecast.asteroids:
        known = state.storm_at.get(aid)
        if known is None or forecast.round < known:
            state.storm_at[aid] = forecast.round
    events.append(StormForecast(forecast.round, forecast.asteroids, forecast.sector))


def rebuild_storm_index(state: GameState) -> None:
    """Recompute asteroid → first forecast round from the forecasts."""
    state.storm_at.clear()
    for forecast in state.forecasts:
        for aid in forecast.asteroids:
            known = state.storm_at.get(aid)
            if known is None or forecast.round < known:
                state.storm_at[aid] = forecast.round


def hit_due_storms(state: GameState, events: list[Event]) -> None:
    """R12 step 1: every storm due this round hits, all at once as one event."""
    due = [f for f in state.forecasts if f.round <= state.round]
    if not due:
        return
    state.forecasts = [f for f in state.forecasts if f.round > state.round]
    targets = list(dict.fromkeys(aid for f in due for aid in f.asteroids))
    rebuild_storm_index(state)
    storm_hit(state, targets, events)


def generate_forecast(state: GameState, events: list[Event]) -> None:
    """R12 step 5 in a real game: with chance 1/storm_interval a new storm is forecast.

    A storm forecast at the end of round r hits at the end of round r + storm_warning (so players see it for
    `storm_warning` whole rounds); with `storm_warning = 0` it strikes at once, unannounced.
    """
    interval = state.options.storm_interval
    if state.scripted or interval <= 0 or state.rng.random() * interval >= 1.0:
        return
    if state.angle_ids:
        start = round(state.rng.random() * 360.0, 3)
        sector: tuple[float, float] | None = (start, state.storm_sector)
        ids = [a for a in sector_ids(state, start, state.storm_sector) if state.asteroids[a].exists]
    else:
        sector = None
        centre = _random_existing(state)
        if centre is None:
            return
        ids = [centre.id, *centre.neighbours]
    if not ids:
        return
    warning = state.options.storm_warning
    if warning == 0:
        storm_hit(state, ids, events)
        return
    add_forecast(state, Forecast(state.round - 1 + warning, tuple(ids), sector), events)


def _random_existing(state: GameState) -> Asteroid | None:
    candidates = [a for a in state.asteroids.values() if a.exists]
    return state.rng.choice(candidates) if candidates else None
