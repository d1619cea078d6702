"""`GET /api/games/{id}/events`: the whole event history of a game, for the browser's log on load, on reload and
for spectators who join late.

Each accepted command's events, in order, exactly as the WebSocket `update` for it carried them. The game is
rebuilt from its log by the replay's one rebuild (`build_replay`), so a running game and a finished one answer
alike; `after=N` leaves out the commands up to seq N.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Query, Request

from .errors import ServerError
from .replay import build_replay

router = APIRouter(prefix="/api")


def events_of(replay: dict[str, Any], after: int) -> dict[str, Any]:
    """The event history of a replay document: seq, who played and the events of every step after `after`."""
    steps = [{"seq": s["seq"], "by": s["by"], "events": s["events"]} for s in replay["steps"] if s["seq"] > after]
    return {"id": replay["id"], "status": replay["status"], "seq": replay["seq"], "steps": steps}


@router.get("/games/{game_id}/summary")
async def game_summary(game_id: str, request: Request) -> dict[str, Any]:
    """A game as the lobby lists it, running or finished (without its view: light for a browser's list)."""
    hub = request.app.state.hub
    live = await hub.get(game_id)
    if live is None:
        raise ServerError(404, "game_not_found", f"there is no game {game_id!r}")
    summary: dict[str, Any] = live.summary()
    hub.release(live)
    return summary


@router.get("/games/{game_id}/events")
async def game_events(
    game_id: str, request: Request, after: int = Query(0, ge=0, description="leave out the commands up to this seq"),
) -> dict[str, Any]:
    """Every accepted command's events (seq, by, events), oldest first."""
    found = await request.app.state.hub.store.log(game_id)
    if found is None:
        raise ServerError(404, "game_not_found", f"there is no game {game_id!r}")
    record, progress, commands = found
    replay = await asyncio.to_thread(build_replay, record, progress, commands)
    return events_of(replay, after)
