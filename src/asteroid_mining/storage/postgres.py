"""`PostgresStore`: games in a PostgreSQL database, shared by every server node of a cluster.

The guarantees are `SqliteStore`'s: a write's caller is told only after its transaction has committed
(`synchronous_commit` is PostgreSQL's default, on: the commit is in the write-ahead log on disk); writes are
committed in groups (every write queued while a transaction runs joins the next one, so many games share one
commit); the command log's key is `(game, seq)`; a snapshot now and then; a schema version with migrations.

One writer task per store sends the groups, each in one transaction of three round trips: lock the rows of the
games written (`SELECT … FOR UPDATE`, in id order so that two nodes never deadlock), check every command against
what is stored (the game exists, its seq follows the last one, the writer holds the game's epoch), insert the
commands that pass in one statement (`unnest` of one array per column), commit.

**The fence.** In a cluster each live game has one owner, chosen through a lease in Redis; a lease can expire
while its holder still believes it owns the game (a pause, a partition). The store is the final judge: a node
that takes a game over first `claim`s it with the lease's epoch, which is written into the game's row; from then
on the store accepts commands of that game only from the store that claimed it with that epoch. A node that lost
the game fails its next append with `Fenced`, however late it comes.

Reads go through the same connection pool; `load` and `log` read in one repeatable-read transaction.

**Deadlines.** A database that stops answering without refusing (a paused server, a partition that drops packets)
would hold every query for as long as it lasts: psycopg waits for an answer, and cancelling the waiting task makes
it ask the server to cancel the query and wait for that too. So every query runs under a deadline of the store's
own, `read_seconds` for reads and `write_seconds` for writes: at the deadline the connection's socket is shut down
(the query's wait ends at once), the connection leaves the pool for good, and the caller gets a `StorageError`.
A write cut so has an unknown outcome (its commit may have reached the server, which commits it once it runs
again): its callers hear a `StorageError` as for an answer lost, and the server goes by what the store holds when
it reads the game again (`load` first waits for any transaction still holding the game's row, so that it reads
the write's outcome, not a state from before it). The server ends a transaction its client left open for longer
than `idle_in_transaction_session_timeout`, so that a node cut off mid-transaction does not hold a game's row for
the hours TCP takes to notice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import operator
import os
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson

from .base import (
    Command,
    DamagedRecord,
    Fenced,
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
from .reread import made_again
from .schema import GAME_CLIENT, PLAYING, RUNNING_BY_CLIENT, create_statements

try:
    import psycopg
    from psycopg_pool import AsyncConnectionPool, PoolTimeout
    _IDLE = psycopg.pq.TransactionStatus.IDLE
except ImportError:  # the cluster extra is not installed: the store says so when it is made
    psycopg = None  # type: ignore[assignment]

SCHEMA_VERSION = 4
"""The layout this code writes, kept in the `schema_version` table. Version 1 had no fence (no `epoch` in the
games' rows) and an index of every game by status; version 2 has the epoch, the number of asteroids of each
game's belt (so that the lobby need not read belt documents) and indexes only running games; version 3 indexes
the running games by the address that created them too (`GAME_CLIENT`, `RUNNING_BY_CLIENT`); version 4 marks the
games somebody has acted in (`played`), indexes the running ones (`PLAYING`) and indexes an address's running games
by it and by their date too."""

_MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: (
        "ALTER TABLE games ADD COLUMN epoch BIGINT NOT NULL DEFAULT 0",
        "ALTER TABLE games ADD COLUMN asteroids INTEGER",
        "UPDATE games SET asteroids = coalesce(json_array_length(belt::json -> 'asteroids'), 0)",
        "ALTER TABLE games ALTER COLUMN asteroids SET NOT NULL",
        "DROP INDEX games_by_status",
        "CREATE INDEX games_running ON games (created, id) WHERE status = 'running'",
    ),
    3: (GAME_CLIENT, "CREATE INDEX games_running_by_client ON games (game_client(meta)) WHERE status = 'running'"),
    4: (  # (IF [NOT] EXISTS: a database set back to an older version by hand has them already)
        "ALTER TABLE games ADD COLUMN IF NOT EXISTS played INTEGER NOT NULL DEFAULT 0",
        "DROP INDEX IF EXISTS games_running_by_client",
        "DROP INDEX IF EXISTS games_playing",
        "UPDATE games AS g SET played = 1 WHERE EXISTS (SELECT 1 FROM commands AS c WHERE c.game = g.id)",
        RUNNING_BY_CLIENT.sql(),
        PLAYING.sql(),
    ),
}
"""The statements that bring a database of the version before to each version (a new database is made at the
latest version at once, from `schema`)."""

_MIGRATION_LOCK = 0x61737465  # any constant: nodes starting together migrate one after the other
_BATCH = 512
"""The most writes one transaction takes."""
_SEVERED_GRACE = 5.0
"""Seconds a query whose socket was shut down is given to notice (it does at once; past this it is cancelled)."""

T = TypeVar("T")
log = logging.getLogger(__name__)


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def _storable(game_id: str) -> bool:
    """Whether PostgreSQL can hold `game_id` (its text holds no NUL): one it cannot names no game. Asked for such a
    game (`/api/games/%00`), the driver refused the query, and the request was told that the storage could not be
    reached (`503 storage_failed`, a warning in the log) rather than that there is no such game."""
    return "\x00" not in game_id


def _storage_error(failure: BaseException) -> StorageError:
    if isinstance(failure, StorageError):
        return failure
    if psycopg is not None and isinstance(failure, PoolTimeout):
        return StorageError("the database cannot be reached (no connection within the pool's timeout)")
    return StorageError(f"{type(failure).__name__}: {str(failure).strip()}")


@dataclass(slots=True)
class _Write:
    """A new game (`record` set) or a command of one (`command` set), waiting for the writer."""

    game: str
    future: asyncio.Future[None]
    record: tuple[Any, ...] | None = None
    command: tuple[Any, ...] | None = None
    seq: int = 0
    epoch: int | None = None
    ended: tuple[Any, ...] | None = None
    snapshot: tuple[Any, ...] | None = None
    error: StorageError | None = field(default=None)


class PostgresStore(GameStore):
    """Games in PostgreSQL at `url` (`postgresql://user@host:port/db`); see the module's documentation."""

    def __init__(self, url: str, min_connections: int = 2, max_connections: int = 8, timeout: float = 5.0,
                 read_seconds: float = 5.0, write_seconds: float = 10.0) -> None:
        if psycopg is None:
            raise StorageError("PostgreSQL needs the cluster extra: pip install 'asteroid-mining[cluster]'")
        self.url = url
        self.timeout = timeout
        self.read_seconds = read_seconds
        """The deadline of a read, from asking for a connection to the last row (see the module's documentation)."""
        self.write_seconds = write_seconds
        """The deadline of a write's transaction, its commit included."""
        idle = max(30_000, round(write_seconds * 3_000))  # in ms: well past any transaction this store runs
        self._pool = AsyncConnectionPool(url, min_size=min_connections, max_size=max_connections, open=False,
                                         timeout=timeout, kwargs={"autocommit": True, "connect_timeout": 5},
                                         configure=_configure(idle), name="games")
        self._queue: asyncio.Queue[_Write | None] | None = None
        self._writer: asyncio.Task[None] | None = None
        self._epochs: dict[str, int] = {}  # game -> the epoch this store claimed it with
        self._giving_back: set[asyncio.Task[None]] = set()
        self._listed: dict[str, tuple[tuple[Any, ...], tuple[GameRecord, Progress] | None]] = {}
        """The rows the last read of every running game (`summaries`) returned, by game, each with what was read
        from it (None: damaged): a row that is the same at the next read is not checked and parsed again."""

    def __repr__(self) -> str:
        return f"PostgresStore({redact_url(self.url)!r})"

    # ----- life -----
    async def open(self) -> None:
        """Connect, create or bring the schema up to date, start the writer; StorageError when it cannot."""
        try:  # one connection first: a database that cannot be reached is one clear sentence, not the pool's retries
            first = await psycopg.AsyncConnection.connect(self.url, connect_timeout=max(1, round(self.timeout)))
            await first.close()
        except Exception as failure:
            reason = str(failure).strip().splitlines()[0] if str(failure).strip() else type(failure).__name__
            raise StorageError(f"cannot connect to PostgreSQL at {redact_url(self.url)}: {reason}") from None
        try:
            await self._pool.open(wait=True, timeout=self.timeout)
        except Exception as failure:
            with contextlib.suppress(Exception):
                await self._pool.close()
            raise StorageError(f"cannot connect to PostgreSQL at {redact_url(self.url)}: "
                               f"{_storage_error(failure)}") from None
        try:
            await self._bring_up_to_date()
        except BaseException:
            await self._pool.close()
            raise
        self._queue = asyncio.Queue()
        self._writer = asyncio.create_task(self._write_loop(), name="postgres-writer")

    async def close(self) -> None:
        """Finish the queued writes, then close every connection."""
        queue, writer = self._queue, self._writer
        self._queue = self._writer = None
        if queue is not None and writer is not None:
            queue.put_nowait(None)
            with contextlib.suppress(Exception):
                await writer
        await self._pool.close()

    async def _bring_up_to_date(self) -> None:
        try:
            async with self._pool.connection() as conn, conn.transaction():
                await conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
                await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
                row = await (await conn.execute("SELECT max(version) FROM schema_version")).fetchone()
                version = row[0] if row and row[0] is not None else 0
                if version > SCHEMA_VERSION:
                    raise StorageError(f"the database at {redact_url(self.url)} was written by a newer version of "
                                       f"the game (schema {version})")
                if version == 0:  # a new database: the layout as it is now
                    for statement in create_statements("postgresql"):
                        await conn.execute(statement)
                    log.info("PostgreSQL schema made at version %d", SCHEMA_VERSION)
                else:
                    for step in range(version + 1, SCHEMA_VERSION + 1):
                        for statement in _MIGRATIONS[step]:
                            await conn.execute(statement)
                        log.info("PostgreSQL schema brought to version %d", step)
                if version < SCHEMA_VERSION:
                    await conn.execute("DELETE FROM schema_version")
                    await conn.execute("INSERT INTO schema_version VALUES (%s)", (SCHEMA_VERSION,))
        except StorageError:
            raise
        except Exception as failure:
            raise StorageError(f"cannot prepare the database at {redact_url(self.url)}: "
                               f"{_storage_error(failure)}") from None

    # ----- the fence -----
    async def claim(self, game_id: str, epoch: int) -> bool:
        """Take the game's log for `epoch`: True when no store holds a newer epoch of it (appends by stores that
        claimed an older one fail from now on), False when one does."""
        async def work(conn: Any) -> bool:
            cur = await conn.execute("UPDATE games SET epoch = %s WHERE id = %s AND epoch <= %s RETURNING id",
                                     (epoch, game_id, epoch))
            return await cur.fetchone() is not None

        won = await self._run(work, seconds=self.write_seconds)
        if won:
            self._epochs[game_id] = epoch
        return won

    def release(self, game_id: str) -> None:
        """Forget the epoch of a game this store no longer writes."""
        self._epochs.pop(game_id, None)

    async def epoch_of(self, game_id: str) -> int | None:
        """The epoch the game was last claimed with (0: never), or None when there is no such game."""
        if not _storable(game_id):
            return None
        async def work(conn: Any) -> int | None:
            row = await (await conn.execute("SELECT epoch FROM games WHERE id = %s", (game_id,))).fetchone()
            return None if row is None else int(row[0])

        return await self._run(work)

    async def last_seq(self, game_id: str) -> int | None:
        """The seq of the game's last stored command (0 before any), or None when there is no such game."""
        if not _storable(game_id):
            return None
        async def work(conn: Any) -> int | None:
            row = await (await conn.execute(
                "SELECT (SELECT max(seq) FROM commands WHERE game = g.id) FROM games AS g WHERE g.id = %s",
                (game_id,))).fetchone()
            return None if row is None else int(row[0] or 0)

        return await self._run(work)

    # ----- writes -----
    def _submit(self, write: _Write) -> asyncio.Future[None]:
        if self._queue is None:
            raise StorageError("the store is closed")
        self._queue.put_nowait(write)
        return write.future

    async def create(self, record: GameRecord, progress: Progress) -> None:
        """Insert a new game; durable on return."""
        asteroids = record.belt.get("asteroids")

        def encoded() -> tuple[Any, ...]:
            return (record.id, record.created, _dumps(record.belt), _dumps(record.options), record.seed,
                    record.settlers, _dumps(record.meta), progress.seq, progress.status, progress.round,
                    progress.turn, progress.updated, len(asteroids) if isinstance(asteroids, list) else 0)

        row = await asyncio.to_thread(encoded)  # a belt document may be a megabyte: encoded off the event loop
        future = asyncio.get_running_loop().create_future()
        await self._submit(_Write(record.id, future, record=row))

    async def append(self, game_id: str, command: Command, progress: Progress,
                     snapshot: Snapshot | None = None) -> None:
        """Append a command with its progress (and snapshot) in one transaction; durable on return."""
        row = (game_id, command.seq, _dumps(command.action), _dumps(command.by), command.at, progress.status,
               progress.round, progress.turn)
        ended = None
        if progress.status != "running":
            ended = (progress.seq, progress.status, progress.round, progress.turn, command.at, game_id)
        shot = (game_id, snapshot.seq, _dumps(snapshot.state)) if snapshot is not None else None
        future = asyncio.get_running_loop().create_future()
        await self._submit(_Write(game_id, future, command=row, seq=command.seq, epoch=self._epochs.get(game_id),
                                  ended=ended, snapshot=shot))

    async def _write_loop(self) -> None:
        queue = self._queue
        assert queue is not None
        stopping = False
        while not stopping:
            first = await queue.get()
            if first is None:
                break
            batch = [first]
            while len(batch) < _BATCH and not queue.empty():
                write = queue.get_nowait()
                if write is None:
                    stopping = True
                    break
                batch.append(write)
            try:
                await self._commit(batch)
            except Exception as failure:  # the transaction is lost (or its outcome unknown): every caller hears
                lost = _storage_error(failure)
                log.warning("the store could not commit %d writes: %s", len(batch), lost)
                for write in batch:
                    write.error = write.error or lost
            for write in batch:
                if not write.future.done():
                    if write.error is None:
                        write.future.set_result(None)
                    else:
                        write.future.set_exception(write.error)

    async def _commit(self, batch: list[_Write]) -> None:
        """One transaction of the group, within `write_seconds`: past it, its outcome is unknown (see the module's
        documentation) and every write of the group fails."""
        await self._on_connection(lambda conn: self._commit_on(conn, batch), self.write_seconds, "write")

    async def _commit_on(self, conn: Any, batch: list[_Write]) -> None:
        creates = [w for w in batch if w.record is not None]
        appends = [w for w in batch if w.command is not None]
        if creates:
            cur = await conn.execute(
                "INSERT INTO games (id, created, belt, options, seed, settlers, meta, seq, status, round, turn, "
                "updated, asteroids) SELECT * FROM unnest(%s::text[], %s::float8[], %s::text[], %s::text[], "
                "%s::int8[], %s::int4[], %s::text[], %s::int4[], %s::text[], %s::int4[], %s::text[], "
                "%s::float8[], %s::int4[]) ON CONFLICT (id) DO NOTHING RETURNING id",
                _columns([w.record for w in creates], 13))  # type: ignore[misc]
            made = {row[0] for row in await cur.fetchall()}
            for write in creates:
                if write.game not in made:
                    write.error = StorageError(f"a game with id {write.game} already exists")
                made.discard(write.game)  # the same id twice in one group: the second is taken
        if not appends:
            return
        games = sorted({w.game for w in appends})
        cur = await conn.execute(
            "SELECT g.id, g.epoch, coalesce((SELECT max(c.seq) FROM commands AS c WHERE c.game = g.id), 0) "
            "FROM games AS g WHERE g.id = ANY(%s) ORDER BY g.id FOR UPDATE OF g", (games,))
        stored = {row[0]: (row[1], row[2]) for row in await cur.fetchall()}
        accepted = self._check(appends, stored)
        if not accepted:
            return
        await conn.execute(
            "INSERT INTO commands (game, seq, action, author, at, status, round, turn) SELECT * FROM "
            "unnest(%s::text[], %s::int4[], %s::text[], %s::text[], %s::float8[], %s::text[], %s::int4[], "
            "%s::text[])", _columns([w.command for w in accepted], 8))  # type: ignore[misc]
        first = [w.game for w in accepted if w.seq == 1]
        if first:  # played from now on: listed and counted through `PLAYING`, never again as an open game
            await conn.execute("UPDATE games SET played = 1 WHERE id = ANY(%s)", (first,))
        async with conn.cursor() as many:
            ended = [w.ended for w in accepted if w.ended is not None]
            if ended:
                await many.executemany("UPDATE games SET seq=%s, status=%s, round=%s, turn=%s, updated=%s "
                                       "WHERE id=%s", ended)
            shots = [w.snapshot for w in accepted if w.snapshot is not None]
            if shots:
                await many.executemany("INSERT INTO snapshots (game, seq, state) VALUES (%s, %s, %s) ON CONFLICT "
                                       "(game) DO UPDATE SET seq = excluded.seq, state = excluded.state", shots)

    @staticmethod
    def _check(appends: list[_Write], stored: dict[str, tuple[int, int]]) -> list[_Write]:
        """The commands that may be stored: their game exists, their seq follows, their epoch is the game's."""
        accepted = []
        last = {game: seq for game, (_, seq) in stored.items()}
        for write in appends:
            if write.game not in stored:
                write.error = StorageError(f"there is no game {write.game}")
                continue
            epoch = stored[write.game][0]
            if write.epoch is not None and write.epoch != epoch:
                write.error = Fenced(f"game {write.game} is now written by another node (epoch {epoch}, this node "
                                     f"holds {write.epoch})")
                continue
            if write.seq != last[write.game] + 1:
                write.error = StorageError(f"game {write.game}: command {write.seq} does not follow the stored log "
                                           f"(its last command is {last[write.game]})")
                continue
            last[write.game] = write.seq
            accepted.append(write)
        return accepted

    # ----- reads -----
    async def _run(self, work: Callable[[Any], Awaitable[T]], repeatable: bool = False,
                   seconds: float | None = None, first: tuple[str, tuple[Any, ...]] | None = None) -> T:
        """Run `work` on a pooled connection within `seconds` (the read deadline by default); `first`: a statement
        run before, on its own. A connection that broke while idle (the database restarted) fails on its first use
        and leaves the pool; the work is tried again on the next one, as long as the deadline allows (every idle
        connection may have broken with it)."""
        seconds = self.read_seconds if seconds is None else seconds
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        mode = "repeatable" if repeatable else None
        for attempt in range(self._pool.max_size + 1):
            try:
                return await self._on_connection(work, seconds, mode, deadline, first)
            except (StorageError, DamagedRecord):  # (a damaged row damages its game, not the store)
                raise
            except psycopg.OperationalError as failure:
                if attempt == self._pool.max_size or loop.time() >= deadline:
                    raise _storage_error(failure) from None
            except Exception as failure:
                raise _storage_error(failure) from None
        raise AssertionError("unreachable")

    async def _on_connection(self, work: Callable[[Any], Awaitable[T]], seconds: float, mode: str | None,
                             deadline: float | None = None, first: tuple[str, tuple[Any, ...]] | None = None) -> T:
        """`work` on a connection of the pool, in a transaction (`mode` `write` or `repeatable`) or not, by
        `deadline` (`seconds` from now). Past it the connection is cut (`_sever`): the work ends at once, and the
        caller gets a StorageError. Never returns a connection to the pool in any state but idle."""
        loop = asyncio.get_running_loop()
        if deadline is None:
            deadline = loop.time() + seconds
        try:
            conn = await self._pool.getconn(timeout=max(0.001, deadline - loop.time()))
        except PoolTimeout:
            raise StorageError(f"the database gave no connection within {seconds:g} s") from None
        job = asyncio.ensure_future(_in_transaction(conn, work, mode, first))
        try:
            done, _ = await asyncio.wait({job}, timeout=max(0.0, deadline - loop.time()))
            if job in done:
                return job.result()
            unknown = " (whether it was committed is unknown)" if mode == "write" else ""
            raise StorageError(f"the database did not answer within {seconds:g} s{unknown}")
        finally:
            if job.done() and not job.cancelled() and job.exception() is None \
                    and conn.pgconn.transaction_status == _IDLE:
                await self._pool.putconn(conn)
            else:  # in a task of its own: a caller cancelled again and again (a game told to stop) must not leak it
                giving_back = asyncio.ensure_future(self._give_back(conn, job))
                self._giving_back.add(giving_back)
                giving_back.add_done_callback(self._giving_back.discard)
                await asyncio.shield(giving_back)

    async def _give_back(self, conn: Any, job: asyncio.Future[Any]) -> None:
        """Return a connection whose work failed, ran out of time or was cancelled: the work ended first (its
        socket shut down under it when it still runs), the connection closed unless it is idle (the pool then
        lets it go and makes another: it never hands out a connection in an unknown state)."""
        if not job.done():
            _sever(conn)
            await asyncio.wait({job}, timeout=_SEVERED_GRACE)
            if not job.done():
                job.cancel()
                await asyncio.wait({job}, timeout=_SEVERED_GRACE)
        if job.done() and not job.cancelled():
            job.exception()  # retrieved: it is the caller's StorageError that tells
        if not job.done() or conn.pgconn.transaction_status != _IDLE:
            with contextlib.suppress(Exception):
                await conn.close()
        await self._pool.putconn(conn)

    async def ping(self) -> None:
        """One trivial query within the read deadline; StorageError when the database does not answer it."""
        async def work(conn: Any) -> None:
            await conn.execute("SELECT 1")

        await self._run(work)

    async def load(self, game_id: str) -> StoredGame | None:
        """The record, progress, latest snapshot and the commands after it."""
        if not _storable(game_id):
            return None
        async def work(conn: Any) -> StoredGame | None:
            found = await _game_row(conn, game_id)
            if found is None:
                return None
            record, progress = found
            cur = await conn.execute("SELECT seq, state FROM snapshots WHERE game = %s", (game_id,))
            snap = await cur.fetchone()
            snapshot = read_snapshot(game_id, snap) if snap else None
            return StoredGame(record, progress, snapshot, await _commands(conn, game_id, snapshot.seq if snapshot
                                                                          else 0))

        # first, wait for a transaction that holds the game's row (a write whose client was cut off at its
        # deadline, committing once the server runs again): the game is read as that write left it
        settle = ("SELECT 1 FROM games WHERE id = %s FOR KEY SHARE", (game_id,))
        return await self._run(work, repeatable=True, first=settle)

    async def log(self, game_id: str) -> tuple[GameRecord, Progress, list[Command]] | None:
        """The record, progress and every command."""
        if not _storable(game_id):
            return None
        async def work(conn: Any) -> tuple[GameRecord, Progress, list[Command]] | None:
            found = await _game_row(conn, game_id)
            if found is None:
                return None
            return found[0], found[1], await _commands(conn, game_id, 0)

        return await self._run(work, repeatable=True)

    async def end(self, game_id: str, progress: Progress) -> None:
        """Write the game's end into its row, if it is running, its last command is `progress.seq` and (once
        claimed) this store still holds its epoch; one transaction, durable on return."""
        epoch = self._epochs.get(game_id)

        async def work(conn: Any) -> bool:
            cur = await conn.execute(
                "UPDATE games SET seq = %s, status = %s, round = %s, turn = %s, updated = %s WHERE id = %s AND "
                "status = 'running' AND (%s::bigint IS NULL OR epoch = %s) AND coalesce((SELECT max(c.seq) FROM "
                "commands AS c WHERE c.game = %s), 0) = %s RETURNING id",
                (progress.seq, progress.status, progress.round, progress.turn, progress.updated, game_id, epoch,
                 epoch, game_id, progress.seq))
            return await cur.fetchone() is not None

        if not await self._run(work, seconds=self.write_seconds):
            raise StorageError(f"game {game_id} is not running at command {progress.seq}: it was not ended")

    async def unfinished(self) -> list[str]:
        """The ids of running games, oldest first."""
        async def work(conn: Any) -> list[str]:
            cur = await conn.execute("SELECT id FROM games WHERE status = 'running' ORDER BY created, id")
            return [row[0] for row in await cur.fetchall()]

        return await self._run(work)

    async def running_games_of(self, client: str, open_since: float | None = None) -> int:
        """How many running games `client` (an address) has created, on every node; with `open_since`, an open
        game (nobody has acted in it) created before then is not counted: it has expired (`open_game_ttl`), and
        counting it held its creator's quota for ever (on one server an expired open game counts no more). Read
        through the index of running games by creator (`RUNNING_BY_CLIENT`); a damaged row is nobody's."""
        async def work(conn: Any) -> int:
            if open_since is None:
                cur = await conn.execute("SELECT count(*) FROM games WHERE status = 'running' AND "
                                         "game_client(meta) = %s", (client,))
            else:  # (`played`: a command of it is stored; each part a range of `RUNNING_BY_CLIENT`)
                cur = await conn.execute(
                    "SELECT count(*) FROM games AS g WHERE g.status = 'running' AND game_client(g.meta) = %s "
                    "AND (g.played = 1 OR (g.played = 0 AND g.created >= %s))", (client, open_since))
            row = await cur.fetchone()
            return int(row[0])

        return await self._run(work)

    async def summaries(self, game_ids: list[str] | None = None,
                        open_since: float | None = None) -> list[tuple[GameRecord, Progress]]:
        """The records (belts left out) and progress of running games (or of `game_ids`), newest first: what a
        node's lobby lists of the games other nodes own. With `open_since`, not the open games (nobody has acted
        in them) created before then: they have expired (`open_game_ttl`), and stay running in the store for good
        (as `running_games_of` leaves them out)."""
        if game_ids is not None:
            game_ids = [game_id for game_id in game_ids if _storable(game_id)]
        async def work(conn: Any) -> list[tuple[Any, ...]]:
            where = "g.status = 'running'" if game_ids is None else "g.id = ANY(%s)"
            params: tuple[Any, ...] = () if game_ids is None else (game_ids,)
            if open_since is not None:
                # the played games and the young ones, each read through an index of its own (`PLAYING`,
                # `games_running`): the rows of the open games that expired are never visited
                where += " AND (g.created >= %s OR g.played = 1)"
                params += (open_since,)
            cur = await conn.execute(
                "SELECT g.id, g.created, g.options, g.seed, g.settlers, g.meta, g.seq, g.status, g.round, g.turn, "
                "g.updated, c.seq, c.status, c.round, c.turn, c.at, g.asteroids FROM games AS g "
                "LEFT JOIN LATERAL (SELECT seq, status, round, turn, at FROM commands WHERE game = g.id "
                f"ORDER BY seq DESC LIMIT 1) AS c ON true WHERE {where} ORDER BY g.created DESC, g.id", params)
            rows: list[tuple[Any, ...]] = await cur.fetchall()
            return rows

        rows = await self._run(work, repeatable=True)
        if game_ids is not None:
            return [found for row in rows if (found := _summary_of(row)) is not None]
        # every running game, for the lobby, once a second a node: a row read before, unchanged (most are), is not
        # checked and parsed again, nor a damaged one logged again; the others are parsed off the event loop.
        # Parsing every row was 0.3 s of a node's CPU on its event loop at 10,651 games (the lobby's whole
        # building 0.55 s), at each building.
        self._listed = await made_again(rows, operator.itemgetter(0), self._listed, operator.eq, _summary_of)
        return [found for _, found in self._listed.values() if found is not None]


async def _in_transaction(conn: Any, work: Callable[[Any], Awaitable[T]], mode: str | None,
                          first: tuple[str, tuple[Any, ...]] | None) -> T:
    """`work(conn)`: on its own (`mode` None), in a transaction (`write`), or in a read-only repeatable-read one."""
    if first is not None:
        await conn.execute(*first)
    if mode is None:
        return await work(conn)
    async with conn.transaction():
        if mode == "repeatable":
            await conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        return await work(conn)


def _sever(conn: Any) -> None:
    """Shut a connection's socket down under whatever waits on it: psycopg's wait ends at once (the server is gone,
    as it says), where cancelling it would ask the server, which does not answer, to cancel the query first. The
    server, once it runs again, finds its client gone and rolls back what it had not committed."""
    with contextlib.suppress(Exception):
        fd = conn.pgconn.socket
        with socket.socket(fileno=os.dup(fd)) as other:  # the same socket: shut down for every descriptor of it
            other.shutdown(socket.SHUT_RDWR)


def _summary_of(row: tuple[Any, ...]) -> tuple[GameRecord, Progress] | None:
    """A game's record (its belt left out but its asteroids' count) and progress from a row of `summaries`; None,
    logged, when the row is damaged (listed by no node rather than breaking every node's lobby)."""
    belt = {"asteroids": [None] * row[16]}  # only the count is used by summaries
    try:
        record = read_record((row[0], row[1], None, row[2], row[3], row[4], row[5]), belt)
        progress = read_progress(row[0], row[6:11])
        if row[11] is not None:
            progress = current_progress(progress, read_progress(row[0], row[11:16], "commands[last]"))
    except DamagedRecord as damaged:
        log.error("%s", damaged)
        return None
    return record, progress


def _configure(idle_ms: int) -> Callable[[Any], Awaitable[None]]:
    """What each new connection is told first: end a transaction its client has left idle for `idle_ms` (a node cut
    off mid-transaction would hold the game's row until TCP noticed, hours later)."""
    async def configure(conn: Any) -> None:
        await conn.execute(f"SET idle_in_transaction_session_timeout = {int(idle_ms)}")

    return configure


def _columns(rows: list[tuple[Any, ...]], width: int) -> list[list[Any]]:
    """Rows as one list per column (for `unnest`)."""
    return [[row[i] for row in rows] for i in range(width)]


def redact_url(url: str) -> str:
    """The URL without its password, for messages and logs."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    who, where = rest.rsplit("@", 1)
    return f"{scheme}://{who.split(':', 1)[0]}@{where}"


async def _game_row(conn: Any, game_id: str) -> tuple[GameRecord, Progress] | None:
    cur = await conn.execute("SELECT id, created, belt, options, seed, settlers, meta, seq, status, round, turn, "
                             "updated FROM games WHERE id = %s", (game_id,))
    row = await cur.fetchone()
    if row is None:
        return None
    record = read_record(row)  # every value checked: a damaged row is DamagedRecord, for this game alone
    progress = read_progress(game_id, row[7:12])
    cur = await conn.execute("SELECT seq, status, round, turn, at FROM commands WHERE game = %s ORDER BY seq DESC "
                             "LIMIT 1", (game_id,))
    last = await cur.fetchone()
    if last is not None:
        progress = current_progress(progress, read_progress(game_id, last, "commands[last]"))
    return record, progress


async def _commands(conn: Any, game_id: str, after: int) -> list[Command]:
    cur = await conn.execute("SELECT seq, action, author, at FROM commands WHERE game = %s AND seq > %s ORDER BY seq",
                             (game_id, after))
    return [read_command(game_id, row) for row in await cur.fetchall()]
