"""Attacks on the cluster's store at scale (round 20): what each query of PostgreSQL passes over, and what a node
reads of its answers, with tens of thousands of games in the store; and what Redis keeps of each game."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest

from asteroid_mining.server.cluster.leases import EPOCH_SECONDS, Leases
from asteroid_mining.server.cluster.node import ClusterHub, connect_redis
from asteroid_mining.server.meta import GameMeta
from asteroid_mining.storage.base import read_record
from asteroid_mining.storage.postgres import SCHEMA_VERSION, PostgresStore
from tests.cluster.in_process import node
from tests.cluster.test_takeover_races import new_game, running, step
from tests.services import Redis

CLIENT = "10.0.0.20"
EXPIRED = 3_000
"""Open games that expired, in the store (50,000 cost PostgreSQL 58 ms a building of each node's lobby before)."""


def visited(plan: dict[str, Any]) -> int:
    """The rows of `games` a plan (`EXPLAIN (ANALYZE, FORMAT JSON)`'s) read: those it kept and those it read only to
    drop them (a filter, a recheck)."""
    rows = 0
    if plan.get("Relation Name") == "games":
        rows += (int(plan.get("Actual Rows", 0)) * int(plan.get("Actual Loops", 1))
                 + int(plan.get("Rows Removed by Filter", 0)) + int(plan.get("Rows Removed by Index Recheck", 0)))
    return rows + sum(visited(inner) for inner in plan.get("Plans", ()))


async def played_and_expired(hub: ClusterHub, database: str) -> tuple[str, str]:
    """A game with a command played, and `EXPIRED` open games made in SQL from a copy of another one, created an
    hour and a minute ago: the ids of the game played and of the open one."""
    played, _ = await hub.create(new_game(), CLIENT)
    live = await hub.get(played.id)
    assert live is not None
    await live.commit(step("s1", 0), {"seat": 1})
    assert live.seq == 1
    fresh, _ = await hub.create(new_game(), CLIENT)
    expired = hub.clock() - hub.settings.open_game_ttl - 60
    with psycopg.connect(database, autocommit=True) as conn:
        conn.execute("INSERT INTO games (id, created, belt, options, seed, settlers, meta, seq, status, round, turn, "
                     "updated, epoch, asteroids) SELECT 'expired' || n, %s, belt, options, seed, settlers, meta, seq, "
                     "status, round, turn, updated, epoch, asteroids FROM games, generate_series(1, %s) AS n "
                     "WHERE id = %s", (expired, EXPIRED, fresh.id))
        conn.execute("ANALYZE")
    return played.id, fresh.id


def test_the_lobby_passes_over_no_expired_open_game(services: tuple[Redis, str], tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Open games that expired stay running in the store for good, and whether a running game had been played was
    asked of its command log: each building of a node's lobby (once a second a node, for anyone asking) and each
    count of an address's games passed over every expired open game's row to ask it, 58 ms of PostgreSQL's CPU a
    building at 50,000 of them, 125 ms at 30,000 among 60,000 games (34 ms now), growing with every game an
    address lets expire. A game is marked played at its first command now, and the running games played are
    indexed (`storage.schema.PLAYING`): the lobby's query reads the rows it lists."""
    redis, database = services
    hub = node(redis, database, tmp_path, "a")
    asked: list[tuple[str, Any]] = []
    execute = psycopg.AsyncConnection.execute

    async def watched(self: psycopg.AsyncConnection[Any], query: Any, params: Any = None, **options: Any) -> Any:
        if "FROM games AS g" in str(query) and "status = 'running'" in str(query):
            asked.append((str(query), params))
        return await execute(self, query, params, **options)

    async def scenario() -> None:
        played, fresh = await played_and_expired(hub, database)
        monkeypatch.setattr(psycopg.AsyncConnection, "execute", watched)
        try:
            listed = await hub.lobby_games()
            mine = await hub.store.running_games_of(CLIENT, hub.clock() - hub.settings.open_game_ttl)  # type: ignore[attr-defined]
        finally:
            monkeypatch.undo()
        assert sorted(game["id"] for game in listed) == sorted([played, fresh]) and mine == 2
        assert len(asked) == 2, asked
        with psycopg.connect(database, autocommit=True) as conn:
            for query, params in asked:
                found = conn.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + query, params).fetchone()
                assert found is not None
                plan = found[0][0]["Plan"]
                assert visited(plan) <= 2, (query, plan)

    asyncio.run(running([hub], scenario))


def test_a_version_3_database_marks_its_played_games(services: tuple[Redis, str], tmp_path: Path) -> None:
    """A database of version 3 brought up to date: its games with commands are marked played, the open ones not,
    and its lobby and counts are the same as before."""
    redis, database = services
    hub = node(redis, database, tmp_path, "a")

    async def scenario() -> None:
        played, fresh = await played_and_expired(hub, database)
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute("ALTER TABLE games DROP COLUMN played")  # (its indexes with it)
            conn.execute("CREATE INDEX games_running_by_client ON games (game_client(meta)) WHERE status = 'running'")
            conn.execute("UPDATE schema_version SET version = 3")
            store = PostgresStore(database)
            await store.open()
            try:
                since = hub.clock() - hub.settings.open_game_ttl
                listed = [record.id for record, _ in await store.summaries(open_since=since)]
                assert sorted(listed) == sorted([played, fresh])
                assert await store.running_games_of(CLIENT, since) == 2
                assert await store.running_games_of(CLIENT) == 2 + EXPIRED
            finally:
                await store.close()
            marked = conn.execute("SELECT id FROM games WHERE played = 1").fetchall()
            assert marked == [(played,)]
            version = conn.execute("SELECT version FROM schema_version").fetchone()
            assert version == (SCHEMA_VERSION,)

    asyncio.run(running([hub], scenario))


COPIES = 200
"""Games of other nodes in the lobby (10,651 cost a node 0.55 s of CPU on its event loop a building before)."""


def test_a_lobby_building_reads_again_only_the_games_that_changed(services: tuple[Redis, str], tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Each building of a node's lobby (once a second for anyone asking) checked and parsed the row of every
    running game of the cluster, then read each one's meta and made its summary, all on the node's event loop:
    with 10,651 running games in the store, 0.55 s of a node's CPU a building (65 ms now), and each damaged row
    logged again at each. A row unchanged since the last building is listed as it was now, unread, and the others
    are read off the event loop."""
    redis, database = services
    hub = node(redis, database, tmp_path, "a")
    parsed: list[str] = []
    from_json = GameMeta.from_json

    threads: set[int] = set()
    """The threads the rows were parsed in."""

    def counted_record(row: Any, belt: Any = None) -> Any:
        parsed.append("record")
        threads.add(threading.get_ident())
        return read_record(row, belt)

    def counted_meta(data: Any) -> GameMeta:
        parsed.append("meta")
        threads.add(threading.get_ident())
        return from_json(data)

    async def scenario() -> None:
        made, _ = await hub.create(new_game(), CLIENT)
        assert made.id not in hub.games  # (another node's, to this one's lobby)
        with psycopg.connect(database, autocommit=True) as conn:
            conn.execute("INSERT INTO games (id, created, belt, options, seed, settlers, meta, seq, status, round, "
                         "turn, updated, epoch, asteroids) SELECT 'copy' || n, created, belt, options, seed, "
                         "settlers, meta, seq, status, round, turn, updated, epoch, asteroids FROM games, "
                         "generate_series(1, %s) AS n WHERE id = %s", (COPIES, made.id))
        monkeypatch.setattr("asteroid_mining.storage.postgres.read_record", counted_record)
        monkeypatch.setattr(GameMeta, "from_json", staticmethod(counted_meta))
        first = await hub.lobby_games()
        assert len(first) == COPIES + 1 and parsed.count("record") == parsed.count("meta") == COPIES + 1
        assert threading.get_ident() not in threads  # (off the event loop)
        parsed.clear()
        assert await hub.lobby_games() == first and parsed == []
        with psycopg.connect(database, autocommit=True) as conn:  # a command played in one of them
            conn.execute("INSERT INTO commands (game, seq, action, author, at, status, round, turn) VALUES "
                         "('copy7', 1, '{\"type\": \"pass\", \"actor\": \"s1\"}', '{\"seat\": 1}', %s, 'running', "
                         "1, 's2')", (hub.clock(),))
        listed = {game["id"]: game for game in await hub.lobby_games()}
        assert parsed == ["record", "meta"], parsed
        assert listed["copy7"]["seq"] == 1 and listed["copy7"]["status"] == "running" and listed["copy8"]["seq"] == 0

    asyncio.run(running([hub], scenario))


def test_a_games_epoch_counter_does_not_stay_in_redis_for_good(services: tuple[Redis, str]) -> None:
    """Each game ever owned left its epoch counter (`am:epoch:{game}`) in Redis for good, after its lease was
    given up: 300 games opened left 300 keys without an expiry, Redis's memory growing with every game created and
    opened for as long as the cluster ran. The counter expires `EPOCH_SECONDS` after its last lease now; a lease
    taken once it has gone is above the store's epoch all the same (the floor it is given)."""
    redis, _ = services

    async def scenario() -> None:
        client = connect_redis(redis.url)
        try:
            leases = Leases(client, "a", 3.0)
            assert await leases.acquire("g20", floor=5) == 6
            ttl = await client.pttl("am:epoch:g20")
            assert 0 < ttl <= EPOCH_SECONDS * 1000, ttl
            await leases.release("g20", 6)
            await client.delete("am:epoch:g20")  # as when it has expired
            assert await leases.acquire("g20", floor=6) == 7  # (the store's epoch, claimed with 6, the floor)
        finally:
            await client.aclose()

    asyncio.run(scenario())
