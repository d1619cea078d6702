"""`GET /api/games/{id}/replay`: a game step by step, for the browser's replay viewer and end-of-game summary.

The answer is the public view (R17) before the first command and, for every accepted command, what a client
received for it over the WebSocket: the action, who played it, its events and the diff of the view. The game is
rebuilt from its log (belt, options, seed, commands) by `rebuild`, as live games are, so finished games replay
as well as running ones, and a log the engine refuses answers `500 game_damaged`.
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request

from ..rules import Event, Game
from ..storage import Command, GameRecord, Progress
from .diff import ViewTracker
from .errors import ServerError
from .rebuild import DamagedGame, read_meta, rebuild

router = APIRouter(prefix="/api")


def build_replay(record: GameRecord, progress: Progress, commands: list[Command]) -> dict[str, Any]:
    """The replay document of a stored game (CPU work: call it off the event loop); DamagedGame when the log
    cannot be played again."""
    meta = read_meta(record)
    steps: list[dict[str, Any]] = []
    start: dict[str, Any] = {}
    tracker: ViewTracker | None = None

    def step(command: Command, events: list[Event]) -> None:
        assert tracker is not None
        happened = [e.to_json() for e in events]
        steps.append({"seq": command.seq, "action": command.action, "by": command.by, "events": happened,
                      "diff": tracker.update()})

    def begin(game: Game) -> None:
        nonlocal tracker
        tracker = ViewTracker(game)
        start.update(tracker.view())

    rebuild(record, commands, on_start=begin, on_step=step)
    return {"id": record.id, "status": progress.status, "seq": progress.seq, "seats": meta.seats_public(),
            "belt": meta.belt_name, "state": start, "steps": steps}


@router.get("/games/{game_id}/replay")
async def game_replay(game_id: str, request: Request) -> dict[str, Any]:
    """The view before the first command and every step after it (action, events, diff)."""
    found = await request.app.state.hub.store.log(game_id)
    if found is None:
        raise ServerError(404, "game_not_found", f"there is no game {game_id!r}")
    record, progress, commands = found
    try:
        return await asyncio.to_thread(build_replay, record, progress, commands)
    except DamagedGame as damaged:
        raise ServerError(500, damaged.code, str(damaged)) from None
