"""`SqliteStore` on its own: WAL, its schema versions, one server per data directory (the contract every store
keeps is in test_contract.py)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from asteroid_mining.storage import Progress, SqliteStore, StorageError
from asteroid_mining.storage.sqlite import DATABASE_NAME, SCHEMA_VERSION

from .test_contract import command, progress, record


def test_the_database_is_in_wal_mode(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = SqliteStore(tmp_path)
        await store.open()
        await store.create(record(), progress(0))
        await store.close()

    asyncio.run(scenario())
    conn = sqlite3.connect(tmp_path / DATABASE_NAME)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


OLD_TABLES = """
CREATE TABLE games (id TEXT PRIMARY KEY, created REAL NOT NULL, belt TEXT NOT NULL, options TEXT NOT NULL,
    seed INTEGER NOT NULL, settlers INTEGER NOT NULL, meta TEXT NOT NULL, seq INTEGER NOT NULL, status TEXT NOT NULL,
    round INTEGER NOT NULL, turn TEXT, updated REAL NOT NULL);
CREATE TABLE commands (game TEXT NOT NULL REFERENCES games (id), seq INTEGER NOT NULL, action TEXT NOT NULL,
    author TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (game, seq)) WITHOUT ROWID;
CREATE TABLE snapshots (game TEXT PRIMARY KEY REFERENCES games (id), seq INTEGER NOT NULL, state TEXT NOT NULL);
"""
"""The tables of versions 1 and 2."""

SCHEMA_1 = OLD_TABLES + """
CREATE INDEX games_by_status ON games (status, created);
PRAGMA user_version=1;
"""
"""The layout of version 1 (the progress in the games' rows)."""


def test_a_version_1_database_is_brought_up_to_date(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / DATABASE_NAME)
    conn.executescript(SCHEMA_1)
    belt, options, meta = '{"belt":"json"}', '{"uranium_fuse":1}', '{"seats":[]}'
    conn.execute("INSERT INTO games VALUES ('g1',1.0,?,?,7,2,?,2,'running',2,'s1',12.0)", (belt, options, meta))
    conn.execute("INSERT INTO games VALUES ('g2',2.0,?,?,7,2,?,0,'won',1,'s1',10.0)", (belt, options, meta))
    for seq in (1, 2):
        conn.execute("INSERT INTO commands VALUES ('g1',?,?,'{\"seat\":1}',?)",
                     (seq, f'{{"type":"wait","actor":"s{1 + seq % 2}"}}', 100.0 + seq))
    conn.commit()
    conn.close()

    async def scenario() -> None:
        store = SqliteStore(tmp_path)
        await store.open()
        assert await store.unfinished() == ["g1"]
        stored = await store.load("g1")
        assert stored is not None
        assert stored.record == record() and stored.progress == progress(2)
        assert stored.commands == [command(1), command(2)]
        await store.append("g1", command(3), progress(3))
        found = await store.log("g1")
        assert found is not None and found[1] == progress(3) and found[2][-1] == command(3)
        await store.close()

    asyncio.run(scenario())
    with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_newer_database_is_refused(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / DATABASE_NAME)
    conn.execute("PRAGMA user_version=99")
    conn.close()

    async def scenario() -> None:
        with pytest.raises(StorageError, match="newer"):
            await SqliteStore(tmp_path).open()

    asyncio.run(scenario())


SCHEMA_2 = OLD_TABLES + """
CREATE TABLE progress (game TEXT PRIMARY KEY REFERENCES games (id), seq INTEGER NOT NULL, status TEXT NOT NULL,
    round INTEGER NOT NULL, turn TEXT, updated REAL NOT NULL) WITHOUT ROWID;
CREATE INDEX progress_by_status ON progress (status);
PRAGMA user_version=2;
"""
"""The layout of version 2 (each game's progress in a row of its own, rewritten with every command)."""


def test_a_version_2_database_is_brought_up_to_date(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / DATABASE_NAME)
    conn.executescript(SCHEMA_2)
    belt, options, meta = '{"belt":"json"}', '{"uranium_fuse":1}', '{"seats":[]}'
    for gid, created in (("g1", 1.0), ("g2", 2.0), ("g3", 3.0)):
        conn.execute("INSERT INTO games VALUES (?,?,?,?,7,2,?,0,'running',1,'s1',?)",
                     (gid, created, belt, options, meta, created))
    conn.execute("INSERT INTO progress VALUES ('g1',2,'running',2,'s1',102.0)")
    conn.execute("INSERT INTO progress VALUES ('g2',1,'won',1,'s2',101.0)")
    conn.execute("INSERT INTO progress VALUES ('g3',0,'running',1,'s1',3.0)")
    for gid, last in (("g1", 2), ("g2", 1)):
        for seq in range(1, last + 1):
            conn.execute("INSERT INTO commands VALUES (?,?,?,'{\"seat\":1}',?)",
                         (gid, seq, f'{{"type":"wait","actor":"s{1 + seq % 2}"}}', 100.0 + seq))
    conn.commit()
    conn.close()

    async def scenario() -> None:
        store = SqliteStore(tmp_path)
        await store.open()
        assert await store.unfinished() == ["g1", "g3"]
        stored = await store.load("g1")
        assert stored is not None and stored.progress == progress(2) and stored.commands == [command(1), command(2)]
        found = await store.log("g2")
        assert found is not None and found[1] == Progress(1, "won", 1, "s2", 101.0)
        fresh = await store.load("g3")
        assert fresh is not None and fresh.progress == Progress(0, "running", 1, "s1", 3.0) and not fresh.commands
        await store.append("g1", command(3), progress(3))
        with pytest.raises(StorageError):
            await store.append("g1", command(3), progress(3))
        found = await store.log("g1")
        assert found is not None and found[1] == progress(3) and [c.seq for c in found[2]] == [1, 2, 3]
        await store.close()

    asyncio.run(scenario())
    with sqlite3.connect(tmp_path / DATABASE_NAME) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        assert "progress" not in tables


def test_one_server_at_a_time_in_a_data_directory(tmp_path: Path) -> None:
    async def scenario() -> None:
        first = SqliteStore(tmp_path)
        await first.open()
        with pytest.raises(StorageError, match="another server"):
            await SqliteStore(tmp_path).open()
        await first.close()
        again = SqliteStore(tmp_path)
        await again.open()
        await again.close()

    asyncio.run(scenario())


def _layout(path: Path) -> tuple[list[tuple[object, ...]], list[str]]:
    """Every column (table, name, type, NOT NULL, primary key) and the names of the indexes of a database."""
    with sqlite3.connect(path) as conn:
        columns = [(table, *row[1:4], row[5]) for table in ("games", "commands", "snapshots")
                   for row in conn.execute(f"PRAGMA table_info({table})")]
        indexes = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT "
                                                  "LIKE 'sqlite_autoindex%' ORDER BY name")]
    return columns, indexes


def test_a_database_brought_up_to_date_has_the_layout_of_a_new_one(tmp_path: Path) -> None:
    """The layout is written once (`storage.schema`): a new database is made from it, a version 1 one migrated to
    it; both end the same."""
    new, old = tmp_path / "new", tmp_path / "old"
    old.mkdir()
    with sqlite3.connect(old / DATABASE_NAME) as conn:
        conn.executescript(SCHEMA_1)

    async def scenario() -> None:
        for directory in (new, old):
            store = SqliteStore(directory)
            await store.open()
            await store.close()

    asyncio.run(scenario())
    made, migrated = _layout(new / DATABASE_NAME), _layout(old / DATABASE_NAME)
    assert made == migrated and made[1] == ["games_running"]
    assert ("commands", "status", "TEXT", 0, 0) in made[0] and ("games", "seed", "INTEGER", 1, 0) in made[0]
