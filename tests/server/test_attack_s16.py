"""What the seventh fresh attack found on a single server: open games that expired, held in memory again by their
links' connections, counted against no limit of running games, so one address brought back as many as it had
created, past `max_live_games`, `max_live_bytes` and its own `max_games_per_client`."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from fastapi.testclient import TestClient

from asteroid_mining.server import Settings, create_app

from .helpers import in_process
from .hubs import create_from, hub_of, on_loop, refused

TTL = 3600.0
"""The life of an open game in these tests (the default): passed by moving the hub's clock, never by waiting."""


def test_expired_open_games_held_by_their_links_count_against_the_limits(tmp_path: Path) -> None:
    """An open game that expired is not counted by the limits of running games (`_held_running`), while its
    link, with a seat's token or without one, still loads it, and a connection holds it in memory as long as it
    stays. Loading one was checked against its creator's quota, but the quota counted none of its expired games
    already held: an address that created its quota of games each `open_game_ttl`, then opened every one of them
    at once, held them all in memory, past its `max_games_per_client`, past `max_live_games` and past
    `max_live_bytes` (reproduced with both limits at 1: two expired games held, and a third game created beside
    them). An expired open game held again is now counted as a running game: the second is refused (`503
    server_full`, 4409) while the first is held, and so is another address's new game."""
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        open_game_ttl=TTL, max_live_games=1, max_games_per_client=1)
    with TestClient(create_app(settings)) as client:
        hub = hub_of(client)
        start = time.time()
        first = create_from(client, "10.0.0.1")
        hub.clock = lambda: start + TTL + 60  # (the hub's clock only: the open game expires without waiting)
        assert on_loop(client, hub.expire) == 1
        second = create_from(client, "10.0.0.1")  # the first expired: the quota has room again
        hub.clock = lambda: start + 2 * (TTL + 60)
        assert on_loop(client, hub.expire) == 1 and not hub.games

        with contextlib.ExitStack() as held:
            ws = held.enter_context(client.websocket_connect(
                f"/api/games/{first['id']}/ws?token={first['seats'][0]['token']}"))
            assert in_process(ws).next_of("state")["seq"] == 0  # room: the first opens, and is held
            with client.websocket_connect(f"/api/games/{second['id']}/ws") as watcher:  # a spectator's link
                refused(watcher, "server_full", 4409)
            assert second["id"] not in hub.games
            answer = client.post("/api/games", json={"seats": 1, "belt": "tiny"})  # another address's
            assert (answer.status_code, answer.json()["error"]["code"]) == (503, "server_full"), answer.text
            assert [g.id for g in hub.games.values()] == [first["id"]]
