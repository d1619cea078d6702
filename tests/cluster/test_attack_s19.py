"""Attacks on the cluster through its balancer (round 19): the count of an address's creates under way and of its
running games, and a node paused behind HAProxy."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
import websockets
from websockets.sync.client import connect

from asteroid_mining.server.cluster.node import CREATING_SECONDS, ClusterHub
from asteroid_mining.server.errors import ServerError
from asteroid_mining.storage.postgres import PostgresStore
from tests.cluster.harness import Cluster, open_ws, owner_of, receive
from tests.cluster.in_process import node
from tests.cluster.test_takeover_races import new_game, running
from tests.services import Redis, haproxy_config

CLIENT = "10.0.0.19"


async def created(hub: ClusterHub) -> bool:
    """Whether `hub` creates a game for `CLIENT` (False: refused as `too_many_games`)."""
    try:
        await hub.create(new_game(), CLIENT)
    except ServerError as refused:
        assert refused.status == 429 and refused.code == "too_many_games", refused
        return False
    return True


def test_a_create_whose_node_died_counts_for_its_own_minute_only(services: tuple[Redis, str],
                                                                  tmp_path: Path) -> None:
    """A create under way was one counter of its address's in Redis, whose expiry (`CREATING_SECONDS`) each later
    create of the address pushed back: the creates a node killed in the middle of them never said they were done,
    and stayed counted for as long as the address tried to create at least once a minute, its refused tries
    included (2 creates cut by a `kill -9` behind the balancer were still counted 2 minutes later, a create every
    25 s). Each create is counted on its own now, until its own deadline."""
    redis, database = services
    dead, alive = (node(redis, database, tmp_path, name, max_games_per_client=1) for name in ("dead", "alive"))

    async def scenario() -> None:
        assert await dead._creating(CLIENT) is not None  # counted, then its node died: never said to be done
        start = alive.clock()
        alive.clock = lambda: start + CREATING_SECONDS / 2
        assert not await created(alive)  # the create cut off counts still: the address is at its quota of 1
        alive.clock = lambda: start + CREATING_SECONDS + 1
        assert await created(alive), "a create cut off over a minute ago counts still"

    asyncio.run(running([dead, alive], scenario))


def test_a_create_done_after_its_count_ran_out_does_not_let_creates_past_the_quota(
        services: tuple[Redis, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A create done once its address's counter had gone (Redis restarted and lost it, or the create outlasted
    `CREATING_SECONDS`) took the counter below zero, with no expiry: the next creates at once through two nodes
    were each counted as the only one under way, and a quota of 2 held 3 games. A create's being done now takes
    away its own entry, or nothing."""
    redis, database = services
    first, second = (node(redis, database, tmp_path, name, max_games_per_client=2) for name in ("a", "b"))
    storing = asyncio.Queue[asyncio.Event]()
    """Each create `first` is storing: set its event to let it go on."""
    store_create = first.store.create

    async def held_create(*args: Any) -> None:
        go_on = asyncio.Event()
        storing.put_nowait(go_on)
        await go_on.wait()
        await store_create(*args)

    monkeypatch.setattr(first.store, "create", held_create)

    async def scenario() -> None:
        one = asyncio.create_task(created(first))
        stored = await storing.get()
        await first.redis.delete(f"am:creating:{CLIENT}")  # Redis restarted meanwhile, its keys lost
        stored.set()
        assert await one
        two = asyncio.create_task(created(first))  # under way (held as it is stored) while the next one comes
        stored = await storing.get()
        three = await created(second)
        stored.set()
        assert await two
        held = await first.store.running_games_of(CLIENT)  # type: ignore[attr-defined]
        assert (three, held) == (False, 2), f"a quota of 2 held {held} games"

    asyncio.run(running([first, second], scenario))


def test_the_clients_of_a_node_paused_behind_the_balancer_are_closed_to_reconnect() -> None:
    """A node paused (SIGSTOP; a machine that stalls) keeps its sockets open: the balancer marked it down within
    a second and sent it no new client, but the WebSockets it had stayed open to it, hearing nothing, for
    `timeout tunnel` (an hour) while its lease ran out and another node played their games on (a seat's socket
    still open and silent after 20 s, the game owned by the other node). The balancer now closes the sessions of
    a node it marks down (`on-marked-down shutdown-sessions`), and the client reconnects to a node that serves it."""
    config = haproxy_config(8000, [8001, 8002])
    for line in config.splitlines():
        if line.strip().startswith("server "):
            assert line.endswith(" on-marked-down shutdown-sessions"), line
    # a node slowed by load is not marked down, its sessions closed, for a check slower than half a second
    assert "    timeout check 3s\n" in config
    running = Cluster(nodes=2)
    try:
        made = running.create({"seats": 2, "settlers_per_seat": 1, "belt": "tutorial", "seed": 7})
        game, token = made["id"], made["seats"][0]["token"]
        # no pings from this client, as from a browser (a client's own pings would find the node silent, and close)
        with connect(running.ws_url(game, token), open_timeout=30, close_timeout=5, ping_interval=None) as seat:
            assert receive(seat, 30)["type"] == "state"
            name = owner_of(running, game)  # the node the balancer sent the seat to took the game's lease
            paused = next(n for n in running.nodes if n.name == name)
            assert paused.proc is not None
            os.kill(paused.proc.pid, signal.SIGSTOP)
            try:
                with pytest.raises(websockets.exceptions.ConnectionClosed):
                    # a bound only: the balancer closes it once it has marked the node down (about 7 s: two
                    # checks unanswered for `timeout check`)
                    while True:
                        seat.recv(timeout=30)
                state = None
                give_up = time.monotonic() + 60  # a bound only: the other node serves it at once
                while state is None and time.monotonic() < give_up:
                    try:
                        with open_ws(running.ws_url(game, token)) as again:
                            state = receive(again, 30)
                    except (OSError, websockets.exceptions.WebSocketException):
                        time.sleep(0.2)
                assert state is not None and state["type"] == "state"
            finally:
                os.kill(paused.proc.pid, signal.SIGCONT)
    finally:
        running.close()


OTHERS = 20_000
"""Running games of other addresses in the store (50,000 expired open games took 51.8 ms of PostgreSQL's CPU a
create before)."""


def test_counting_an_addresss_games_reads_its_own_rows_only(services: tuple[Redis, str], tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Each create of a game, refused ones included, counts its address's running games in the store
    (`max_games_per_client`), and the count read and parsed the record of every running game of the cluster: with
    50,000 of them (open games that expired stay running in the store for good), 51.8 ms of PostgreSQL's CPU a
    create; one address at its quota sending refused creates from 32 connections kept PostgreSQL on both cores
    (33.7 s of its CPU in 21.4 s), another address's lobby took 5.1 s at the median, and creates timed out
    (`503`). The store's running games are indexed by their creator now: the count's plan reads that index."""
    redis, database = services
    hub = node(redis, database, tmp_path, "a", max_games_per_client=3)
    asked: list[tuple[str, Any]] = []
    execute = psycopg.AsyncConnection.execute

    async def watched(self: psycopg.AsyncConnection[Any], query: Any, params: Any = None, **options: Any) -> Any:
        if "count(*)" in str(query):
            asked.append((str(query), params))
        return await execute(self, query, params, **options)

    async def scenario() -> None:
        made, _ = await hub.create(new_game(), CLIENT)
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute("INSERT INTO games SELECT 'other' || n, created, belt, options, seed, settlers, "
                         "replace(meta, %s, '10.1.' || (n / 250) || '.' || (n %% 250)), seq, status, round, turn, "
                         "updated, epoch, asteroids FROM games, generate_series(1, %s) AS n WHERE id = %s",
                         (CLIENT, OTHERS, made.id))
            # a database of the version before, brought up to date: the index built over its rows, a damaged
            # one among them (the function that reads a row's creator runs in the build)
            conn.execute("UPDATE games SET meta = 'not json' WHERE id = 'other7'")
            conn.execute("DROP INDEX games_running_by_client")
            conn.execute("UPDATE schema_version SET version = 2")
            conn.execute("ANALYZE games")
            store = PostgresStore(database)
            await store.open()
            monkeypatch.setattr(psycopg.AsyncConnection, "execute", watched)
            try:
                assert await store.running_games_of(CLIENT, hub.clock() - 3600) == 1
            finally:
                monkeypatch.undo()
                await store.close()
            assert len(asked) == 1, asked
            query, params = asked[0]
            plan = "\n".join(str(row[0]) for row in conn.execute("EXPLAIN " + query, params).fetchall())
        assert "games_running_by_client" in plan and "Seq Scan on games" not in plan, plan

    asyncio.run(running([hub], scenario))


def test_a_damaged_running_game_leaves_creates_working(services: tuple[Redis, str], tmp_path: Path) -> None:
    """Counting an address's running games read the JSON of every running game's record in the query: one row
    the store never wrote, its `meta` not JSON, failed the query, and every create of the cluster, whoever sent
    it, answered `503 storage_failed` for as long as the row was there. A damaged row is nobody's now."""
    redis, database = services
    hub = node(redis, database, tmp_path, "a", max_games_per_client=2)

    async def scenario() -> None:
        damaged, _ = await hub.create(new_game(), "10.0.0.1")
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute("UPDATE games SET meta = 'not json' WHERE id = %s", (damaged.id,))
        assert await created(hub) and await created(hub)
        assert not await created(hub)  # the quota holds still: 2 games

    asyncio.run(running([hub], scenario))


EXPIRED = 2_000
"""Expired open games in the store (50,000 cost a node 1.46 s of CPU a building of the lobby before)."""


def test_the_lobby_reads_no_expired_open_games(services: tuple[Redis, str], tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """An open game that expired stays running in the store for good, and a node's lobby read, parsed and listed
    every one at each building (once a second for anyone asking): with 50,000 of them, 1.46 s of a node's CPU a
    building, on its event loop, and the balancer marked the node down for a health check unanswered meanwhile
    (the lobby itself answered `502` then). On one server an expired open game is not listed; on a cluster now
    neither, and the store does not send its row."""
    redis, database = services
    hub = node(redis, database, tmp_path, "a")
    rows: list[int] = []
    summaries = hub.store.summaries  # type: ignore[attr-defined]

    async def counted(*args: Any, **options: Any) -> Any:
        found = await summaries(*args, **options)
        rows.append(len(found))
        return found

    async def scenario() -> None:
        made, _ = await hub.create(new_game(), CLIENT)
        expired = hub.clock() - hub.settings.open_game_ttl - 60
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute("INSERT INTO games SELECT 'expired' || n, %s, belt, options, seed, settlers, meta, seq, "
                         "status, round, turn, updated, epoch, asteroids FROM games, generate_series(1, %s) AS n "
                         "WHERE id = %s", (expired, EXPIRED, made.id))
        monkeypatch.setattr(hub.store, "summaries", counted)
        listed = await hub.lobby_games()
        assert [game["id"] for game in listed] == [made.id] and rows == [1], rows

    asyncio.run(running([hub], scenario))
