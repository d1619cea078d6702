"""What the second fresh attack found on a cluster: reads that made a node load a game from the store (about 50 ms
of CPU on a large belt) were never charged to their address."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from fastapi.testclient import TestClient
from websockets.exceptions import ConnectionClosed

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.cluster.replication import shared

from .harness import Cluster, open_ws, receive

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")  # (as tests/server)

BURST = 3
"""The history bucket of each address on each node: three loads, refilled once in 1,000 seconds."""


@pytest.fixture(scope="module")
def trio() -> Iterator[Cluster]:
    # each test reads on a node of its own: a node's buckets are its own, and each test empties one
    running = Cluster(nodes=3, lease=3.0, balancer=False,
                      extra=("--history-rate-per-second", "0.001", "--history-rate-burst", str(BURST)))
    try:
        yield running
    finally:
        running.close()


def _game(cluster: Cluster, node: int) -> dict[str, Any]:
    return cluster.create({"seats": 1, "belt": "tutorial", "seed": 5}, node=node)


def _refused(answer: httpx.Response) -> bool:
    return answer.status_code == 429 and answer.json()["error"]["code"] == "rate_limited"


def _watch(cluster: Cluster, game: str, node: int, token: str | None = None) -> str:
    """What a spectator of `game` on `node` (the seat of `token`, when given) is sent first: `state`, or the code
    of the error it is closed with."""
    with open_ws(cluster.ws_url(game, token, node=node)) as spectator:
        first = receive(spectator, 30)
        if first["type"] == "error":
            with contextlib.suppress(ConnectionClosed):
                spectator.recv(timeout=30)
            return str(first["code"])
        return str(first["type"])


def _followed(client: redis.Redis, monitor: Any, game: str) -> int:
    """How many times a node subscribed to `game`'s channel (as each load of the game does, `ClusterHub._load`)
    among the commands Redis has run since the last call."""
    mark = f"mark-{time.monotonic_ns()}"
    client.get(mark)  # the last command to look at
    subscribed = 0
    while mark not in (command := str(monitor.next_command()["command"])):
        subscribed += command.startswith("SUBSCRIBE") and game in command
    return subscribed


def test_loading_finished_games_is_charged_on_a_cluster_node(trio: Cluster) -> None:
    """A cluster node did not charge the loads of finished games (it could not tell one from a game another node
    plays without reading the store): one address loaded a finished `large` game 30 times in a row on each node,
    45 ms of CPU each. The store's one row of the game says it is finished: charged, as on one server."""
    game = _game(trio, node=0)
    token = game["seats"][0]["token"]
    url = trio.nodes[2].url
    assert httpx.post(f"{trio.nodes[0].url}/api/games/{game['id']}/abandon", json={"token": token},
                      timeout=30).status_code == 200
    answers = [httpx.get(f"{url}/api/games/{game['id']}/goals?lesson=fly", timeout=30) for _ in range(BURST)]
    assert {a.status_code for a in answers} == {200}
    assert _refused(httpx.get(f"{url}/api/games/{game['id']}/goals?lesson=fly", timeout=30))
    assert _watch(trio, game["id"], node=2) == "rate_limited"


def test_a_game_another_node_plays_is_read_without_a_load_or_charged(trio: Cluster) -> None:
    """A game in play that another node owns was loaded for every read of it on this node (its summary too, which
    the browser's lobby asks for every 5 seconds), uncharged. Its summary now comes from the store's one row, with
    no load; its view and goals load it and are charged, and so is a spectator's WebSocket; a seat's (a player
    reconnecting after a node died) is not. (A lesson's goals: tests/cluster/test_attack_s17_lessons.py.)"""
    game = _game(trio, node=0)
    token = game["seats"][0]["token"]
    url = trio.nodes[1].url
    with open_ws(trio.ws_url(game["id"], token, node=0)) as seat:  # node 0 owns the game
        assert receive(seat, 30)["type"] == "state"
        assert trio.redis is not None
        watcher = redis.Redis.from_url(trio.redis.url)
        try:
            with watcher.monitor() as monitor:  # type: ignore[no-untyped-call]
                summaries = [httpx.get(f"{url}/api/games/{game['id']}/summary", timeout=30)
                             for _ in range(2 * BURST)]
                assert _followed(watcher, monitor, game["id"]) == 0  # no load: node 1 never followed the game
                detail = httpx.get(f"{url}/api/games/{game['id']}", timeout=30)
                assert _followed(watcher, monitor, game["id"]) > 0  # its view's load made node 1 follow it
        finally:
            watcher.close()
        assert {a.status_code for a in summaries} == {200}
        assert all(a.json() == summaries[0].json() for a in summaries)
        assert summaries[0].json()["status"] == "open" and summaries[0].json()["id"] == game["id"]
        assert detail.status_code == 200 and detail.json()["state"]["turn"]
        for _ in range(BURST - 1):
            assert httpx.get(f"{url}/api/games/{game['id']}/goals?lesson=fly", timeout=30).status_code == 200
        assert _refused(httpx.get(f"{url}/api/games/{game['id']}", timeout=30))
        # a spectator's load is charged as a REST read (tests/cluster/test_attack_s14.py); a seat's is never
        assert _watch(trio, game["id"], node=1) == "rate_limited"
        for _ in range(BURST + 1):
            assert _watch(trio, game["id"], node=1, token=token) == "state"


def test_a_nodes_lobby_is_built_once_while_nothing_changes_here(trio: Cluster, tmp_path: Path) -> None:
    """A cluster node built its lobby, every node's games read from the store, for every request: 29 ms of CPU with
    400 games (a third of a second at the cap of games), so a hundred browsers asking every 5 seconds kept most of
    a core busy. It is kept for `lobby_cache_seconds` at most, and built again at once when a game of this node
    changes or is created here; another node's new game is listed within `lobby_cache_seconds`."""
    assert trio.redis is not None
    settings = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static", database=trio.database,
                        redis=trio.redis.url, node_id="in-process", lease_seconds=3.0)
    with TestClient(create_app(settings)) as client:
        cache = client.app.state.lobby_cache  # type: ignore[attr-defined]
        cache.clock = lambda: 0.0  # a clock that stands still: the answer never gets too old
        first = client.get("/api/games")
        assert all(client.get("/api/games").json() == first.json() for _ in range(4))
        assert cache.builds == 1
        created = client.post("/api/games", json={"seats": 1, "belt": "tutorial", "seed": 5}).json()
        assert created["id"] in [g["id"] for g in client.get("/api/games").json()["games"]]  # built again at once
        assert cache.builds == 2
        elsewhere = _game(trio, node=0)
        assert elsewhere["id"] not in [g["id"] for g in client.get("/api/games").json()["games"]]  # kept
        cache.clock = lambda: settings.lobby_cache_seconds  # as old as an answer is kept
        assert elsewhere["id"] in [g["id"] for g in client.get("/api/games").json()["games"]]
        assert cache.builds == 3


def test_telling_the_owner_about_a_game_let_go_meanwhile_is_no_error(trio: Cluster, tmp_path: Path) -> None:
    """A follower tells a game's owner in the background how many of its clients watch (`ClusterHub.presence`),
    after a round trip to Redis: a spectator who came and went meanwhile had let the game go, and the task ended
    in a traceback in the node's log (16 of 30 spectators of a finished game on one node). Nobody watches such a
    game here: there is nobody to tell about."""
    assert trio.redis is not None
    settings = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static", database=trio.database,
                        redis=trio.redis.url, node_id="in-process", lease_seconds=3.0)
    game = _game(trio, node=0)
    with open_ws(trio.ws_url(game["id"], game["seats"][0]["token"], node=0)) as seat, \
            TestClient(create_app(settings)) as client:
        assert receive(seat, 30)["type"] == "state"  # node 0 owns the game
        hub = client.app.state.hub  # type: ignore[attr-defined]

        async def let_go_while_telling() -> None:
            mget, answered = hub.redis.mget, asyncio.Event()

            async def held(keys: list[str]) -> Any:  # Redis answers once the game has been let go
                await answered.wait()
                return await mget(keys)

            hub.redis.mget = held
            try:
                async with hub.acquire(game["id"]) as live:  # followed here, for a moment
                    replication = shared(live)
                    assert replication is not None
                    telling = asyncio.ensure_future(hub._tell_owner([replication]))  # as `presence` does
                    await asyncio.sleep(0)  # it waits for Redis
                del live
                deadline = asyncio.get_running_loop().time() + 60
                while replication._live() is not None:  # (its stop task lets it go)
                    assert asyncio.get_running_loop().time() < deadline, "the game was never let go"
                    await asyncio.sleep(0.01)
                answered.set()
                await telling
            finally:
                hub.redis.mget = mget

        client.portal.call(let_go_while_telling)  # type: ignore[union-attr]
