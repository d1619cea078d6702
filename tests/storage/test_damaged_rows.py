"""Rows the store never writes, read back by every `GameStore` (SQLite and PostgreSQL alike): a damaged row damages
its game alone (`DamagedRecord`, naming the row and field), a damaged snapshot is passed over (the log rebuilds the
game), and the store and every other game keep working."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from asteroid_mining.storage import DamagedRecord, GameStore, Snapshot, SqliteStore

from .test_contract import command, progress, record

Sql = Callable[[str], None]
"""Runs one SQL statement on the store's database, behind its back (`?`-free, values written in the text)."""


@pytest.fixture(params=["sqlite", "postgres"])
def store_and_sql(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Callable[[], GameStore], Sql]]:
    if request.param == "sqlite":
        def sqlite_sql(statement: str) -> None:
            with sqlite3.connect(tmp_path / "games.sqlite3") as db:
                db.execute(statement)

        yield (lambda: SqliteStore(tmp_path)), sqlite_sql
        return
    import psycopg

    from asteroid_mining.storage.postgres import PostgresStore

    from .conftest import _numbers

    url = request.getfixturevalue("postgres").create_database(f"damaged{next(_numbers)}")

    def postgres_sql(statement: str) -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(statement.encode())

    yield (lambda: PostgresStore(url)), postgres_sql


def fill(make_store: Callable[[], GameStore]) -> None:
    """Games g1 (3 commands, a snapshot after the second) and g2 (2 commands)."""
    async def scenario() -> None:
        store = make_store()
        await store.open()
        for game in ("g1", "g2"):
            await store.create(record(game), progress(0))
        await store.append("g1", command(1), progress(1))
        await store.append("g1", command(2), progress(2), Snapshot(2, {"whole": "game"}))
        await store.append("g1", command(3), progress(3))
        for seq in (1, 2):
            await store.append("g2", command(seq), progress(seq))
        await store.close()

    asyncio.run(scenario())


def test_a_command_that_is_not_json_damages_its_game_alone(store_and_sql: tuple[Callable[[], GameStore], Sql]) -> None:
    make_store, sql = store_and_sql
    fill(make_store)
    sql("UPDATE commands SET action = '{\"type\": \"wa' WHERE game = 'g1' AND seq = 3")

    async def scenario() -> None:
        store = make_store()
        await store.open()
        for read in (store.load, store.log):
            with pytest.raises(DamagedRecord) as damaged:
                await read("g1")
            assert damaged.value.game_id == "g1" and damaged.value.reason.startswith("commands[3].action: not JSON")
        other = await store.log("g2")  # every other game as before, and the store takes writes
        assert other is not None and [c.seq for c in other[2]] == [1, 2]
        await store.append("g2", command(3), progress(3))
        assert await store.unfinished() == ["g1", "g2"]
        await store.close()

    asyncio.run(scenario())


@pytest.mark.parametrize(("statement", "reason"), [
    ("UPDATE games SET meta = '[1, 2]' WHERE id = 'g1'", "meta: not a JSON object"),
    ("UPDATE games SET created = 'NaN' WHERE id = 'g1'", "created: not a number of seconds"),
    ("UPDATE commands SET author = 'null' WHERE game = 'g1' AND seq = 1", "commands[1].by: not a JSON object"),
    ("UPDATE commands SET status = 'exploded' WHERE game = 'g1' AND seq = 3", "commands[last].status"),
])
def test_every_damaged_value_is_named(store_and_sql: tuple[Callable[[], GameStore], Sql], statement: str,
                                      reason: str) -> None:
    make_store, sql = store_and_sql
    fill(make_store)
    sql(statement)

    async def scenario() -> None:
        store = make_store()
        await store.open()
        with pytest.raises(DamagedRecord) as damaged:
            await store.log("g1")
        assert damaged.value.reason.startswith(reason), damaged.value.reason
        assert await store.log("g2") is not None
        await store.close()

    asyncio.run(scenario())


def test_a_snapshot_that_is_not_json_is_passed_over(store_and_sql: tuple[Callable[[], GameStore], Sql]) -> None:
    make_store, sql = store_and_sql
    fill(make_store)
    sql("UPDATE snapshots SET state = 'garbage' WHERE game = 'g1'")

    async def scenario() -> None:
        store = make_store()
        await store.open()
        stored = await store.load("g1")  # without its snapshot: every command of the log, to rebuild it from
        assert stored is not None and stored.snapshot is None and [c.seq for c in stored.commands] == [1, 2, 3]
        await store.close()

    asyncio.run(scenario())


def test_a_sqlite_database_whose_tables_are_gone_is_refused(tmp_path: Path) -> None:
    fill(lambda: SqliteStore(tmp_path))
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        db.execute("DROP TABLE snapshots")

    async def scenario() -> None:
        with pytest.raises(Exception) as refused:
            await SqliteStore(tmp_path).open()
        assert "damaged (table snapshots is missing)" in str(refused.value)
        store = SqliteStore(tmp_path)  # and the lock was let go: the next try fails the same way, not "locked"
        with pytest.raises(Exception, match="table snapshots is missing"):
            await store.open()

    asyncio.run(scenario())


def test_an_empty_sqlite_file_is_a_new_database(tmp_path: Path) -> None:
    (tmp_path / "games.sqlite3").write_bytes(b"")

    async def scenario() -> None:
        store = SqliteStore(tmp_path)
        await store.open()
        await store.create(record(), progress(0))
        assert await store.unfinished() == ["g1"]
        await store.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("store_and_sql", ["postgres"], indirect=True)  # the cluster's store alone
def test_a_damaged_row_leaves_the_other_games_in_a_clusters_lobby(
        store_and_sql: tuple[Callable[[], GameStore], Sql]) -> None:
    """PostgreSQL's `summaries` (every node's lobby) lists the other games rather than failing for all."""
    make_store, sql = store_and_sql
    fill(make_store)
    sql("UPDATE games SET meta = 'not JSON' WHERE id = 'g1'")

    async def scenario() -> None:
        from asteroid_mining.storage.postgres import PostgresStore

        store = make_store()
        assert isinstance(store, PostgresStore)
        await store.open()
        try:
            assert [record.id for record, _ in await store.summaries()] == ["g2"]
        finally:
            await store.close()

    asyncio.run(scenario())
