"""A lesson's game read through a node that does not play it.

The ninth attack found that one server loaded a lesson's game let go for every read of it, uncharged; a cluster
node did the same for every read of a lesson's game another node plays: its goals and its view, loaded from the
store and let go after each request, charged to nobody (3 ms of CPU a read on `first-game`, at no rate). Such a
load is charged now, and the node keeps the lesson's game it loaded, as it keeps a game it follows for a
spectator: its player, whose browser asks for the goals after each move through whichever node the balancer
picks, pays one load per node. Two nodes in one process on a real Redis and PostgreSQL."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from asteroid_mining.server.hub import GameHub
from tests.cluster.in_process import served_node
from tests.server.helpers import in_process
from tests.services import Redis

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")  # (as tests/server)

BURST = 3
"""Each address's history bucket on the reading node: three loads, refilled once in 1,000 seconds."""
KEEP = 3600.0
"""How long the reading node keeps a game it follows: longer than any test (its keeping never runs out here)."""


def test_lessons_games_another_node_plays_are_charged_to_their_reader_once(services: tuple[Redis, str],
                                                                           tmp_path: Path) -> None:
    """Node `a` plays `BURST + 1` lessons' games, their players connected there; an address reads each one's goals
    through node `b`. Each read loaded the game on `b` and let it go, and none was charged: every one answered,
    again and again. Now the first `BURST` loads take the bucket's tokens and the next game's is refused (`429
    rate_limited`), while the games `b` loaded are kept there: read again, they answer without a load."""
    redis, database = services
    with contextlib.ExitStack() as stack:
        owner = stack.enter_context(served_node(redis, database, tmp_path, "a"))
        reader = stack.enter_context(served_node(redis, database, tmp_path, "b", history_rate_per_second=0.001,
                                                 history_rate_burst=BURST, follower_keep_seconds=KEEP))
        games: list[dict[str, Any]] = []
        for _ in range(BURST + 1):
            made = owner.post("/api/lessons/fly/games")
            assert made.status_code == 201, made.text
            game = made.json()
            player = stack.enter_context(owner.websocket_connect(
                f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}"))
            assert in_process(player).next_of("state")["seq"] == 0  # node `a` holds and plays it
            games.append(game)
        hub: GameHub = reader.app.state.hub  # type: ignore[attr-defined]
        loads: list[str] = []
        load = hub.store.load

        async def counted(game_id: str) -> Any:
            loads.append(game_id)
            return await load(game_id)

        hub.store.load = counted  # type: ignore[method-assign]

        def goals(game: dict[str, Any]) -> int:
            answer: Any = reader.get(f"/api/games/{game['id']}/goals", params={"lesson": "fly"})
            return int(answer.status_code)

        assert [goals(game) for game in games] == [200] * BURST + [429]
        assert loads == [game["id"] for game in games[:BURST]]  # the refused one was not loaded
        # its player's next moves: the goals of a game `b` keeps cost no load and no token
        assert [goals(game) for game in games[:BURST] for _ in range(3)] == [200] * (3 * BURST)
        assert len(loads) == BURST
