"""What a fresh attack on the server found, each held by a test at the level it was found (HTTP, WebSocket)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from asteroid_mining.server.live import LiveGame


def _finished_game(client: TestClient) -> dict[str, Any]:
    """A new game, abandoned by its seat: finished, and let go by the hub (nobody is connected)."""
    game: dict[str, Any] = client.post("/api/games", json={"belt": "tutorial", "seed": 5}).json()
    token = game["seats"][0]["token"]
    assert client.post(f"/api/games/{game['id']}/abandon", json={"token": token}).status_code == 200
    assert game["id"] not in client.app.state.hub.games  # type: ignore[attr-defined]
    return game


@contextmanager
def _no_cyclic_collector() -> Iterator[None]:
    """The cyclic collector off, as good as the server's rare full collections (`main.GC_THRESHOLDS`): what is
    not freed by reference counting alone stays until one."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _games_in_memory() -> int:
    """Live games anywhere in the process, garbage not yet collected included."""
    return sum(1 for thing in gc.get_objects() if isinstance(thing, LiveGame))


# ----- a finished game loaded for a request is freed once it is let go -----
def test_a_finished_game_read_again_and_again_is_freed_each_time(client: TestClient) -> None:
    """A finished game is loaded for each request that reads it and let go after it. The game and its replication
    referred to each other, so every one of those loads stayed in memory until a full collection, which the
    server's thresholds make rare: 3.7 MB a request on a large belt (720 MiB after 120 reads of its summary)."""
    game = _finished_game(client)
    hub = client.app.state.hub  # type: ignore[attr-defined]
    with _no_cyclic_collector():
        held = _games_in_memory()
        assert held == len(hub.games)
        for path in ("/summary", "", "/goals?lesson=fly"):
            for _ in range(5):
                assert client.get(f"/api/games/{game['id']}{path}").status_code == 200
        with client.websocket_connect(f"/api/games/{game['id']}/ws") as spectator:
            assert spectator.receive_json()["type"] == "state"
        client.get("/api/health")  # the last release's stop task has run by now
        assert game["id"] not in hub.games
        assert _games_in_memory() == held
