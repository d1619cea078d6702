"""What the sixth fresh attack found on a cluster: open games nobody played held their creator's quota of running
games for ever (the shared store counted every running game, expired or not)."""

from __future__ import annotations

import time
from pathlib import Path

from asteroid_mining.server.hub import GameHub
from tests.cluster.in_process import served_node
from tests.server.helpers import in_process
from tests.server.hubs import refused
from tests.services import Redis

TTL = 3600.0
"""The life of an open game in these tests (the default): passed by moving the nodes' clocks, never by waiting."""
BODY = {"seats": 1, "settlers_per_seat": 1, "belt": "tutorial", "seed": 7}


def test_expired_open_games_no_longer_count_for_their_creators_quota(services: tuple[Redis, str],
                                                                    tmp_path: Path) -> None:
    """A node counts an address's running games in the shared store, and counted every running game there: an
    open game nobody played never stopped counting, where on one server it expires after `open_game_ttl` and
    counts no more. An address that had created its quota of games and left them unplayed was refused every new
    game on the cluster for ever (`429 too_many_games`), across restarts; behind one address (a school, a
    carrier's NAT) everyone was. Expired open games no longer count; one brought back by its link is refused while
    its creator's quota is full (`503 server_full`, as on one server), and opens once there is room."""
    redis, database = services
    with served_node(redis, database, tmp_path, "a", max_games_per_client=2, open_game_ttl=TTL) as node:
        made = [node.post("/api/games", json=BODY) for _ in range(3)]
        assert [m.status_code for m in made] == [201, 201, 429]
        hub: GameHub = node.app.state.hub  # type: ignore[attr-defined]
        later = time.time() + TTL + 60
        hub.clock = lambda: later  # (the node's clock only: the open games expire without waiting)
        fresh = [node.post("/api/games", json=BODY) for _ in range(3)]
        assert [m.status_code for m in fresh] == [201, 201, 429], fresh[2].text

        old = made[0].json()
        token = old["seats"][0]["token"]
        with node.websocket_connect(f"/api/games/{old['id']}/ws?token={token}") as ws:
            refused(ws, "server_full", 4409)
        gone = fresh[0].json()
        assert node.post(f"/api/games/{gone['id']}/abandon",
                         json={"token": gone["seats"][0]["token"]}).status_code == 200
        with node.websocket_connect(f"/api/games/{old['id']}/ws?token={token}") as ws:
            player = in_process(ws)  # room again: its link opens it, and it is played
            assert player.next_of("state")["seq"] == 0
            player.act("s1", "wait", ref="first")
            assert player.next_of("update")["seq"] == 1
        assert node.post("/api/games", json=BODY).json()["error"]["code"] == "too_many_games"
