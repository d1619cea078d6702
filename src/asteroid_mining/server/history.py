"""`GET /api/games/{id}/events`: the whole event history of a game, for the browser's log on load, on reload and
for spectators who join late.

Each accepted command's events, in order, exactly as the WebSocket `update` for it carried them. The game is
rebuilt from its log by the replay's one rebuild (`build_replay`), so a running game and a finished one answer
alike; `after=N` leaves out the commands up to seq N. The answer comes from the replay's cache (by game and seq,
each step's events kept as JSON text), so asking again, with any `after`, costs only joining texts; asking is
rate-limited per address with the replay.
"""

from __future__ import annotations

from fastapi import APIRouter, Query, Request, Response

from .live import LiveGame
from .lobby import encoded_response, finished_or_live
from .read_cache import GZIP_MINIMUM, Encoded
from .replay import game_history
from .schemas import ErrorBody, GameSummary

router = APIRouter(prefix="/api")


@router.get("/games/{game_id}/summary", response_model=None, responses={
    200: {"model": GameSummary, "description": "The game as the lobby lists it"},
    404: {"model": ErrorBody, "description": "No such game"},
    429: {"model": ErrorBody, "description": "`rate_limited`: this address loaded too many finished games "
          "(`Retry-After`)"}})
async def game_summary(game_id: str, request: Request) -> Response:
    """A game as the lobby lists it, running or finished (without its view: light for a browser's list). A
    finished game's is kept once loaded (the browser's lobby asks for each of its player's games every few
    seconds); a load is charged to the address's history bucket (429 `rate_limited` past it)."""
    return await finished_or_live(request, game_id, "summary", LiveGame.summary)


@router.get("/games/{game_id}/events", response_class=Response, responses={
    200: {"content": {"application/json": {}}, "description": "The events (`schemas.GameEvents`)"},
    429: {"model": ErrorBody, "description": "`rate_limited`: this address asked for too many (`Retry-After`)"}})
async def game_events(
    game_id: str, request: Request, after: int = Query(0, ge=0, description="leave out the commands up to this seq"),
) -> Response:
    """Every accepted command's events (seq, by, events), oldest first."""
    history = await game_history(request, game_id)  # cached with the replay, by game and seq
    text = history.events(after)
    # gzipped mostly from the blocks kept with the history (`History.events_gzip`), not by the middleware: it
    # compressed a long game's events again at every request on the event loop (the middleware leaves an answer
    # encoded already alone, and one this short too)
    if len(text) < GZIP_MINIMUM or "gzip" not in request.headers.get("accept-encoding", ""):
        return encoded_response(request, Encoded(text, None))
    return encoded_response(request, Encoded(text, history.events_gzip(after, text)))
