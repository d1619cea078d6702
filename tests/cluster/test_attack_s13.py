"""What the fourth fresh attack found on a cluster: the balancer `make cluster` configures held every connection
one client address opened, so one address could take all of them."""

from __future__ import annotations

import socket

import httpx

from tests.server.helpers import websocket_handshake
from tests.services import LocalCluster, haproxy_config

PER_CLIENT = 3
"""The test balancer's connections per client address (`make cluster`'s: 320)."""


def test_the_balancer_caps_each_clients_connections() -> None:
    """A client address opening 4,200 sockets that each sent half a request held every one of the balancer's
    `maxconn` (4,096): nobody else was served (a request from another address waited past 8 s) until
    `timeout http-request` closed them, 10 s later, and the address opened as many again in half a second. The
    balancer now holds at most `per_client` connections of one address (320 by default, a single server's
    `max_sockets_per_client`) and closes the next ones before reading a byte; other addresses are served."""
    config = haproxy_config(8000, [8001])
    assert "tcp-request connection reject if { sc_conn_cur(0) gt 320 }" in config
    # counted as the nodes count an address (`security.client_key`): an IPv6 client by its /64 network, whose
    # 2**64 addresses were each a client of its own; an IPv4 address whole (127.0.0.5 and .6 below stay apart)
    assert "stick-table type ipv6 " in config and "track-sc0 src,ipmask(32,64)" in config
    running = LocalCluster(1, port=None, fsync=False, extra=("--bot-delay", "0"), per_client=PER_CLIENT)
    held: list[socket.socket] = []
    try:
        assert running.balancer is not None
        port = running.balancer.port
        made = httpx.post(f"{running.balancer.url}/api/games", json={"seats": 1, "belt": "tutorial"}, timeout=30)
        assert made.status_code == 201, made.text
        game = made.json()["id"]
        for _ in range(PER_CLIENT):  # spectators' WebSockets, which the balancer keeps open (`timeout tunnel`)
            sock = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=("127.0.0.5", 0))
            held.append(sock)
            websocket_handshake(sock, f"/api/games/{game}/ws")
        try:  # closed unanswered: reset as soon as the balancer has accepted it (even before `connect` returns)
            with socket.create_connection(("127.0.0.1", port), timeout=30,
                                          source_address=("127.0.0.5", 0)) as one_more:
                one_more.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n")
                answer = one_more.recv(4096)
        except ConnectionResetError:
            answer = b""
        assert answer == b"", answer
        other = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.6"), timeout=30)
        with other:
            assert other.get(f"{running.balancer.url}/api/health").status_code == 200
        held.pop().close()  # one of its connections gone, the address may open another
        again = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.5"), timeout=30)
        with again:
            assert again.get(f"{running.balancer.url}/api/health").status_code == 200
    finally:
        for sock in held:
            sock.close()
        running.close()
