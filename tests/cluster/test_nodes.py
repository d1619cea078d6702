"""Nodes of a cluster, two at a time without a balancer (each client chooses its node): the lobby on every node,
a command sent again answered with an `ack`, the store's fence against a node that woke up too late, bots going
on after their node died."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets

from tests.server.helpers import PLANS, two_loops_belt, winning_seed
from tests.services import wait_until

from .harness import Cluster, open_ws, owner_of, receive


@pytest.fixture
def pair() -> Iterator[Cluster]:
    # leases of the default length: a node of a busy machine that renews a second late must not lose its games in
    # tests that do not take them from it (the tests that do wait for the lease to run out, however long)
    running = Cluster(nodes=2, lease=3.0, balancer=False, extra=("--bot-delay", "0.05"))
    try:
        yield running
    finally:
        running.close()


def two_seats(cluster: Cluster, node: int) -> tuple[str, dict[str, str]]:
    created = cluster.create({"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": winning_seed()},
                             node=node)
    return created["id"], {seat["settlers"][0]: seat["token"] for seat in created["seats"]}


def next_of(conn: Any, kind: str, timeout: float = 20) -> dict[str, Any]:
    while True:
        message = receive(conn, timeout)
        if message["type"] == kind:
            return message


def test_every_node_lists_every_game_and_shows_it(pair: Cluster) -> None:
    game, _ = two_seats(pair, node=0)
    for node in pair.nodes:
        listed = httpx.get(f"{node.url}/api/games", timeout=10).json()["games"]
        assert [g["id"] for g in listed] == [game] and listed[0]["status"] == "open"
        detail = httpx.get(f"{node.url}/api/games/{game}", timeout=10).json()
        assert detail["id"] == game and detail["state"]["turn"] == "s1"


def test_a_command_sent_again_on_another_node_is_answered_not_played_twice(pair: Cluster) -> None:
    game, tokens = two_seats(pair, node=0)
    step = {"type": "act", **PLANS["s1"][0], "ref": "a-unique-ref-1"}
    with open_ws(pair.ws_url(game, tokens["s1"], node=0)) as first:
        assert receive(first, 20)["type"] == "state"
        first.send(json.dumps(step))
        played = next_of(first, "update")
        assert played["ref"] == "a-unique-ref-1" and played["by"] == {"seat": 1, "ref": "a-unique-ref-1"}
    with open_ws(pair.ws_url(game, tokens["s1"], node=1)) as again:  # a follower: relayed to the owner
        assert receive(again, 20)["seq"] == 1
        again.send(json.dumps(step))
        assert next_of(again, "ack") == {"type": "ack", "ref": "a-unique-ref-1", "seq": 1}
    replay = httpx.get(f"{pair.nodes[1].url}/api/games/{game}/replay", timeout=10).json()  # (log: once ended)
    assert [s["seq"] for s in replay["steps"]] == [1]


def test_a_node_that_lost_its_game_while_paused_is_fenced_off(pair: Cluster) -> None:
    game, tokens = two_seats(pair, node=1)
    assert owner_of(pair, game) is None  # created, not owned: the node of its first client will own it
    with open_ws(pair.ws_url(game, tokens["s1"], node=0)) as old:
        assert receive(old, 20)["type"] == "state"
        assert owner_of(pair, game) == "node1"
        with open_ws(pair.ws_url(game, tokens["s2"], node=1)) as new:
            assert receive(new, 20)["type"] == "state"
            node1 = pair.nodes[0].proc
            assert node1 is not None
            os.kill(node1.pid, signal.SIGSTOP)  # frozen: its lease runs out while it believes it owns the game
            try:
                wait_until(lambda: owner_of(pair, game) != "node1", 60, "node1's lease running out")
                # s1's turn, but node1 is frozen: s2's node takes the game over when told of it (the watchdog)
                wait_until(lambda: owner_of(pair, game) == "node2", 60, "node2 taking the game over")
            finally:
                os.kill(node1.pid, signal.SIGCONT)
            # node1 wakes up, finds its lease gone (or its next append fenced) and lets the game go: 1012
            with pytest.raises(websockets.exceptions.ConnectionClosed) as closed:
                while True:
                    old.recv(timeout=20)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    with open_ws(pair.ws_url(game, tokens["s1"], node=0)) as back:  # now a follower of node2
        assert receive(back, 20)["seq"] == 0
        back.send(json.dumps({"type": "act", **PLANS["s1"][0], "ref": "after-the-fence"}))
        assert next_of(back, "update")["seq"] == 1
    assert owner_of(pair, game) == "node2"


def test_bots_go_on_after_their_node_dies(pair: Cluster) -> None:
    created = pair.create({"seats": 2, "settlers_per_seat": 2, "bots": {"1": "random", "2": "greedy"},
                           "belt": "small", "seed": 3}, node=0)
    game = created["id"]
    with open_ws(pair.ws_url(game, None, node=0)) as owner, \
            open_ws(pair.ws_url(game, None, node=1)) as watcher:  # node1 owns the game (its first client); node2
        assert receive(owner, 20)["type"] == "state"       # follows it for a spectator
        seq = receive(watcher, 20)["seq"]
        while seq < 3:
            seq = next_of(watcher, "update")["seq"]
        pair.nodes[0].kill9()
        # nobody sends a command: node2's watchdog takes the game over, and its bots play on (the commands up to
        # the takeover may all be node1's, played before the kill while this spectator lagged behind: the bots
        # are seen going on only after it)
        detail = f"{pair.nodes[1].url}/api/games/{game}"
        wait_until(lambda: owner_of(pair, game) == "node2" or httpx.get(detail, timeout=10).json()["status"]
                   not in ("open", "running"), 60, "node2 taking the game over")
        taken = httpx.get(detail, timeout=10).json()["seq"]
        # A command node1 stored but was killed before publishing reaches node2 from the store as it takes over:
        # its clients get the whole state again (never a gap in the updates)
        status = "running"
        while status == "running" and seq < taken + 5:
            message = receive(watcher, 30)
            if message["type"] == "state":
                assert message["seq"] >= seq
                seq, status = message["seq"], message["state"]["status"]
                continue
            assert message["type"] == "update", message
            assert message["seq"] == seq + 1 and message["by"]["auto"] == "bot"
            seq, status = message["seq"], message["diff"]["status"]
    assert owner_of(pair, game) in ("node2", None)


def test_a_stopped_node_gives_its_games_up_at_once() -> None:
    """Draining: SIGTERM, and the node's leases are released on the way out — with leases far longer than the
    test, the game is taken over at the next command without waiting for them to run out."""
    running = Cluster(nodes=2, lease=60.0, balancer=False)
    try:
        game, tokens = two_seats(running, node=0)
        with open_ws(running.ws_url(game, None, node=0)) as spectator, \
                open_ws(running.ws_url(game, tokens["s1"], node=1)) as player:
            assert receive(spectator, 20)["type"] == "state" and receive(player, 20)["type"] == "state"
            assert owner_of(running, game) == "node1"
            running.nodes[0].stop()
            assert owner_of(running, game) is None
            player.send(json.dumps({"type": "act", **PLANS["s1"][0], "ref": "after-the-drain"}))
            assert next_of(player, "update")["ref"] == "after-the-drain"
        assert owner_of(running, game) == "node2"
    finally:
        running.close()


def test_the_games_per_address_limit_holds_across_the_nodes() -> None:
    running = Cluster(nodes=2, balancer=False, extra=("--max-games-per-client", "2"))
    try:
        two_seats(running, node=0)
        two_seats(running, node=1)
        answer = httpx.post(f"{running.nodes[0].url}/api/games", json={"seats": 2}, timeout=10)
        assert answer.status_code == 429 and answer.json()["error"]["code"] == "too_many_games"
    finally:
        running.close()


def test_an_abandoned_game_ends_on_every_node(pair: Cluster) -> None:
    """Only the node that plays a game abandons it; the clients of the other node are told as well."""
    game, tokens = two_seats(pair, node=0)
    with open_ws(pair.ws_url(game, tokens["s1"], node=0)) as player:
        assert receive(player, 20)["type"] == "state"
        wait_until(lambda: owner_of(pair, game) is not None, 60, "an owner")
        owner = 0 if owner_of(pair, game) == pair.nodes[0].name else 1
        with open_ws(pair.ws_url(game, None, node=1 - owner)) as watcher:
            assert receive(watcher, 20)["type"] == "state"
            body = {"token": tokens["s2"]}
            refused = httpx.post(f"{pair.nodes[1 - owner].url}/api/games/{game}/abandon", json=body, timeout=10)
            assert refused.status_code == 503 and refused.json()["error"]["code"] == "not_owner"
            answer = httpx.post(f"{pair.nodes[owner].url}/api/games/{game}/abandon", json=body, timeout=10)
            assert answer.status_code == 200 and answer.json()["status"] == "abandoned"
            for conn in (player, watcher):
                assert next_of(conn, "ended") == {"type": "ended", "seq": 0, "status": "abandoned", "by": {"seat": 2}}
                with pytest.raises(websockets.ConnectionClosedOK):
                    receive(conn, 20)
    for node in pair.nodes:
        assert game not in [g["id"] for g in httpx.get(f"{node.url}/api/games", timeout=10).json()["games"]]
        assert httpx.get(f"{node.url}/api/games/{game}/summary", timeout=10).json()["status"] == "abandoned"
