"""A cluster node lets go of a game nobody has been connected to for `idle_game_seconds`, its lease given up (an
owner kept its games for as long as it ran, in memory and in its running games' limits); the game resumes where
it was on whichever node a client of it reaches next."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.server.helpers import two_loops_belt, winning_seed
from tests.services import wait_until

from .harness import Cluster, open_ws, owner_of, receive


@pytest.fixture
def pair() -> Iterator[Cluster]:
    running = Cluster(nodes=2, lease=3.0, balancer=False, extra=("--idle-game-seconds", "1"))
    try:
        yield running
    finally:
        running.close()


def next_of(conn: Any, kind: str, timeout: float = 20) -> dict[str, Any]:
    while True:
        message = receive(conn, timeout)
        if message["type"] == kind:
            return message


def test_an_owner_lets_an_idle_game_go_and_another_node_resumes_it(pair: Cluster) -> None:
    created = pair.create({"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": winning_seed()},
                          node=0)
    game, token = created["id"], created["seats"][0]["token"]
    with open_ws(pair.ws_url(game, token, node=0)) as ws:
        assert next_of(ws, "state")["seq"] == 0
        ws.send('{"type": "act", "settler": "s1", "action": "wait", "ref": "first"}')
        assert next_of(ws, "update")["seq"] == 1
        assert owner_of(pair, game) == pair.nodes[0].name
    # nobody is connected: within its idle time and a sweep, node 0 gives the game up (its lease with it)
    wait_until(lambda: owner_of(pair, game) is None, 60, "node 0 never let the idle game go")
    listed = {g["id"]: g for g in httpx.get(f"{pair.nodes[0].url}/api/games", timeout=10).json()["games"]}
    assert listed[game]["seq"] == 1 and listed[game]["status"] == "running"

    with open_ws(pair.ws_url(game, token, node=1)) as ws:  # another node loads it, where it was, and plays it
        assert next_of(ws, "state")["seq"] == 1
        ws.send('{"type": "act", "settler": "s1", "action": "wait", "ref": "first"}')  # sent again: played once
        assert next_of(ws, "ack") == {"type": "ack", "ref": "first", "seq": 1}
        ws.send('{"type": "act", "settler": "s1", "action": "wait", "ref": "second"}')
        assert next_of(ws, "update")["seq"] == 2
        assert owner_of(pair, game) == pair.nodes[1].name
