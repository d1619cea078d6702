"""What the players see (R17): everything but the cores of asteroids nobody has surveyed."""

from __future__ import annotations

from typing import Any

from .effects import winnable
from .state import Asteroid, GameState

UNKNOWN = "unknown"
"""The core of an unsurveyed asteroid, as the players see it."""


def _sorted_ids(state: GameState, ids: dict[str, None]) -> list[str]:
    return sorted(ids, key=lambda tid: state.things[tid].index)


def asteroid_view(state: GameState, a: Asteroid) -> dict[str, Any]:
    """One asteroid as the players see it, with its sun state and the round it next changes (R5)."""
    if not a.exists:
        return {"id": a.id, "exists": False}
    near = state.is_near(a)
    return {
        "id": a.id,
        "exists": True,
        "mantle": a.mantle,
        "core": a.core if a.surveyed or a.mantle == 0 else UNKNOWN,
        "surveyed": a.surveyed,
        "near": near,
        "next_change": a.orbit.next_change(state.round) if a.orbit else None,
        "orbit": str(a.orbit) if a.orbit else None,
        "pinned": a.pinned,
        "position": list(a.position) if a.position else None,
        "shelter": a.shelter,
        "exposures": a.exposures,
        "neighbours": list(a.neighbours),
        "gates": list(a.gates),
        "settlers": _sorted_ids(state, a.settlers),
        "robots": _sorted_ids(state, a.robots),
        "ufos": _sorted_ids(state, a.ufos),
    }


def player_view(state: GameState) -> dict[str, Any]:
    """The public state of the game as JSON-ready data (R17)."""
    return {
        "round": state.round,
        "status": state.status,
        "turn": state.turn,
        "winnable": winnable(state),
        "options": state.options.to_json(),
        "asteroids": [asteroid_view(state, a) for a in state.asteroids.values()],
        "settlers": [
            {"id": s.id, "at": s.at, "alive": s.alive, "cargo": dict(s.cargo), "gates": list(s.gates)}
            for s in state.settlers.values()
        ],
        "robots": [{"id": r.id, "at": r.at, "alive": r.alive} for r in state.robots.values()],
        "ufos": [{"id": u.id, "at": u.at, "alive": u.alive, "cargo": dict(u.cargo)} for u in state.ufos.values()],
        "gates": [
            {"id": g.id, "partner": g.partner, "at": g.at, "carrier": g.carrier, "exists": g.exists,
             "haywire": g.haywire, "active": state.gate_active(g)}
            for g in state.gates.values()
        ],
        "forecasts": [
            {"round": f.round, "asteroids": list(f.asteroids), "sector": list(f.sector) if f.sector else None}
            for f in state.forecasts
        ],
    }
