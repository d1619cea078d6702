"""What the seventh fresh attack found on a cluster: open games that expired, held again by their links'
connections, counted for no quota, so one address brought back as many as it had let expire."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from asteroid_mining.server.hub import GameHub
from tests.cluster.in_process import served_node
from tests.server.helpers import in_process
from tests.server.hubs import refused
from tests.services import Redis

TTL = 3600.0
"""The life of an open game in these tests (the default): passed by moving the node's clock, never by waiting."""
BODY = {"seats": 1, "settlers_per_seat": 1, "belt": "tutorial", "seed": 7}


def test_expired_open_games_held_again_count_for_their_creators_quota(services: tuple[Redis, str],
                                                                      tmp_path: Path) -> None:
    """The shared store counts an address's running games without its expired open games, and a node refused to
    bring one back by its link only when that count was full: the expired games it had brought back and held
    counted for nothing, so an address that let its quota of games expire each `open_game_ttl`, then opened all
    of them at once, held every one, past its `max_games_per_client` (reproduced with a quota of 1: two held). An
    expired open game held by a node counts for its creator's quota there: the second is refused (`503
    server_full`, 4409) while the first is held, and so is a new game (`429 too_many_games`)."""
    redis, database = services
    with served_node(redis, database, tmp_path, "a", max_games_per_client=1, open_game_ttl=TTL) as node:
        hub: GameHub = node.app.state.hub  # type: ignore[attr-defined]
        start = time.time()
        first = node.post("/api/games", json=BODY).json()
        hub.clock = lambda: start + TTL + 60  # (the node's clock only: the open game expires without waiting)
        made = node.post("/api/games", json=BODY)
        assert made.status_code == 201, made.text  # the first expired: the quota has room again
        second = made.json()
        hub.clock = lambda: start + 2 * (TTL + 60)

        with contextlib.ExitStack() as held:
            ws = held.enter_context(node.websocket_connect(
                f"/api/games/{first['id']}/ws?token={first['seats'][0]['token']}"))
            assert in_process(ws).next_of("state")["seq"] == 0  # within the quota: the first opens, and is held
            with node.websocket_connect(
                    f"/api/games/{second['id']}/ws?token={second['seats'][0]['token']}") as again:
                refused(again, "server_full", 4409)
            assert second["id"] not in hub.games
            assert node.post("/api/games", json=BODY).json()["error"]["code"] == "too_many_games"
