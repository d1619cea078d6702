"""A cluster node's lobby is paged as a single server's: every node's games, open ones first, newest first, in
pages sliced from the node's cached listing; a cursor names a place, so a cursor one node gave leads on another."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from .harness import Cluster


@pytest.fixture(scope="module")
def pair() -> Iterator[Cluster]:
    running = Cluster(nodes=2, lease=3.0, balancer=False, extra=("--lobby-page-size", "2"))
    try:
        yield running
    finally:
        running.close()


def page(url: str, **params: Any) -> dict[str, Any]:
    answer = httpx.get(f"{url}/api/games", params=params, timeout=30)
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


def test_pages_list_every_nodes_games_and_a_cursor_leads_on_another_node(pair: Cluster) -> None:
    created = [pair.create({"seats": 1, "belt": "tutorial", "seed": seed}, node=seed % 2)["id"]
               for seed in range(5)]
    newest_first = list(reversed(created))
    # another node's new games are listed within `lobby_cache_seconds`
    deadline = time.monotonic() + 60
    while any(page(node.url)["total"] < 5 for node in pair.nodes):
        assert time.monotonic() < deadline, "a node never listed the other's games"
        time.sleep(0.2)
    first = page(pair.nodes[0].url)
    assert [g["id"] for g in first["games"]] == newest_first[:2] and first["total"] == 5
    second = page(pair.nodes[1].url, cursor=first["next"])  # the next page, from the other node
    assert [g["id"] for g in second["games"]] == newest_first[2:4]
    third = page(pair.nodes[0].url, cursor=second["next"])
    assert [g["id"] for g in third["games"]] == newest_first[4:] and third["next"] is None
    assert page(pair.nodes[1].url, status="running") == {"games": [], "total": 0, "next": None}
    refused = httpx.get(f"{pair.nodes[1].url}/api/games", params={"limit": 1000}, timeout=30)
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "limit"
