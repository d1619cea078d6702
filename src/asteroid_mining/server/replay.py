"""`GET /api/games/{id}/replay`: a game step by step, for the browser's replay viewer and end-of-game summary.

The answer is the public view (R17) before the first command and, for every accepted command, what a client
received for it over the WebSocket: the action, who played it, its events and the diff of the view. The game is
rebuilt from its log (belt, options, seed, commands) by `rebuild`, as live games are, so finished games replay
as well as running ones, and a log the engine refuses answers `409 game_damaged`. The answer is built from the
players' view only (R17): a game in play is replayed to anyone, as it is shown to its spectators. It is kept
encoded in the `ReplayCache` with the game's events (`history`), and asking for it is rate-limited per address.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response

from ..rules import Event, Game
from ..storage import Command, GameRecord, Progress
from .diff import ViewTracker
from .errors import ServerError
from .lobby import client_of, encoded_response
from .read_cache import Encoded
from .rebuild import read_meta, rebuild
from .replay_cache import History, ReplayCache
from .schemas import ErrorBody

router = APIRouter(prefix="/api")

BUILD_COMMANDS_PER_TOKEN = 1000
"""A history built (not found in the cache) costs its reader's address one more token of the history rate limit
for every this many commands it replayed (about 30 ms of CPU): the bucket bounds the server's work, not only the
requests. A running game's history is built again at each new seq, so asking for a 20,000-command game's replay
after each command once cost 0.6 s of CPU a request, 1.2 s a second from one address at the default rate."""


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


async def game_history(request: Request, game_id: str) -> History:
    """The game's history at its current seq, from the cache or built (a token of the caller's address's
    `ReadLimiter` taken first: 429 `rate_limited` past it); 404, or 409 `game_damaged`."""
    request.app.state.history_limiter.check(client_of(request))
    cache: ReplayCache = request.app.state.replays
    live = request.app.state.hub.games.get(game_id)
    if live is not None:  # a loaded game says its seq: a cached history is answered without reading the log
        cached = cache.peek(game_id, live.seq)
        if cached is not None:
            return cached
    found = await request.app.state.hub.store.log(game_id)
    if found is None:
        raise ServerError(404, "game_not_found", f"there is no game {game_id!r}")
    record, progress, commands = found
    built = False

    def build() -> dict[str, Any]:
        nonlocal built
        built = True
        return build_replay(record, progress, commands)

    # DamagedGame (409 game_damaged) when the log cannot be played
    history = await cache.get(record.id, progress.seq, build)
    if built:  # this request's build, not another's it waited for nor the cache's: its address pays for it
        request.app.state.history_limiter.charge(client_of(request), len(commands) / BUILD_COMMANDS_PER_TOKEN)
    return history


@router.get("/games/{game_id}/replay", response_class=Response, responses={
    200: {"content": {"application/json": {}}, "description": "The replay (`protocol.Replay`)"},
    429: {"model": ErrorBody, "description": "`rate_limited`: this address asked for too many (`Retry-After`)"}})
async def game_replay(game_id: str, request: Request) -> Response:
    """The view before the first command and every step after it (action, events, diff)."""
    history = await game_history(request, game_id)
    # sent as kept, gzipped too (the middleware leaves an encoded answer alone): never compressed per request
    return encoded_response(request, Encoded(history.replay, history.replay_gzipped))
