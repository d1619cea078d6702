"""The storage interface: what a game is on disk, and the operations the server needs.

A game is stored as its record (belt, options, seed, number of settlers and the server's metadata, written once),
an append-only log of the accepted commands, each with the progress it leads to (sequence number, status, round,
turn), and its latest snapshot (the engine's `Game.to_json()`), taken now and then so that loading a long game
does not replay it from the start. The log alone is the truth: `Game.replay` of the record and the log gives the
game back; a snapshot only saves time.

Every method is a coroutine so that an implementation over a network fits the same interface; an implementation
must never block the event loop.
"""

from __future__ import annotations

import logging
import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

log = logging.getLogger(__name__)

JsonObject = dict[str, Any]
"""A decoded JSON object."""


class StorageError(Exception):
    """The store failed (disk full, database damaged, …). `code` is stable; the message is for operators."""

    code = "storage_failed"


class Fenced(StorageError):
    """A command of a game that another node has claimed since (see `GameStore.claim`): this node no longer owns
    the game and must let it go."""

    code = "not_owner"


class DamagedRecord(Exception):
    """A stored game whose rows hold a value the store never writes (a command that is not JSON, a `created`
    that is not a number, …): that game alone cannot be read, the store and every other game are fine. The server
    lists it as damaged with `reason`, which names the row and field (`commands[12].action: not JSON`)."""

    code = "game_damaged"

    def __init__(self, game_id: str, reason: str) -> None:
        super().__init__(f"game {game_id} cannot be read: {reason}")
        self.game_id = game_id
        self.reason = reason


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What never changes about a game: everything `Game.new` needs, and the server's own metadata."""

    id: str
    created: float
    """Seconds since the epoch."""
    belt: JsonObject
    """The belt as `maps.belt_to_json` writes it."""
    options: JsonObject
    """`Options.to_json()`."""
    seed: int
    settlers: int
    meta: JsonObject
    """The server's data about the game (seats, timer, creator); opaque to the store."""


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a game is: stored atomically with the command that took it there."""

    seq: int
    """The number of accepted commands (the seq of the last one; 0 before any)."""
    status: str
    """`running`, `won` or `lost` (the engine's status), or `abandoned` (a player ended it; see `GameStore.end`)."""
    round: int
    turn: str | None
    updated: float
    """When the game got there (seconds since the epoch): the time of its last command, or of its creation."""


ENDED_WITHOUT_COMMAND = ("abandoned",)
"""The statuses a game reaches without a command of its own (`GameStore.end`)."""


def current_progress(row: Progress, last: Progress | None) -> Progress:
    """Where a game is, from its `games` row (written at creation and when the game ends) and its last command.

    The last command says where a running game is; the row wins when it is ahead of it, or when it says the game
    ended at that command (a game abandoned after its last command ends in its row alone).
    """
    if last is None or last.seq < row.seq or (last.seq == row.seq and row.status != "running"):
        return row
    return last


@dataclass(frozen=True, slots=True)
class Command:
    """One accepted command of the log."""

    seq: int
    """1, 2, 3, … without gaps within a game."""
    action: JsonObject
    """The engine's `action.to_json()`, exactly as applied."""
    by: JsonObject
    """Who sent it: `{"seat": 2}`, `{"seat": 2, "auto": "timer"}` or `{"seat": 2, "auto": "bot"}`."""
    at: float
    """Seconds since the epoch."""

    def to_json(self) -> JsonObject:
        """The command as a JSON object."""
        return {"seq": self.seq, "action": self.action, "by": self.by, "at": self.at}


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The whole game (`Game.to_json()`) after command `seq`."""

    seq: int
    state: JsonObject


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A game as loaded: its record, progress, latest snapshot and the commands after that snapshot."""

    record: GameRecord
    progress: Progress
    snapshot: Snapshot | None
    commands: list[Command]
    """The commands after the snapshot (all of them without a snapshot), in order."""


class GameStore(ABC):
    """Durable storage of games. `append` returns only once the command is durable."""

    @abstractmethod
    async def open(self) -> None:
        """Connect, create the schema if needed; called once before anything else."""

    @abstractmethod
    async def close(self) -> None:
        """Finish pending writes and release resources."""

    @abstractmethod
    async def create(self, record: GameRecord, progress: Progress) -> None:
        """Store a new game; durable when it returns. Raises StorageError (also for an id already taken)."""

    @abstractmethod
    async def append(self, game_id: str, command: Command, progress: Progress,
                     snapshot: Snapshot | None = None) -> None:
        """Append one command and the progress it leads to (and maybe a snapshot), atomically and durably.

        The progress's `updated` is the command's `at`. Raises StorageError when the command's seq does not
        follow the last one stored (the log has no gaps and nothing in it is rewritten).
        """

    @abstractmethod
    async def load(self, game_id: str) -> StoredGame | None:
        """The game as needed to rebuild it, or None when there is no such game."""

    @abstractmethod
    async def log(self, game_id: str) -> tuple[GameRecord, Progress, list[Command]] | None:
        """The record, progress and the whole command log, or None when there is no such game."""

    @abstractmethod
    async def end(self, game_id: str, progress: Progress) -> None:
        """End a running game without a command (`progress.status` is `abandoned`), durably: its status from then
        on, also after a restart; its log is kept as it is, so its replay still works.

        Raises StorageError when there is no such running game or its last command is not `progress.seq` (a
        command stored meanwhile), and nothing changes.
        """

    @abstractmethod
    async def unfinished(self) -> list[str]:
        """The ids of games still running, oldest first (to resume them after a restart)."""

    async def claim(self, game_id: str, epoch: int) -> bool:
        """Take the game's log over with `epoch` (the fence of a cluster): from then on, appends to the game made
        through a store that claimed an older epoch raise `Fenced`. False, and nothing changes, when a newer epoch
        holds it already.

        A store that only one server uses (SQLite: its lock file sees to that) needs no fence: it accepts.
        """
        return True

    def release(self, game_id: str) -> None:  # noqa: B027 - a store without a fence has nothing to forget
        """Forget the epoch of a game this store no longer writes (see `claim`)."""


# ----- reading rows back: every value checked, so that one damaged row damages one game -----
STATUSES = frozenset(("running", "won", "lost", "abandoned"))
"""The statuses a store writes."""


def json_object(text: object, game_id: str, where: str) -> JsonObject:
    """A JSON object column, decoded; DamagedRecord naming `where` when it is not one."""
    try:
        value = orjson.loads(text)  # type: ignore[arg-type]
    except (orjson.JSONDecodeError, TypeError) as bad:
        raise DamagedRecord(game_id, f"{where}: not JSON ({str(bad)[:120]})") from None
    if not isinstance(value, dict):
        raise DamagedRecord(game_id, f"{where}: not a JSON object")
    return value


def _whole(value: object, game_id: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DamagedRecord(game_id, f"{where}: not a whole number ({str(value)[:40]!r})")
    return value


def _time(value: object, game_id: str, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise DamagedRecord(game_id, f"{where}: not a number of seconds ({str(value)[:40]!r})")
    return float(value)


def _turn(value: object, game_id: str, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise DamagedRecord(game_id, f"{where}: not a settler's id ({str(value)[:40]!r})")
    return value


def read_record(row: Sequence[Any], belt: JsonObject | None = None) -> GameRecord:
    """A `GameRecord` from (id, created, belt JSON, options JSON, seed, settlers, meta JSON), each value checked
    (DamagedRecord naming the field); `belt` given decoded stands for the belt's column (a summary's)."""
    game_id = str(row[0])
    return GameRecord(game_id, _time(row[1], game_id, "created"),
                      belt if belt is not None else json_object(row[2], game_id, "belt"),
                      json_object(row[3], game_id, "options"), _whole(row[4], game_id, "seed"),
                      _whole(row[5], game_id, "settlers"), json_object(row[6], game_id, "meta"))


def read_progress(game_id: str, row: Sequence[Any], where: str = "progress") -> Progress:
    """A `Progress` from (seq, status, round, turn, updated), each value checked."""
    if row[1] not in STATUSES:
        raise DamagedRecord(game_id, f"{where}.status: not a game's status ({str(row[1])[:40]!r})")
    return Progress(_whole(row[0], game_id, f"{where}.seq"), str(row[1]), _whole(row[2], game_id, f"{where}.round"),
                    _turn(row[3], game_id, f"{where}.turn"), _time(row[4], game_id, f"{where}.updated"))


def read_command(game_id: str, row: Sequence[Any]) -> Command:
    """A `Command` from (seq, action JSON, author JSON, at), each value checked."""
    seq = _whole(row[0], game_id, "commands[?].seq")
    where = f"commands[{seq}]"
    return Command(seq, json_object(row[1], game_id, f"{where}.action"), json_object(row[2], game_id, f"{where}.by"),
                   _time(row[3], game_id, f"{where}.at"))


def read_snapshot(game_id: str, row: Sequence[Any]) -> Snapshot | None:
    """A `Snapshot` from (seq, state JSON); None, logged, when it cannot be read: a snapshot only saves time, the
    log rebuilds the game without it (the caller then reads every command)."""
    try:
        return Snapshot(_whole(row[0], game_id, "snapshot.seq"), json_object(row[1], game_id, "snapshot.state"))
    except DamagedRecord as damaged:
        log.warning("%s; the game is rebuilt from its log instead", damaged)
        return None
