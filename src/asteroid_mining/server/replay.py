"""`GET /api/games/{id}/replay`: a game step by step, for the browser's replay viewer and end-of-game summary.

The answer is the public view (R17) before the first command and, for every accepted command, what a client
received for it over the WebSocket: the action, who played it, its events and the diff of the view. The game is
rebuilt from its log (belt, options, seed, commands), so finished games replay as well as running ones.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from ..maps import parse_belt
from ..rules import Game, Options, action_from_json
from ..storage import Command, GameRecord, Progress
from .diff import ViewTracker
from .errors import ServerError
from .replay_cache import ReplayCache

router = APIRouter(prefix="/api")


def build_replay(record: GameRecord, progress: Progress, commands: list[Command]) -> dict[str, Any]:
    """The replay document of a stored game (CPU work: call it off the event loop)."""
    belt = parse_belt(record.belt, source=f"game {record.id}")
    game = Game.new(belt, Options.from_json(record.options), record.seed, record.settlers)
    tracker = ViewTracker(game)
    initial = tracker.view()
    steps = []
    for command in commands:
        events = [e.to_json() for e in game.apply(action_from_json(command.action, f"commands[{command.seq}]"))]
        steps.append({"seq": command.seq, "action": command.action, "by": command.by, "events": events,
                      "diff": tracker.update(events)})
    seats = [{k: v for k, v in seat.items() if k != "token"} for seat in record.meta.get("seats", ())]
    return {"id": record.id, "status": progress.status, "seq": progress.seq, "seats": seats,
            "belt": record.meta.get("belt_name", ""), "state": initial, "steps": steps}


@router.get("/games/{game_id}/replay")
async def game_replay(game_id: str, request: Request) -> dict[str, Any]:
    """The view before the first command and every step after it (action, events, diff)."""
    found = await request.app.state.hub.store.log(game_id)
    if found is None:
        raise ServerError(404, "game_not_found", f"there is no game {game_id!r}")
    record, progress, commands = found
    cache: ReplayCache = request.app.state.replays
    return await cache.get(record.id, progress.seq, lambda: build_replay(record, progress, commands))
