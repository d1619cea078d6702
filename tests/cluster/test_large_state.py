"""Behind HAProxy, on a cluster of two nodes: a browser's offer of permessage-deflate reaches the node and its
answer comes back, so a game's first `state` on the `large` belt arrives compressed through the balancer, within
the 150 KB target (`transport.LargeMessageDeflate`; the single server's test is tests/server/test_large_state.py)."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

from tests.server.helpers import websocket_handshake
from tests.server.test_large_state import OFFER, TARGET_BYTES, inflate, read_frame

from .harness import Cluster


def test_a_large_first_state_comes_compressed_through_the_balancer() -> None:
    running = Cluster(nodes=2)
    try:
        assert running.balancer is not None
        game = running.create({"belt": "large", "seats": 1, "settlers_per_seat": 1, "seed": 3})
        token = game["seats"][0]["token"]
        where = urlsplit(running.balancer.url)
        with socket.create_connection((where.hostname, where.port), timeout=120) as sock:
            headers = websocket_handshake(sock, f"/api/games/{game['id']}/ws?token={token}", OFFER)
            assert headers.get("sec-websocket-extensions", "").startswith("permessage-deflate"), headers
            first, wire, payload = read_frame(sock)
            assert first == 0xC1, hex(first)  # compressed
            assert wire <= TARGET_BYTES
            state = inflate(payload)
            assert state["type"] == "state" and len(state["state"]["asteroids"]) == 2000
    finally:
        running.close()
