"""`SqliteStore`: the embedded default store, one SQLite file in WAL mode.

Writes go through one dedicated writer thread that commits in groups: every write waiting when a transaction
starts joins it, and each one's caller is told only after the COMMIT has returned. With `synchronous=FULL` (the
default) that COMMIT has reached the disk (the WAL is fsynced), so a command acknowledged to players survives a
`kill -9` of the server and a power cut alike; grouping makes that one fsync per batch instead of one per move,
so many games writing at once share it. `synchronous=NORMAL` survives `kill -9` too (the WAL is in the
operating system's hands) but can lose the last commits on a power cut; it is available as an option.

Reads run on a small pool of threads with their own connections (WAL lets them read while the writer writes).
The event loop never waits on SQLite.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from .base import Command, GameRecord, GameStore, Progress, Snapshot, StorageError, StoredGame

SCHEMA_VERSION = 2
"""The layout of the database this code writes (`PRAGMA user_version`). Version 2 moved each game's progress
from its `games` row, which holds the belt document too, to a row of its own in `progress`; a version 1 database
is brought up to date when opened."""
DATABASE_NAME = "games.sqlite3"
"""The file name of the database inside the data directory."""

_SCHEMA = """
-- a game's record, written once (its seq, status, round, turn and updated: as created; see `progress`)
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    belt TEXT NOT NULL,
    options TEXT NOT NULL,
    seed INTEGER NOT NULL,
    settlers INTEGER NOT NULL,
    meta TEXT NOT NULL,
    seq INTEGER NOT NULL,
    status TEXT NOT NULL,
    round INTEGER NOT NULL,
    turn TEXT,
    updated REAL NOT NULL
);
DROP INDEX IF EXISTS games_by_status;
-- where a game is, rewritten with every command: a short row of its own, since rewriting a row rewrites all of it
-- and a `games` row holds the whole belt document (tens of kilobytes on a standard belt)
CREATE TABLE IF NOT EXISTS progress (
    game TEXT PRIMARY KEY REFERENCES games (id),
    seq INTEGER NOT NULL,
    status TEXT NOT NULL,
    round INTEGER NOT NULL,
    turn TEXT,
    updated REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS progress_by_status ON progress (status);
CREATE TABLE IF NOT EXISTS commands (
    game TEXT NOT NULL REFERENCES games (id),
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    author TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    game TEXT PRIMARY KEY REFERENCES games (id),
    seq INTEGER NOT NULL,
    state TEXT NOT NULL
);
"""

_BATCH = 512
"""The most writes one transaction takes."""

T = TypeVar("T")
Synchronous = Literal["FULL", "NORMAL"]
log = logging.getLogger(__name__)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _connect(path: Path, synchronous: Synchronous) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


@dataclass(slots=True)
class _Job:
    work: Callable[[sqlite3.Connection], Any]
    future: asyncio.Future[Any]
    loop: asyncio.AbstractEventLoop


def _settle_all(settled: list[tuple[asyncio.Future[Any], Any, BaseException | None]]) -> None:
    for future, result, error in settled:
        if future.cancelled():
            continue
        if error is None:
            future.set_result(result)
        else:
            future.set_exception(error)


class _Writer:
    """The one thread that writes: runs queued jobs in group transactions, reports after COMMIT."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="store-writer", daemon=True)
        self._thread.start()

    def submit(self, work: Callable[[sqlite3.Connection], T]) -> asyncio.Future[T]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put(_Job(work, future, loop))
        return future

    def stop(self) -> None:
        """Finish the queued jobs, then end the thread (blocking)."""
        self._queue.put(None)
        self._thread.join()

    def _run(self) -> None:
        stopping = False
        while not stopping:
            first = self._queue.get()
            if first is None:
                break
            batch = [first]
            while len(batch) < _BATCH:
                try:
                    job = self._queue.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stopping = True
                    break
                batch.append(job)
            self._commit(batch)

    def _commit(self, batch: list[_Job]) -> None:
        conn = self._conn
        outcomes: list[tuple[Any, BaseException | None]] = []
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:  # the usual case: every write of the batch succeeds, with no savepoint of its own
                outcomes = [(job.work(conn), None) for job in batch]
            except Exception:  # one failed: start the batch again, a savepoint per job
                conn.execute("ROLLBACK")
                conn.execute("BEGIN IMMEDIATE")
                outcomes = [self._one(job) for job in batch]
            conn.execute("COMMIT")
        except Exception as failure:  # the whole transaction is lost: tell every waiting caller
            log.exception("the store could not commit %d writes", len(batch))
            if conn.in_transaction:
                try:
                    conn.execute("ROLLBACK")
                except sqlite3.Error:
                    log.exception("rollback failed")
            lost = _storage_error(failure)
            outcomes = [(None, lost)] * len(batch)
        # one wake-up per event loop for the whole batch, not one per write
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[Any], Any, BaseException | None]]] = {}
        for job, (result, error) in zip(batch, outcomes, strict=True):
            by_loop.setdefault(job.loop, []).append((job.future, result, error))
        for loop, settled in by_loop.items():
            with contextlib.suppress(RuntimeError):  # RuntimeError: that loop has closed, nobody is waiting
                loop.call_soon_threadsafe(_settle_all, settled)


    def _one(self, job: _Job) -> tuple[Any, BaseException | None]:
        """Run one job in its own savepoint, so that its failure does not take the others of its batch down."""
        conn = self._conn
        conn.execute("SAVEPOINT job")
        try:
            result = job.work(conn)
        except Exception as failure:
            conn.execute("ROLLBACK TO job")
            conn.execute("RELEASE job")
            return None, _storage_error(failure)
        conn.execute("RELEASE job")
        return result, None


def _storage_error(failure: BaseException) -> StorageError:
    if isinstance(failure, StorageError):
        return failure
    return StorageError(f"{type(failure).__name__}: {failure}")


class SqliteStore(GameStore):
    """Games in one SQLite database (WAL) inside `directory`; see the module's documentation."""

    def __init__(self, directory: str | Path, synchronous: Synchronous = "FULL") -> None:
        self.directory = Path(directory)
        self.path = self.directory / DATABASE_NAME
        self.synchronous: Synchronous = synchronous
        self._writer: _Writer | None = None
        self._write_conn: sqlite3.Connection | None = None
        self._readers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="store-read")
        self._local = threading.local()
        self._read_conns: list[sqlite3.Connection] = []
        self._read_lock = threading.Lock()

    # ----- life -----
    async def open(self) -> None:
        """Create the directory and schema if needed and start the writer thread."""
        await asyncio.to_thread(self._open)

    def _open(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            conn = _connect(self.path, self.synchronous)
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                conn.close()
                raise StorageError(f"{self.path} was written by a newer version of the game (schema {version})")
            conn.executescript(_SCHEMA)
            if version < SCHEMA_VERSION:
                conn.execute("BEGIN IMMEDIATE")
                # version 1 kept the progress in the games' rows (a new database has no rows: nothing to copy)
                conn.execute("INSERT OR IGNORE INTO progress SELECT id, seq, status, round, turn, updated FROM games")
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                conn.execute("COMMIT")
        except sqlite3.Error as failure:
            raise StorageError(f"cannot open the database {self.path}: {failure}") from None
        self._write_conn = conn
        self._writer = _Writer(conn)

    async def close(self) -> None:
        """Finish the queued writes, stop the threads and close every connection."""
        writer, self._writer = self._writer, None
        if writer is not None:
            await asyncio.to_thread(writer.stop)
        self._readers.shutdown(wait=True)
        with self._read_lock:
            for conn in self._read_conns:
                conn.close()
            self._read_conns.clear()
        if self._write_conn is not None:
            self._write_conn.close()
            self._write_conn = None

    # ----- writes -----
    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self._writer is None:
            raise StorageError("the store is closed")
        return await self._writer.submit(work)

    async def create(self, record: GameRecord, progress: Progress) -> None:
        """Insert a new game; durable on return."""
        where = (progress.seq, progress.status, progress.round, progress.turn, progress.updated)
        row = (record.id, record.created, _dumps(record.belt), _dumps(record.options), record.seed,
               record.settlers, _dumps(record.meta), *where)

        def work(conn: sqlite3.Connection) -> None:
            try:
                conn.execute("INSERT INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", row)
            except sqlite3.IntegrityError:
                raise StorageError(f"a game with id {record.id} already exists") from None
            conn.execute("INSERT INTO progress VALUES (?,?,?,?,?,?)", (record.id, *where))

        await self._write(work)

    async def append(self, game_id: str, command: Command, progress: Progress,
                     snapshot: Snapshot | None = None) -> None:
        """Append a command with its progress (and snapshot) in one transaction; durable on return."""
        action = _dumps(command.action)
        author = _dumps(command.by)
        state = _dumps(snapshot.state) if snapshot is not None else None  # encoded here: the loop is busy enough

        def work(conn: sqlite3.Connection) -> None:
            moved = conn.execute(
                "UPDATE progress SET seq=?, status=?, round=?, turn=?, updated=? WHERE game=? AND seq=?",
                (progress.seq, progress.status, progress.round, progress.turn, progress.updated, game_id,
                 command.seq - 1),
            ).rowcount
            if moved != 1:
                raise StorageError(f"game {game_id}: command {command.seq} does not follow the stored log")
            conn.execute("INSERT INTO commands VALUES (?,?,?,?,?)", (game_id, command.seq, action, author, command.at))
            if snapshot is not None and state is not None:
                conn.execute("INSERT OR REPLACE INTO snapshots VALUES (?,?,?)", (game_id, snapshot.seq, state))

        await self._write(work)

    # ----- reads -----
    def _reader(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = _connect(self.path, self.synchronous)
            self._local.conn = conn
            with self._read_lock:
                self._read_conns.append(conn)
        return conn

    async def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        def run() -> T:
            try:
                return work(self._reader())
            except sqlite3.Error as failure:
                raise StorageError(f"{type(failure).__name__}: {failure}") from None

        return await asyncio.get_running_loop().run_in_executor(self._readers, run)

    async def load(self, game_id: str) -> StoredGame | None:
        """The record, progress, latest snapshot and the commands after it."""

        def work(conn: sqlite3.Connection) -> StoredGame | None:
            conn.execute("BEGIN")  # one consistent read across the three tables
            try:
                found = _game_row(conn, game_id)
                if found is None:
                    return None
                record, progress = found
                snap = conn.execute("SELECT seq, state FROM snapshots WHERE game=?", (game_id,)).fetchone()
                snapshot = Snapshot(snap[0], json.loads(snap[1])) if snap else None
                after = snapshot.seq if snapshot else 0
                return StoredGame(record, progress, snapshot, _commands(conn, game_id, after))
            finally:
                conn.execute("COMMIT")

        return await self._read(work)

    async def log(self, game_id: str) -> tuple[GameRecord, Progress, list[Command]] | None:
        """The record, progress and every command."""

        def work(conn: sqlite3.Connection) -> tuple[GameRecord, Progress, list[Command]] | None:
            conn.execute("BEGIN")
            try:
                found = _game_row(conn, game_id)
                if found is None:
                    return None
                return found[0], found[1], _commands(conn, game_id, 0)
            finally:
                conn.execute("COMMIT")

        return await self._read(work)

    async def unfinished(self) -> list[str]:
        """The ids of running games, oldest first."""

        def work(conn: sqlite3.Connection) -> list[str]:
            rows = conn.execute("SELECT g.id FROM progress AS p JOIN games AS g ON g.id = p.game "
                                "WHERE p.status = 'running' ORDER BY g.created, g.id").fetchall()
            return [row[0] for row in rows]

        return await self._read(work)


def _game_row(conn: sqlite3.Connection, game_id: str) -> tuple[GameRecord, Progress] | None:
    row = conn.execute(
        "SELECT g.id, g.created, g.belt, g.options, g.seed, g.settlers, g.meta, p.seq, p.status, p.round, p.turn, "
        "p.updated FROM games AS g JOIN progress AS p ON p.game = g.id WHERE g.id=?", (game_id,)
    ).fetchone()
    if row is None:
        return None
    record = GameRecord(row[0], row[1], json.loads(row[2]), json.loads(row[3]), row[4], row[5], json.loads(row[6]))
    return record, Progress(row[7], row[8], row[9], row[10], row[11])


def _commands(conn: sqlite3.Connection, game_id: str, after: int) -> list[Command]:
    rows = conn.execute(
        "SELECT seq, action, author, at FROM commands WHERE game=? AND seq>? ORDER BY seq", (game_id, after)
    ).fetchall()
    return [Command(seq, json.loads(action), json.loads(author), at) for seq, action, author, at in rows]

