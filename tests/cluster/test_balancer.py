"""Behind HAProxy: the balancer says who each client is (whatever the client claims in `X-Forwarded-For`), and
the nodes believe it, so the per-address quotas count each client's own address — not one the client chose, and
not the balancer's."""

from __future__ import annotations

import httpx

from tests.server.helpers import two_loops_belt
from tests.services import haproxy_config

from .harness import Cluster

BODY = {"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt()}


def client_from(address: str) -> httpx.Client:
    """An HTTP client whose connections come from `address` (any 127.x.y.z is this machine's loopback), so that
    the nodes can tell it from the balancer, which connects from 127.0.0.1."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=10)


def test_the_balancer_replaces_a_forwarded_header_it_is_sent() -> None:
    config = haproxy_config(8000, [8001, 8002])
    assert "http-request set-header X-Forwarded-For %[src]" in config
    assert "option forwardfor" not in config  # it would only append, and keep what the client sent


def test_a_client_behind_the_balancer_cannot_choose_its_address() -> None:
    running = Cluster(nodes=2, extra=("--max-games-per-client", "1"))
    try:
        assert running.balancer is not None
        url = f"{running.balancer.url}/api/games"
        with client_from("127.0.0.2") as first, client_from("127.0.0.3") as second:
            made = first.post(url, json=BODY, headers={"X-Forwarded-For": "1.2.3.4"})
            assert made.status_code == 201, made.text
            # round robin: the other node, which counts the first game for the same (real) address
            again = first.post(url, json=BODY, headers={"X-Forwarded-For": "5.6.7.8"})
            assert again.status_code == 429 and again.json()["error"]["code"] == "too_many_games"
            # another client is its own address, not the balancer's, and cannot pass for the first one either
            other = second.post(url, json=BODY, headers={"X-Forwarded-For": "127.0.0.2"})
            assert other.status_code == 201, other.text
            assert second.post(url, json=BODY).status_code == 429
    finally:
        running.close()
