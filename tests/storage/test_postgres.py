"""`PostgresStore` on its own: the fence, its schema versions, an unreachable or restarted database."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from asteroid_mining.storage import Fenced, StorageError
from asteroid_mining.storage.postgres import SCHEMA_VERSION, PostgresStore
from asteroid_mining.storage.schema import create_statements
from tests.services import Postgres, free_port

from .test_contract import command, progress, record

_numbers = itertools.count(1)

VERSION_1 = """
CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1);
CREATE TABLE games (id TEXT PRIMARY KEY, created DOUBLE PRECISION NOT NULL, belt TEXT NOT NULL, options TEXT NOT NULL,
    seed BIGINT NOT NULL, settlers INTEGER NOT NULL, meta TEXT NOT NULL, seq INTEGER NOT NULL, status TEXT NOT NULL,
    round INTEGER NOT NULL, turn TEXT, updated DOUBLE PRECISION NOT NULL);
CREATE TABLE commands (game TEXT NOT NULL REFERENCES games (id), seq INTEGER NOT NULL, action TEXT NOT NULL,
    author TEXT NOT NULL, at DOUBLE PRECISION NOT NULL, status TEXT NOT NULL, round INTEGER NOT NULL, turn TEXT,
    PRIMARY KEY (game, seq));
CREATE TABLE snapshots (game TEXT PRIMARY KEY REFERENCES games (id), seq INTEGER NOT NULL, state TEXT NOT NULL);
CREATE INDEX games_by_status ON games (status, created);
"""
"""The layout of version 1 (no fence, no count of asteroids, every game indexed by status)."""

LAYOUT = """SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' '
    || coalesce(column_default, '-') FROM information_schema.columns WHERE table_schema = 'public'
    ORDER BY table_name, ordinal_position"""
"""Every column of a database, with its type, whether it may be NULL and its default."""
INDEXES = "SELECT indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname"


def fresh(postgres: Postgres) -> str:
    return postgres.create_database(f"pg{next(_numbers)}")


def test_a_claim_fences_off_the_nodes_that_held_the_game_before(postgres: Postgres) -> None:
    url = fresh(postgres)

    async def scenario() -> None:
        old, new = PostgresStore(url), PostgresStore(url)
        await old.open()
        await new.open()
        await old.create(record(), progress(0))
        assert await old.claim("g1", 1)
        await old.append("g1", command(1), progress(1))
        assert await new.claim("g1", 2)
        with pytest.raises(Fenced, match="another node"):
            await old.append("g1", command(2), progress(2))
        assert not await old.claim("g1", 1)  # an older epoch never wins it back
        await new.append("g1", command(2), progress(2))
        found = await new.log("g1")
        assert found is not None and [c.seq for c in found[2]] == [1, 2]
        await old.close()
        await new.close()

    asyncio.run(scenario())


def test_a_version_1_database_is_brought_up_to_date(postgres: Postgres) -> None:
    url = fresh(postgres)
    database = url.rsplit("/", 1)[1]
    postgres.sql(database, VERSION_1)
    postgres.sql(database, "INSERT INTO games VALUES ('g1', 1.0, '{\"belt\":\"json\"}', '{\"uranium_fuse\":1}', 7, "
                 "2, '{\"seats\":[]}', 0, 'running', 1, 's1', 100.0)")

    async def scenario() -> None:
        store = PostgresStore(url)
        await store.open()
        assert await store.unfinished() == ["g1"]
        assert await store.claim("g1", 5)
        await store.append("g1", command(1), progress(1))
        stored = await store.load("g1")
        assert stored is not None and stored.record == record() and stored.commands == [command(1)]
        await store.close()

    asyncio.run(scenario())
    assert postgres.sql(database, "SELECT version FROM schema_version") == str(SCHEMA_VERSION)
    assert postgres.sql(database, "SELECT epoch, asteroids FROM games") == "5|0"


def test_a_newer_database_is_refused(postgres: Postgres) -> None:
    url = fresh(postgres)
    postgres.sql(url.rsplit("/", 1)[1], "CREATE TABLE schema_version (version INTEGER NOT NULL); "
                 "INSERT INTO schema_version VALUES (99)")

    async def scenario() -> None:
        with pytest.raises(StorageError, match="newer"):
            await PostgresStore(url).open()

    asyncio.run(scenario())


def test_an_unreachable_database_is_one_clear_error() -> None:
    async def scenario() -> None:
        with pytest.raises(StorageError, match=r"cannot connect to PostgreSQL at postgresql://who@127\.0\.0\.1"):
            await PostgresStore(f"postgresql://who:secret@127.0.0.1:{free_port()}/games", timeout=1.0).open()

    asyncio.run(scenario())


def test_writes_fail_cleanly_while_the_database_is_down_and_go_on_when_it_is_back() -> None:
    server = Postgres().start()
    try:
        async def scenario() -> None:
            store = PostgresStore(server.url, timeout=1.0)
            await store.open()
            await store.create(record(), progress(0))
            await store.append("g1", command(1), progress(1))
            server.stop()
            with pytest.raises(StorageError):
                await store.append("g1", command(2), progress(2))
            with pytest.raises(StorageError):
                await store.load("g1")
            server.start()
            deadline = time.monotonic() + 60  # the pool replaces its broken connections: the first tries may fail
            while True:
                try:
                    await store.append("g1", command(2), progress(2))
                    break
                except StorageError:
                    assert time.monotonic() < deadline, "the store did not recover after PostgreSQL restarted"
                    await asyncio.sleep(0.1)
            found = await store.log("g1")
            assert found is not None and [c.seq for c in found[2]] == [1, 2]
            await store.close()

        asyncio.run(scenario())
    finally:
        server.close()


def test_a_database_brought_up_to_date_has_the_layout_of_a_new_one(postgres: Postgres) -> None:
    """The layout is written once (`storage.schema`): a new database is made from it, an old one migrated to it;
    both end the same, column by column."""
    new, old = fresh(postgres), fresh(postgres)
    postgres.sql(old.rsplit("/", 1)[1], VERSION_1)

    async def scenario() -> None:
        for url in (new, old):
            store = PostgresStore(url)
            await store.open()
            await store.close()

    asyncio.run(scenario())
    layouts = [postgres.sql(url.rsplit("/", 1)[1], LAYOUT) for url in (new, old)]
    indexes = [postgres.sql(url.rsplit("/", 1)[1], INDEXES) for url in (new, old)]
    assert layouts[0] == layouts[1] and indexes[0] == indexes[1]
    assert "games.epoch bigint NO 0" in layouts[0] and "commands.status text NO -" in layouts[0]
    assert "games_running" in indexes[0] and "games_by_status" not in indexes[0]
    assert "games_running_by_client" in indexes[0]
    assert "games_playing" in indexes[0]
    assert len(create_statements("postgresql")) == 7  # three tables, a function and three indexes
