"""`GET /api/games/{id}/events`: the whole event history of a game, for the browser's log on load, on reload and
for spectators who join late.

Each accepted command's events, in order, exactly as the WebSocket `update` for it carried them. The game is
rebuilt from its log by the replay's one rebuild (`build_replay`), so a running game and a finished one answer
alike; `after=N` leaves out the commands up to seq N. The answer comes from the replay's cache (by game and seq,
each step's events kept as JSON text), so asking again, with any `after`, costs only joining texts; asking is
rate-limited per address with the replay.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request, Response

from .errors import ServerError
from .replay import game_history
from .schemas import ErrorBody

router = APIRouter(prefix="/api")


@router.get("/games/{game_id}/summary")
async def game_summary(game_id: str, request: Request) -> dict[str, Any]:
    """A game as the lobby lists it, running or finished (without its view: light for a browser's list)."""
    async with request.app.state.hub.acquire(game_id) as live:  # released however the request ends
        if live is None:
            raise ServerError(404, "game_not_found", f"there is no game {game_id!r}")
        summary: dict[str, Any] = live.summary()
        return summary


@router.get("/games/{game_id}/events", response_class=Response, responses={
    200: {"content": {"application/json": {}}, "description": "The events (`schemas.GameEvents`)"},
    429: {"model": ErrorBody, "description": "`rate_limited`: this address asked for too many (`Retry-After`)"}})
async def game_events(
    game_id: str, request: Request, after: int = Query(0, ge=0, description="leave out the commands up to this seq"),
) -> Response:
    """Every accepted command's events (seq, by, events), oldest first."""
    history = await game_history(request, game_id)  # cached with the replay, by game and seq
    return Response(history.events(after), media_type="application/json")
