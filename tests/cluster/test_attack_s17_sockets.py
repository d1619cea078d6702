"""What the eighth fresh attack on a cluster found in every node (and every single server): each WebSocket
connection, once closed, stayed in memory until a full collection of the cyclic garbage, which the server's
thresholds (`main.GC_THRESHOLDS`) run about once in millions of connections."""

from __future__ import annotations

import gc
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from asteroid_mining.server import Settings, transport
from asteroid_mining.server.transport import GuardedWebSocket
from tests.server.helpers import free_port, served_in_thread

DEADLINE = 60.0
"""Seconds a condition is waited for at most: a bound for a busy machine, never a measure."""
CONNECTIONS = 30


def alive() -> int:
    """The WebSocket connections' protocols still in memory."""
    return sum(issubclass(type(thing), GuardedWebSocket) for thing in gc.get_objects())


def test_a_closed_websocket_connection_is_freed_without_the_cyclic_collector(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A closed connection's protocol was held by two cycles: its scope kept its `send` (`direct.DirectSend`), and
    the watch of its socket after the application (`GuardedWebSocket.abort_when_stuck`) was a closure naming
    itself. Only a full collection freed them, and the server's thresholds run one about once in millions of
    connections: a spectator connecting, reading the state and closing, 10,000 times, grew a server from 77 to
    275 MB (20 KB a connection, linear; a full collection then found 177,000 objects unreachable after 4,000):
    720 MB an hour for one address at its rate of new connections (`connect_rate_per_second`, 10), on every node
    of a cluster. A closed connection is now freed as it closes (77 to 138 MB over 10,000, 132 MB after the first
    4,000). Here, with the cyclic collector off, no connection's protocol is left once the connections have
    closed."""
    monkeypatch.setattr(transport, "CLOSING_GRACE", 0.0)  # the watch after the application: at once
    settings = Settings(data_dir=tmp_path, static_dir=tmp_path / "static", port=free_port())
    was_enabled = gc.isenabled()
    try:
        with served_in_thread(settings, DEADLINE):
            url = f"127.0.0.1:{settings.port}"
            game: dict[str, Any] = httpx.post(f"http://{url}/api/games", json={"seats": 1},
                                              timeout=DEADLINE).json()
            gc.collect()
            gc.disable()  # freed by their reference counts alone, or not at all
            for _ in range(CONNECTIONS):
                with connect(f"ws://{url}/api/games/{game['id']}/ws", open_timeout=DEADLINE) as spectator:
                    assert '"type":"state"' in str(spectator.recv(timeout=DEADLINE))
            deadline = time.monotonic() + DEADLINE
            while alive():  # each goes once the server has seen its close and its watch has run
                assert time.monotonic() < deadline, f"{alive()} of {CONNECTIONS} closed connections are held still"
                time.sleep(0.05)
    finally:
        if was_enabled:
            gc.enable()
