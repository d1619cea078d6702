"""A cluster's PostgreSQL that stops answering without refusing (its processes paused with SIGSTOP, as a partition
that drops packets would leave them): every query of a node has a deadline of the node's own.

Before the deadlines, a node's lobby and a read of a game it did not hold waited for as long as the database was
paused (over 30 s measured). Now they are answered `503 storage_failed` (with `Retry-After`); `/api/health`
says the node cannot reach its store; the game the node holds is still read from memory; a command whose write
was cut at its deadline is neither reported failed nor lost: its connection is closed to reconnect (1012), and
the command sent again with its ref is played once. Once the database runs again everything answers as before,
and every acknowledged command is in the store once.

The bounds below are generous (an answer must come, its time is not asserted): before the deadlines, these reads
got no answer within them.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from websockets.exceptions import ConnectionClosed

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.stores import make_store
from asteroid_mining.storage import StorageError
from asteroid_mining.storage.postgres import PostgresStore
from tests.server.helpers import in_process, stored_log
from tests.services import Postgres, postgres_bin, wait_until
from tests.storage.test_contract import command, progress, record

from .harness import Cluster, open_ws, receive

pytestmark = pytest.mark.skipif(postgres_bin() is None, reason="PostgreSQL is not installed")

BOUND = 60.0
"""Seconds an answer may take on a busy machine (the deadlines below are 1 and 2 seconds)."""


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        with contextlib.suppress(OSError, IndexError, ValueError), \
                open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
            if int(stat.read().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def paused(cluster: Cluster) -> contextlib.AbstractContextManager[None]:
    """The cluster's PostgreSQL paused (`paused_server`)."""
    assert cluster.postgres is not None
    return paused_server(cluster.postgres)


@contextlib.contextmanager
def paused_server(postgres: Postgres) -> Iterator[None]:
    """PostgreSQL's postmaster and every backend stopped (SIGSTOP), resumed (SIGCONT) however the block ends."""
    assert postgres.process is not None and postgres.process.proc is not None
    postmaster = postgres.process.proc.pid
    stopped = [postmaster, *_children(postmaster)]
    try:
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        yield
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    made = Cluster(nodes=1, balancer=False, extra=("--store-read-seconds", "1", "--store-write-seconds", "2"))
    try:
        yield made
    finally:
        made.close()


def _get(url: str) -> httpx.Response:
    return httpx.get(url, timeout=BOUND)


def _storage_failed(answer: httpx.Response) -> bool:
    return (answer.status_code == 503 and answer.json()["error"]["code"] == "storage_failed"
            and answer.headers.get("retry-after") == "5")


def _act(conn: Any, ref: int) -> None:
    conn.send(json.dumps({"type": "act", "settler": "s1", "action": "wait", "ref": ref}))


def _answer_to(conn: Any, ref: int) -> dict[str, Any]:
    """The update or ack of our command `ref` (other messages passed over)."""
    while True:
        message = receive(conn, BOUND)
        if message.get("ref") == ref and message["type"] in ("update", "ack", "error"):
            return message


def test_a_paused_database_gets_clean_answers_and_loses_nothing(cluster: Cluster) -> None:
    base = cluster.nodes[0].url
    body = {"seats": 1, "settlers_per_seat": 1, "belt": "tutorial", "seed": 7}
    held, elsewhere = cluster.create(body, node=0), cluster.create(body, node=0)
    token = held["seats"][0]["token"]
    told: list[dict[str, Any]] = []
    with open_ws(cluster.ws_url(held["id"], token, node=0)) as player:
        assert receive(player, BOUND)["type"] == "state"
        _act(player, 1)
        assert _answer_to(player, 1)["seq"] == 1
        assert _get(f"{base}/api/health").status_code == 200

        with paused(cluster):
            # a store read: the lobby, a game this node does not hold, a game nobody has — each a clean 503
            assert _storage_failed(_get(f"{base}/api/games"))
            assert _storage_failed(_get(f"{base}/api/games/{elsewhere['id']}"))
            assert _storage_failed(_get(f"{base}/api/games/no-such-game"))
            # the node says it cannot reach its store, so that a balancer sends new clients to another
            wait_until(lambda: _storage_failed(_get(f"{base}/api/health")), BOUND, "health saying the store is away")
            # the game this node holds is read from memory
            view = _get(f"{base}/api/games/{held['id']}")
            assert view.status_code == 200 and view.json()["seq"] == 1
            # a command: its write is cut at its deadline, its outcome unknown: no answer, the connection is closed
            # so that the client reconnects (never `storage_failed`, "not played", for what may have been stored)
            _act(player, 2)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    told.append(receive(player, BOUND))
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1012
    assert [m for m in told if m.get("ref") == 2] == []

    # the database runs again: everything answers as before
    wait_until(lambda: _get(f"{base}/api/health").status_code == 200, BOUND, "health saying the store is back")
    lobby = _get(f"{base}/api/games")
    assert lobby.status_code == 200
    assert {held["id"], elsewhere["id"]} <= {g["id"] for g in lobby.json()["games"]}
    assert _get(f"{base}/api/games/{elsewhere['id']}").status_code == 200
    assert _get(f"{base}/api/games/no-such-game").status_code == 404
    # the client reconnects and sends its command again with its ref: played once (or acknowledged, had it been
    # stored after all), then play goes on
    with open_ws(cluster.ws_url(held["id"], token, node=0)) as player:
        state = receive(player, BOUND)
        assert state["type"] == "state" and state["seq"] in (1, 2)
        _act(player, 2)
        again = _answer_to(player, 2)
        assert again["type"] in ("update", "ack") and again["seq"] == 2, again
        _act(player, 3)
        assert _answer_to(player, 3)["seq"] == 3
    assert cluster.postgres is not None
    rows = cluster.postgres.sql("games", f"SELECT seq, author FROM commands WHERE game = '{held['id']}' "
                                         "ORDER BY seq").split("\n")
    stored = [(int(seq), json.loads(author).get("ref")) for seq, author in
              (row.split("|", 1) for row in rows if row.strip())]
    assert stored == [(1, 1), (2, 2), (3, 3)]


# ----- the store on its own -----
@pytest.fixture
def postgres() -> Iterator[Postgres]:
    with Postgres().start() as server:
        yield server


def test_a_store_query_past_its_deadline_fails_cleanly_and_the_store_recovers(postgres: Postgres) -> None:
    """Reads and writes of a paused database fail with StorageError (the write's outcome unknown: the store says
    which it was once it answers); every connection cut is left out of the pool, and the store works again."""
    url = postgres.create_database("alone")

    async def scenario() -> None:
        store = PostgresStore(url, read_seconds=1.0, write_seconds=1.5)
        await store.open()
        try:
            await store.create(record(), progress(0))
            await store.append("g1", command(1), progress(1))
            turns = 0

            async def loop_turns() -> None:  # counts while the loop is free
                nonlocal turns
                while True:
                    await asyncio.sleep(0.01)
                    turns += 1

            counting = asyncio.ensure_future(loop_turns())
            with paused_server(postgres):
                with pytest.raises(StorageError, match=r"did not answer|gave no connection"):
                    await asyncio.wait_for(store.summaries(), BOUND)
                assert turns > 0  # the loop went on while the read waited
                counting.cancel()
                with pytest.raises(StorageError, match=r"did not answer|gave no connection"):
                    await asyncio.wait_for(store.ping(), BOUND)
                with pytest.raises(StorageError, match=r"unknown|gave no connection"):
                    await asyncio.wait_for(store.append("g1", command(2), progress(2)), BOUND)
            assert store._pool.get_stats().get("returns_bad", 0) >= 1  # a connection cut was let go, not reused
            stored = await asyncio.wait_for(store.load("g1"), BOUND)
            assert stored is not None and [c.seq for c in stored.commands] in ([1], [1, 2])
            following = len(stored.commands) + 1
            await store.append("g1", command(following), progress(following))
            found = await store.log("g1")
            assert found is not None and [c.seq for c in found[2]] == list(range(1, following + 1))
        finally:
            await store.close()

    asyncio.run(scenario())


def test_a_load_waits_for_a_write_of_the_game_still_in_flight(postgres: Postgres) -> None:
    """A write cut off at its deadline may still commit once the database runs again; the game's reread must see
    its outcome, not what came before: `load` waits for the transaction that holds the game's row."""
    url = postgres.create_database("settle")

    async def scenario() -> None:
        store = PostgresStore(url)
        await store.open()
        writer = await psycopg.AsyncConnection.connect(url)
        try:
            await store.create(record(), progress(0))
            async with writer.transaction():  # as the store's own writer does, from another connection
                await writer.execute("SELECT id FROM games WHERE id = 'g1' FOR UPDATE")
                await writer.execute("INSERT INTO commands (game, seq, action, author, at, status, round, turn) "
                                     "VALUES ('g1', 1, '{\"type\": \"wait\", \"actor\": \"s2\"}', '{\"seat\": 1}', "
                                     "101.0, 'running', 1, 's1')")
                loading = asyncio.ensure_future(store.load("g1"))

                async def waiting_for_the_row() -> bool:
                    cur = await writer.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                                               "'Lock' AND pid <> pg_backend_pid()")
                    row = await cur.fetchone()
                    return row is not None and row[0] > 0

                deadline = asyncio.get_running_loop().time() + BOUND
                while not await waiting_for_the_row():
                    assert not loading.done(), "the load did not wait for the write in flight"
                    assert asyncio.get_running_loop().time() < deadline, "the load never waited for the row"
                    await asyncio.sleep(0.02)
            stored = await asyncio.wait_for(loading, BOUND)
            assert stored is not None and [c.seq for c in stored.commands] == [1]
        finally:
            await writer.close()
            await store.close()

    asyncio.run(scenario())


def test_a_single_server_on_a_paused_database_plays_on_once_it_answers(postgres: Postgres, tmp_path: Path) -> None:
    """A server on PostgreSQL without a cluster cannot let a game go for its clients to load again elsewhere: a
    game it could not reread after a write cut at its deadline waits, and is reread at its next command once the
    database answers (it was broken until the server restarted)."""
    from fastapi.testclient import TestClient

    settings = Settings(data_dir=tmp_path, database=postgres.create_database("single"), bot_delay=0.0,
                        store_read_seconds=1.0, store_write_seconds=1.5)
    with TestClient(create_app(settings, store=make_store(settings))) as client:
        game = client.post("/api/games", json={"seats": 1, "settlers_per_seat": 1, "belt": "tutorial",
                                               "seed": 7}).json()
        with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as session:
            me = in_process(session)
            me.next_of("state", BOUND)
            me.act("s1", "wait", ref=1)
            assert me.next_of("update", BOUND)["seq"] == 1
            with paused_server(postgres):
                me.act("s1", "wait", ref=2)
                refused = me.next_of("error", BOUND)
                assert refused["code"] == "storage_failed" and refused["ref"] == 2
            me.act("s1", "wait", ref=2)  # sent again once the database runs: played (or acknowledged) once
            again = me.next(BOUND)
            while again.get("ref") != 2:
                again = me.next(BOUND)
            assert again["type"] in ("update", "ack") and again["seq"] == 2, again
            me.act("s1", "wait", ref=3)
            assert me.next_of("update", BOUND)["seq"] == 3
        commands = stored_log(client, game["id"])["commands"]
    assert [(c["seq"], c["by"]["ref"]) for c in commands] == [(1, 1), (2, 2), (3, 3)]
