"""`SqliteStore`: the embedded default store, one SQLite file in WAL mode.

Writes go through one dedicated writer thread that commits in groups: every write waiting when a transaction
starts joins it, and each one's caller is told only after the COMMIT has returned. With `synchronous=FULL` (the
default) that COMMIT has reached the disk (the WAL is fsynced), so a command acknowledged to players survives a
`kill -9` of the server and a power cut alike; grouping makes that one fsync per batch instead of one per move,
so many games writing at once share it. `synchronous=NORMAL` survives `kill -9` too (the WAL is in the
operating system's hands) but can lose the last commits on a power cut; it is available as an option.

The log is the whole truth and nothing is rewritten while a game runs: each command's row says where the game
is after it (status, round, turn), so a command is one appended row, and a group of commands one SQL statement.
That matters more than it seems. The writer thread needs Python's GIL after every statement, and while the
server is busy the event loop holds it for up to the interpreter's switch interval (5 ms) at a time: a
statement per command made a batch of a hundred wait for the GIL hundreds of times, and acknowledgements tens
of milliseconds late. A game's `games` row is written when it is created and once more when it ends.

The writer checks that each command follows the last one stored for its game (no gap, no rewrite) from what it
has itself written, so it keeps a game's last seq in memory; a lock file makes sure that no other server writes
the same database meanwhile. The table's primary key refuses a rewrite besides.

Reads run on a small pool of threads with their own connections (WAL lets them read while the writer writes).
The event loop never waits on SQLite.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import sqlite3
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Literal, TypeVar

import orjson

from .base import (
    Command,
    DamagedRecord,
    GameRecord,
    GameStore,
    Progress,
    Snapshot,
    StorageError,
    StoredGame,
    current_progress,
    read_command,
    read_progress,
    read_record,
    read_snapshot,
)
from .schema import COMMANDS, column_names, create_statements

try:
    import fcntl
except ImportError:  # not on Windows: the lock file is then only a marker
    fcntl = None  # type: ignore[assignment]

SCHEMA_VERSION = 3
"""The layout of the database this code writes (`PRAGMA user_version`). Version 2 kept each game's progress in a
row of its own, rewritten with every command, and version 1 in its `games` row; version 3 keeps it in the
command rows themselves. Older databases are brought up to date when opened."""
DATABASE_NAME = "games.sqlite3"
"""The file name of the database inside the data directory."""
LOCK_NAME = "games.lock"
"""The file a server holds locked while it uses the data directory."""

_TABLES = create_statements("sqlite", if_not_exists=True)
"""The tables and indexes of version 3 (`schema`), each made unless it is there."""
_OLD_INDEXES = ("DROP INDEX IF EXISTS games_by_status",)
"""What version 3 no longer has: version 1's index of every game by status."""

_BATCH = 512
"""The most writes one transaction takes."""
_COMMAND_COLUMNS = tuple(column.name for column in COMMANDS.columns_in("sqlite"))

T = TypeVar("T")
Synchronous = Literal["FULL", "NORMAL"]
log = logging.getLogger(__name__)


def _dumps(value: Any) -> str:
    """Compact JSON text: orjson, since commands are encoded on the event loop (and snapshots are big)."""
    return orjson.dumps(value).decode()


def _connect(path: Path, synchronous: Synchronous, statements: int = 128) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0,
                           cached_statements=statements)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(f"PRAGMA synchronous={synchronous}")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def _storage_error(failure: BaseException) -> StorageError:
    if isinstance(failure, StorageError):
        return failure
    return StorageError(f"{type(failure).__name__}: {failure}")


# ----- the writer -----
@dataclass(slots=True)
class _Create:
    """A new game's row."""

    row: tuple[Any, ...]
    future: asyncio.Future[None]
    loop: asyncio.AbstractEventLoop

    @property
    def game(self) -> str:
        return str(self.row[0])


@dataclass(slots=True)
class _Append:
    """A command's row; when the game ended with it, its final progress; maybe a snapshot."""

    row: tuple[Any, ...]
    ended: tuple[Any, ...] | None
    snapshot: tuple[Any, ...] | None
    future: asyncio.Future[None]
    loop: asyncio.AbstractEventLoop

    @property
    def game(self) -> str:
        return str(self.row[0])

    @property
    def seq(self) -> int:
        return int(self.row[1])


_Write = _Create | _Append


def _settle_all(settled: list[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    for future, error in settled:
        if future.cancelled():
            continue
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)


class _Writer:
    """The one thread that writes: runs queued writes in group transactions, reports after COMMIT."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._queue: queue.SimpleQueue[_Write | None] = queue.SimpleQueue()
        self._last: dict[str, int] = {}  # game -> the seq of its last stored command, as this writer knows it
        self._inserts: dict[int, str] = {}  # rows -> the statement that inserts that many commands
        self._thread = threading.Thread(target=self._run, name="store-writer", daemon=True)
        self._thread.start()

    def submit(self, write: _Write) -> None:
        self._queue.put(write)

    def stop(self) -> None:
        """Finish the queued writes, then end the thread (blocking)."""
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
                    write = self._queue.get_nowait()
                except queue.Empty:
                    break
                if write is None:
                    stopping = True
                    break
                batch.append(write)
            self._commit(batch)

    def _commit(self, batch: list[_Write]) -> None:
        errors: list[BaseException | None] = [None] * len(batch)
        accepted = self._check(batch, errors)
        try:
            if accepted:
                self._write_all([batch[i] for i in accepted])
        except Exception as failure:  # one write is at fault, or the disk: each write on its own, to find out
            log.warning("a group of %d writes failed (%s); writing them one by one", len(accepted), failure)
            self._write_each(batch, accepted, errors)
        else:
            for i in accepted:
                self._stored(batch[i])
        # one wake-up per event loop for the whole batch, not one per write
        by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], BaseException | None]]] = {}
        for write, error in zip(batch, errors, strict=True):
            by_loop.setdefault(write.loop, []).append((write.future, error))
        for loop, settled in by_loop.items():
            with contextlib.suppress(RuntimeError):  # RuntimeError: that loop has closed, nobody is waiting
                loop.call_soon_threadsafe(_settle_all, settled)

    def _check(self, batch: list[_Write], errors: list[BaseException | None]) -> list[int]:
        """The indexes of the writes that may go ahead: each command follows its game's last one."""
        accepted = []
        last: dict[str, int | None] = {}  # as it will be once the writes accepted so far are stored
        for i, write in enumerate(batch):
            game = write.game
            if isinstance(write, _Create):
                last[game] = 0
                accepted.append(i)
                continue
            if game not in last:
                try:
                    last[game] = self._last_seq(game)
                except sqlite3.Error as failure:
                    errors[i] = _storage_error(failure)
                    continue
            before = last[game]
            if before is None:
                errors[i] = StorageError(f"there is no game {game}")
            elif write.seq != before + 1:
                errors[i] = StorageError(f"game {game}: command {write.seq} does not follow the stored log "
                                         f"(its last command is {before})")
            else:
                last[game] = write.seq
                accepted.append(i)
        return accepted

    def _last_seq(self, game: str) -> int | None:
        """The seq of the game's last stored command (0 before any); None when there is no such game."""
        known = self._last.get(game)
        if known is not None:
            return known
        row = self._conn.execute("SELECT (SELECT COUNT(*) FROM games WHERE id = ?), "
                                 "(SELECT MAX(seq) FROM commands WHERE game = ?)", (game, game)).fetchone()
        if not row[0]:
            return None
        self._last[game] = row[1] or 0
        return self._last[game]

    def _stored(self, write: _Write) -> None:
        self._last[write.game] = 0 if isinstance(write, _Create) else write.seq

    def _insert(self, rows: int) -> str:
        sql = self._inserts.get(rows)
        if sql is None:
            one = "(" + ",".join("?" * len(_COMMAND_COLUMNS)) + ")"
            sql = f"INSERT INTO commands ({','.join(_COMMAND_COLUMNS)}) VALUES " + ",".join([one] * rows)
            self._inserts[rows] = sql
        return sql

    def _write_all(self, writes: list[_Write]) -> None:
        """Every write in one transaction; commands that only add their row in one statement."""
        conn = self._conn
        plain = [w for w in writes if isinstance(w, _Append) and w.ended is None and w.snapshot is None]
        if len(plain) == len(writes):  # the usual batch: one statement, its own transaction (one GIL hand-off)
            conn.execute(self._insert(len(plain)), [value for w in plain for value in w.row])
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            for write in writes:  # creates first in batch order: a command may follow its game's creation
                if isinstance(write, _Create):
                    self._create(write)
            appends = [w for w in writes if isinstance(w, _Append)]
            if appends:
                conn.execute(self._insert(len(appends)), [value for w in appends for value in w.row])
            for write in appends:
                self._extras(write)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _write_each(self, batch: list[_Write], accepted: list[int], errors: list[BaseException | None]) -> None:
        """The writes one by one in one transaction, each in a savepoint: a failing one takes no other down."""
        conn = self._conn
        stored = []
        try:
            conn.execute("BEGIN IMMEDIATE")
            for i in accepted:
                write = batch[i]
                conn.execute("SAVEPOINT one")
                try:
                    if isinstance(write, _Create):
                        self._create(write)
                    else:
                        conn.execute(self._insert(1), write.row)
                        self._extras(write)
                except Exception as failure:
                    conn.execute("ROLLBACK TO one")
                    errors[i] = _storage_error(failure)
                else:
                    stored.append(i)
                conn.execute("RELEASE one")
            conn.execute("COMMIT")
        except Exception as failure:  # the whole transaction is lost: tell every waiting caller
            log.exception("the store could not commit %d writes", len(accepted))
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            lost = _storage_error(failure)
            for i in accepted:
                errors[i] = lost
            self._last.clear()  # what is stored is no longer certain: ask the database again
            return
        for i in stored:
            self._stored(batch[i])

    def _create(self, write: _Create) -> None:
        try:
            self._conn.execute("INSERT INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", write.row)
        except sqlite3.IntegrityError:
            raise StorageError(f"a game with id {write.game} already exists") from None

    def _extras(self, write: _Append) -> None:
        if write.ended is not None:
            self._conn.execute("UPDATE games SET seq=?, status=?, round=?, turn=?, updated=? WHERE id=?", write.ended)
        if write.snapshot is not None:
            self._conn.execute("INSERT OR REPLACE INTO snapshots VALUES (?,?,?)", write.snapshot)


# ----- the store -----
class SqliteStore(GameStore):
    """Games in one SQLite database (WAL) inside `directory`; see the module's documentation."""

    def __init__(self, directory: str | Path, synchronous: Synchronous = "FULL") -> None:
        self.directory = Path(directory)
        self.path = self.directory / DATABASE_NAME
        self.synchronous: Synchronous = synchronous
        self._writer: _Writer | None = None
        self._write_conn: sqlite3.Connection | None = None
        self._lock: IO[str] | None = None
        self._readers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="store-read")
        self._local = threading.local()
        self._read_conns: list[sqlite3.Connection] = []
        self._read_lock = threading.Lock()

    # ----- life -----
    async def open(self) -> None:
        """Create the directory and schema if needed, bring an older database up to date, start the writer."""
        await asyncio.to_thread(self._open)

    def _open(self) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as failure:
            raise StorageError(f"cannot create the data directory {self.directory}: {failure}") from None
        self._take_lock()
        try:
            conn = _connect(self.path, self.synchronous, _BATCH + 16)
            try:
                _bring_up_to_date(conn, self.path)
            except BaseException:
                conn.close()
                raise
        except sqlite3.Error as failure:
            self._release_lock()
            raise StorageError(f"cannot open the database {self.path}: {failure}") from None
        except BaseException:
            self._release_lock()
            raise
        self._write_conn = conn
        self._writer = _Writer(conn)

    def _take_lock(self) -> None:
        path = self.directory / LOCK_NAME
        try:
            lock = open(path, "a+", encoding="utf-8")  # noqa: SIM115 - held until close()
        except OSError as failure:
            raise StorageError(f"cannot open {path}: {failure}") from None
        if fcntl is not None:
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                lock.close()
                raise StorageError(f"another server is using the games in {self.directory} ({path} is locked); "
                                   "stop it, or give this one another data directory") from None
        self._lock = lock

    def _release_lock(self) -> None:
        lock, self._lock = self._lock, None
        if lock is not None:
            lock.close()  # closing the file releases the lock

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
        self._release_lock()

    # ----- writes -----
    def _submit(self, make: Callable[..., _Write], *parts: Any) -> asyncio.Future[None]:
        """Queue a write made by `make(*parts, future, loop)`; the future is settled once it is durable."""
        if self._writer is None:
            raise StorageError("the store is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        self._writer.submit(make(*parts, future, loop))
        return future

    async def create(self, record: GameRecord, progress: Progress) -> None:
        """Insert a new game; durable on return."""
        def encoded() -> tuple[Any, ...]:
            return (record.id, record.created, _dumps(record.belt), _dumps(record.options), record.seed,
                    record.settlers, _dumps(record.meta), progress.seq, progress.status, progress.round,
                    progress.turn, progress.updated)

        # a belt document may be a megabyte: encoded off the event loop
        await self._submit(_Create, await asyncio.to_thread(encoded))

    async def append(self, game_id: str, command: Command, progress: Progress,
                     snapshot: Snapshot | None = None) -> None:
        """Append a command with its progress (and snapshot) in one transaction; durable on return.

        The progress's `updated` is taken to be the command's `at`.
        """
        row = (game_id, command.seq, _dumps(command.action), _dumps(command.by), command.at, progress.status,
               progress.round, progress.turn)
        ended = None
        if progress.status != "running":
            ended = (progress.seq, progress.status, progress.round, progress.turn, command.at, game_id)
        shot = (game_id, snapshot.seq, _dumps(snapshot.state)) if snapshot is not None else None
        await self._submit(_Append, row, ended, shot)

    async def end(self, game_id: str, progress: Progress) -> None:
        """Write the game's end into its row, if it is running and its last command is `progress.seq`.

        Rare, and no command comes after it: one statement in its own transaction on a reading thread's
        connection (SQLite lets one writer at a time in, waiting for the writer thread's transaction to finish);
        durable on return like every commit of this store.
        """
        row = (progress.seq, progress.status, progress.round, progress.turn, progress.updated, game_id, game_id,
               progress.seq)

        def work(conn: sqlite3.Connection) -> int:
            return conn.execute(
                "UPDATE games SET seq=?, status=?, round=?, turn=?, updated=? WHERE id=? AND status='running' "
                "AND (SELECT COALESCE(MAX(seq), 0) FROM commands WHERE game=?) = ?", row).rowcount

        if not await self._read(work):
            raise StorageError(f"game {game_id} is not running at command {progress.seq}: it was not ended")

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
                snapshot = read_snapshot(game_id, snap) if snap else None
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

    async def verify(self) -> None:
        """Check every page of the database (SQLite's `quick_check`) and read the running games; StorageError
        naming the first problem when the file is damaged. Run once before serving, so that a damaged database is
        one clear line at start-up rather than failures later."""

        def work(conn: sqlite3.Connection) -> None:
            rows = conn.execute("PRAGMA quick_check(3)").fetchall()
            problems = [" ".join(str(row[0]).replace("*** in database main ***", "").split()) for row in rows]
            problems = [p for p in problems if p and p != "ok"]
            if problems:
                raise StorageError(f"the database {self.path} is damaged ({'; '.join(problems)[:300]}): restore "
                                   "it from a backup, or move it away to start with no games")
            conn.execute("SELECT COUNT(*), MAX(seq) FROM commands").fetchone()

        await self._read(work)
        await self.unfinished()

    async def unfinished(self) -> list[str]:
        """The ids of running games, oldest first."""

        def work(conn: sqlite3.Connection) -> list[str]:
            rows = conn.execute("SELECT id FROM games WHERE status = 'running' ORDER BY created, id").fetchall()
            return [row[0] for row in rows]

        return await self._read(work)

    async def summaries(self, game_ids: list[str] | None = None) -> list[tuple[GameRecord, Progress]]:
        """The records (belts left out but their asteroids' count) and progress of running games (or of
        `game_ids`), newest first: what the lobby lists of the games a server does not hold. A game whose row
        cannot be read (its belt not JSON included) is left out, logged: loading it says why."""

        def work(conn: sqlite3.Connection) -> list[tuple[GameRecord, Progress]]:
            where = "g.status = 'running'" if game_ids is None else \
                f"g.id IN ({', '.join('?' * len(game_ids))})"
            # the belt's asteroids are counted by SQLite (in C), not decoded here: a belt may be megabytes
            rows = conn.execute(
                "SELECT g.id, g.created, g.options, g.seed, g.settlers, g.meta, g.seq, g.status, g.round, g.turn, "
                "g.updated, c.seq, c.status, c.round, c.turn, c.at, CASE WHEN json_valid(g.belt) THEN "
                "coalesce(json_array_length(g.belt, '$.asteroids'), 0) ELSE -1 END FROM games AS g "
                "LEFT JOIN commands AS c ON c.game = g.id AND c.seq = (SELECT max(seq) FROM commands WHERE "
                f"game = g.id) WHERE {where} ORDER BY g.created DESC, g.id", tuple(game_ids or ())).fetchall()
            out = []
            for row in rows:
                try:
                    if row[16] < 0:
                        raise DamagedRecord(str(row[0]), "belt: not JSON")
                    belt = {"asteroids": [None] * row[16]}  # only the count is used by summaries
                    record = read_record((row[0], row[1], None, row[2], row[3], row[4], row[5]), belt)
                    progress = read_progress(record.id, row[6:11])
                    if row[11] is not None and row[12] is not None:  # (a command of version 1 or 2 may lack it)
                        progress = current_progress(progress, read_progress(record.id, row[11:16], "commands[last]"))
                except DamagedRecord as damaged:
                    log.error("%s", damaged)
                    continue
                out.append((record, progress))
            return out

        return await self._read(work)


def _game_row(conn: sqlite3.Connection, game_id: str) -> tuple[GameRecord, Progress] | None:
    row = conn.execute("SELECT id, created, belt, options, seed, settlers, meta, seq, status, round, turn, updated "
                       "FROM games WHERE id=?", (game_id,)).fetchone()
    if row is None:
        return None
    record = read_record(row)  # every value checked: a damaged row is DamagedRecord, for this game alone
    progress = read_progress(game_id, row[7:12])
    last = conn.execute("SELECT seq, status, round, turn, at FROM commands WHERE game=? ORDER BY seq DESC LIMIT 1",
                        (game_id,)).fetchone()
    if last is not None and last[1] is not None:  # a command of version 1 or 2 may lack its progress
        progress = current_progress(progress, read_progress(game_id, last, "commands[last]"))
    return record, progress


def _commands(conn: sqlite3.Connection, game_id: str, after: int) -> list[Command]:
    rows = conn.execute(
        "SELECT seq, action, author, at FROM commands WHERE game=? AND seq>? ORDER BY seq", (game_id, after)
    ).fetchall()
    return [read_command(game_id, row) for row in rows]


# ----- the schema -----
def _bring_up_to_date(conn: sqlite3.Connection, path: Path) -> None:
    """Create the schema, or bring a version 1 or 2 database to version 3 in one transaction."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > SCHEMA_VERSION:
        raise StorageError(f"{path} was written by a newer version of the game (schema {version})")
    if version == SCHEMA_VERSION:
        _check_tables(conn, path)
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in _OLD_INDEXES:
            conn.execute(statement)
        for statement in _TABLES:
            conn.execute(statement)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(commands)")}
        for name in ("status", "round", "turn"):  # what versions 1 and 2 lacked
            if name not in columns:
                conn.execute(f"ALTER TABLE commands ADD COLUMN {COMMANDS.column(name).sql('sqlite')}")
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'progress'").fetchone():
            # version 2: each game's progress was a row of its own
            conn.execute("UPDATE games SET (seq, status, round, turn, updated) = "
                         "(SELECT p.seq, p.status, p.round, p.turn, p.updated FROM progress AS p WHERE p.game = id) "
                         "WHERE id IN (SELECT game FROM progress)")
            conn.execute("DROP TABLE progress")
        # versions 1 and 2: the games' rows now say where each game is; the last command of each says it too
        conn.execute("UPDATE commands SET (status, round, turn) = "
                     "(SELECT g.status, g.round, g.turn FROM games AS g WHERE g.id = commands.game) "
                     "WHERE status IS NULL AND seq = (SELECT g.seq FROM games AS g WHERE g.id = commands.game)")
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


_COLUMNS = column_names("sqlite")
"""The columns of each table of version 3."""


def _check_tables(conn: sqlite3.Connection, path: Path) -> None:
    """StorageError naming the first table or column missing from a database that says it is version 3.

    A database whose tables are gone (dropped, or a file cut short by hand) would otherwise start and fail on
    every request; it is refused like a database with damaged pages. (A new or empty file, 0 bytes included, is
    version 0: SQLite's empty database, and the schema is created.)"""
    for table, wanted in _COLUMNS.items():
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        missing = sorted(wanted - have)
        if missing:
            what = f"table {table} is missing" if not have else f"table {table} lacks {', '.join(missing)}"
            raise StorageError(f"the database {path} is damaged ({what}): restore it from a backup, or move it "
                               "away to start with no games")
