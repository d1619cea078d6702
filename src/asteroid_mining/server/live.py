"""`LiveGame`: the one owner of a game being played, and the hub of its connections.

Each live game has one owner task. Commands from its connections, the turn timer and bot seats all go through
it, one at a time: the owner applies the action to the engine, appends it to the store and waits until it is
durable, and only then broadcasts the update (the action, its events and the diff of the view) to every
connection. A refused or malformed command changes nothing and is answered to its sender only.

The turn clock (timer and bots) runs while at least one client is connected; it restarts in full when the first
client comes back, so nobody loses a turn to an empty room or a server restart.

How a game is shared with other servers is a `Replication` given to the game when it is made: the hooks the game
calls where sharing matters (who plays a command, what is told to others once it is stored, what a lost claim on
the store means, who is watching). A single server's is `Replication` itself: the game is played here and its
store is its only copy. A cluster node's (`cluster.replication.ClusterReplication`) publishes every stored command
to the other nodes, relays commands to the node that owns the game, and follows the owner's commands otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import orjson

from ..rules import Action, Event, Game, Refused, Wait
from ..storage import (
    Command,
    DamagedRecord,
    Fenced,
    GameRecord,
    GameStore,
    Progress,
    Snapshot,
    StorageError,
    StoredGame,
)
from .action_schemas import ActBase
from .bots import BotPlayer
from .choices import ChoiceChange, ChoiceTracker, choices_json
from .config import Settings
from .diff import ViewChange, ViewTracker
from .messages import MessageError, dumps, error, frame, refused, to_action
from .meta import GameMeta
from .outbox import Message, Outbox
from .rebuild import rebuild
from .seats import Seat, seat_for_token

log = logging.getLogger(__name__)

SYNC_BUFFER_BYTES = 1024 * 1024
"""The most text of recent updates a game keeps for `sync` (besides at most `sync_buffer` updates): a `sync` from
further back is answered with the whole state, so that no answer is longer than this (or than the state)."""

STORE_REFUSED_SECONDS = 5.0
"""After the store has refused two of a game's writes in a row (a full disk), its commands are refused at once,
not played, for this long: each one tried was played, refused by the store and the game read again from it, 40 ms
of CPU on a large belt, so one client acting at its rate kept half a core busy while the disk was full."""

STORED_ROW_BYTES = 64
"""What a stored command's row takes besides its action's and author's JSON (its seq, time and progress), as
charged to its game's creator (`stored_bytes`)."""

REFS_KEPT = 1_024
"""The refs of a game's latest commands remembered (with the seq each was played as) to recognise a command sent
again: a client resends only what it sent last before its connection dropped."""


@dataclass(eq=False, slots=True)
class Connection:
    """One WebSocket client of a game: its seat (None for a spectator) and what waits to be sent to it."""

    seat: Seat | None
    outbox: Outbox
    live: LiveGame | None = field(default=None)
    choices: bool = True
    """Whether the client takes its settlers' choices (`?choices=false`: a client that judges its moves itself
    gets none, and costs the server nothing for them)."""

    @property
    def chooser(self) -> Seat | None:
        """The seat whose settlers' choices this connection is sent (None: it is sent none)."""
        return self.seat if self.choices else None


async def commands_to_remember(store: GameStore, stored: StoredGame, after: int) -> list[Command]:
    """The commands after seq `after` of a game read from `store` (`stored`) whose refs its live game must learn,
    at most the last `REFS_KEPT`: those after its snapshot, and those played up to the snapshot (read from the
    log; a client may send again a command that was played just before a snapshot was taken, or the command the
    snapshot was taken at). A log that cannot be read leaves those out, with a warning: the refs only guard a
    resend, and the game plays on without them."""
    commands = [command for command in stored.commands if command.seq > after]
    snapshot = stored.snapshot
    if snapshot is None or snapshot.seq <= after or len(commands) >= REFS_KEPT:
        return commands[-REFS_KEPT:]
    try:
        found = await store.log(stored.record.id)
    except (StorageError, DamagedRecord):
        log.warning("game %s: the refs played before its snapshot could not be read", stored.record.id,
                    exc_info=True)
        return commands
    if found is None:
        return commands
    before = [command for command in found[2] if after < command.seq <= snapshot.seq]
    return (before + commands)[-REFS_KEPT:]


def stored_bytes(command: Command, snapshot: Snapshot | None) -> int:
    """The bytes a command (and the snapshot stored with it) adds to the store, as its game's creator is charged
    them (`LiveGame.charge_stored`)."""
    size = len(orjson.dumps(command.action)) + len(orjson.dumps(command.by)) + STORED_ROW_BYTES
    return size + (len(orjson.dumps(snapshot.state)) if snapshot is not None else 0)


def progress_of(game: Game, seq: int, at: float) -> Progress:
    """Where `game` is after command `seq`, played at `at` (seconds since the epoch)."""
    return Progress(seq, game.status, game.round, game.turn, at)


BYTES_PER_ASTEROID = 2_048
BYTES_PER_LINK = 160
BYTES_PER_GATE_PAIR = 2_048
BYTES_PER_GAME = 64 * 1024
BYTES_PER_ID_CHARACTER = 8
"""Bytes a character of an asteroid's or a gate's id costs as its own (named in the view, the choices, the
engine)."""
BYTES_PER_LINK_CHARACTER = 4
"""Bytes a character of the ids a link joins costs (each asteroid's neighbours are named in its view)."""
"""What a live game holds in the server's memory, by what its belt holds (`belt_memory`): measured as the growth
of the process's RSS over ten to twenty games, each created and played once, on belts of every shape (2,500
asteroids alone, with 50,000 links, with 1,000 gate pairs, with ids of 64 characters; the `tutorial` to `large`
presets), each figure rounded up (docs/server.md, `max_live_bytes`). A link was first counted at 64 bytes, ids not
at all: 50,000 links of short ids held 179 bytes each, 37,500 of 24-character ids 330 (the whole game 18.3 MB,
counted 9.1)."""


def belt_memory(belt: Any) -> int:
    """The estimated bytes a live game of the belt document `belt` holds in memory, before its recent updates
    (`LiveGame.memory_bytes`): counted, not measured, so that a game can be refused before it is built. Long ids
    cost more than short ones (each is held as text in several places), so they are counted by their characters."""
    if not isinstance(belt, dict):
        return BYTES_PER_GAME
    sections = [items if isinstance(items, list) else []
                for items in (belt.get("asteroids"), belt.get("links"), belt.get("gates"))]
    asteroids, links, gates = sections
    names = sum(len(item[key]) for item in (*asteroids, *gates) if isinstance(item, dict)
                for key in ("id", "first", "second") if isinstance(item.get(key), str))
    try:  # a stored or checked belt's links are pairs of ids: counted at C speed (50,000 links in a few ms)
        ends = sum(map(len, chain.from_iterable(links)))
    except TypeError:
        ends = sum(len(end) for link in links if isinstance(link, list) for end in link if isinstance(end, str))
    return (BYTES_PER_GAME + BYTES_PER_ASTEROID * len(asteroids) + BYTES_PER_LINK * len(links)
            + BYTES_PER_GATE_PAIR * len(gates) + BYTES_PER_ID_CHARACTER * names + BYTES_PER_LINK_CHARACTER * ends)


@dataclass(slots=True)
class Prepared:
    """A command's `update` as text, with what it changed in the view and the choices, before it is stored."""

    text: str
    view: ViewChange
    choices: ChoiceChange


class Replication:
    """How a live game is shared with other servers: the hooks `LiveGame` calls. This one is a single server's: the
    game is played here, its store is its only copy, and nobody elsewhere is told anything.

    One object serves one game (`attach` is called once, by the game it is given to); a cluster node gives each
    of its games a `ClusterReplication`, which keeps the game's part in the cluster (owner or follower).
    """

    _live: weakref.ref[LiveGame]

    def attach(self, live: LiveGame) -> None:
        """Serve `live` (called by the game as it is made). Kept by a weak reference: the game holds its
        replication, and a strong one back would make every game a cycle that only the cyclic collector frees,
        which the server's thresholds (`main.GC_THRESHOLDS`) run rarely: a finished game loaded for each request
        and let go after it once stayed in memory, 3.7 MB each on a large belt, until a full collection."""
        self._live = weakref.ref(live)

    @property
    def live(self) -> LiveGame:
        """The game served (alive as long as anything uses this replication through it)."""
        live = self._live()
        if live is None:
            raise RuntimeError("the game of this replication has been let go")
        return live

    @property
    def plays_here(self) -> bool:
        """Whether this server plays the game: applies and stores its commands, runs its clock and bot seats."""
        return True

    def deadline(self, own: float | None) -> float | None:
        """The deadline told to clients, given this server's own (None when its clock does not run here)."""
        return own

    def watched_elsewhere(self) -> bool:
        """Whether clients connected to other servers watch the game (its clock runs for them too)."""
        return False

    async def relay(self, action: Action, by: dict[str, Any], ref: str | int | None,
                    sender: Connection | None) -> None:
        """Hand a command to the server that plays the game (only called when `plays_here` is False)."""
        raise AssertionError("a game played here relays nothing")

    def may_end(self) -> None:
        """Raise (a ServerError for the request) when the game may not be ended from this server."""

    def ended(self, seat_number: int) -> None:
        """The game has been abandoned by `seat_number`, as stored: tell whoever else must know."""

    def announced(self, seq: int, command: Command, ref: str | int | None) -> None:
        """Command `seq` is stored and its update is going to this server's clients: tell whoever else must
        know."""

    def joined(self, conn: Connection) -> None:
        """A connection has joined the game here."""

    def left(self, conn: Connection) -> None:
        """A connection has left the game here."""

    async def reloaded(self) -> None:
        """The game has gone back to what the store holds (`LiveGame.broken` when even that failed)."""

    async def lost(self) -> None:
        """The store no longer takes this server's commands of the game (another server claimed it, see
        `GameStore.claim`): a single server goes back to what the store holds."""
        await self.live.reload()

    def sync(self, conn: Connection, after: int) -> None:
        """Answer a client's `sync` (see `LiveGame.answer_sync`)."""
        self.live.answer_sync(conn, after)


class LiveGame:
    """A game being played: its engine, seats, connections, recent updates and owner task."""

    belt_bytes = 0
    """The bytes of its belt document as stored, for a game created here (its creator's address is charged them,
    `lobby.create_charged`); 0 for a game loaded from the store."""
    charge_stored: Callable[[str, float], None] | None = None
    """Charges the bytes each stored command adds to the store (`stored_bytes`) to the game's creator's address, as
    its new games' belts are (`GameHub.charge_stored`): a game stays in the store for good, and its commands grew
    it twenty times faster than its creator could create games."""

    def __init__(self, record: GameRecord, meta: GameMeta, game: Game, seq: int, settings: Settings,
                 store: GameStore, players: dict[int, BotPlayer], replication: Replication | None = None) -> None:
        self.id = record.id
        self.created = record.created  # the record itself is not kept: its belt document is big and unused here
        self.meta = meta
        self.seats = list(meta.seats)
        self.turn_seconds = meta.turn_seconds
        self.rules = meta.rules
        self.belt_name = meta.belt_name
        self.client = meta.client
        self.asteroid_count = len(record.belt.get("asteroids", ()))
        self.belt_memory = belt_memory(record.belt)
        """The estimated bytes the game holds for its belt (`belt_memory`), counted against `max_live_bytes`."""
        self.game = game
        self.seq = seq
        self.tracker = ViewTracker(game)
        self.choices = ChoiceTracker(game)
        self.connections: set[Connection] = set()
        self.broken = False
        self.moved = False
        """True once another server has taken the game over: its clients are told to reconnect."""
        self.abandoned = False
        """True once a player has abandoned the game (`abandon`): it is over, as won or lost games are."""
        self._refused_writes = 0
        self._refused_until = 0.0
        """While the store refuses the game's writes (`STORE_REFUSED_SECONDS`), until when none is tried."""
        self._settings = settings
        self._store = store
        self._players = players
        self._owner_of = {sid: seat for seat in self.seats for sid in seat.settlers}
        self._recent: deque[tuple[int, str]] = deque(maxlen=settings.sync_buffer)
        """The last updates' texts, by seq, for `sync` (texts only: a message keeps its frame once sent), at most
        `SYNC_BUFFER_BYTES` of text in all (`_recent_size`)."""
        self._recent_size = 0
        self.refs: OrderedDict[tuple[int, str | int], int] = OrderedDict()
        """(seat number, ref) -> the seq the command was played as, for the latest `REFS_KEPT` commands sent with a
        ref: a command sent again with its ref is acknowledged (`ack`), not played twice."""
        self._inbox: deque[tuple[Connection, Action, str | int | None]] = deque()
        self._ending: deque[tuple[Seat, asyncio.Future[bool]]] = deque()
        self._wake = asyncio.Event()
        self._turn_started = time.monotonic()
        self._turn_started_wall = time.time()
        self._task: asyncio.Task[None] | None = None
        self._busy = False
        self.active_at = time.time()
        """When (seconds since the epoch) the game was last played, joined, left or loaded: a running game nobody
        is connected to is let go `idle_game_seconds` after it (`GameHub.rest_idle`)."""
        self.passing = False
        """True while the game is loaded from the store only for a request (it had been let go while idle, and
        nobody has joined it since): let go again once the request is done (`GameHub.release`)."""
        self.replication = replication or Replication()
        """How the game is shared with other servers (see `Replication`)."""
        self.replication.attach(self)
        self._view_text: orjson.Fragment | None = None
        """The whole view's JSON as of `seq` (`state_frame`), made once for every connection that joins."""
        self._state_memo: tuple[bytes, Message] | None = None
        """The last `state` message made (`state_frame`), with what it was made for (all but the view)."""
        self._memo_bytes = 0
        """The bytes `_view_text` and `_state_memo` hold (their text, and the frame a send keeps in the message)."""

    # ----- what others read -----
    @property
    def quiet(self) -> bool:
        """Whether the owner has nothing in hand or waiting (no command, no end): the game may be let go."""
        return not self._busy and not self._inbox and not self._ending

    @property
    def running(self) -> bool:
        """True until the game is won, lost (as acknowledged) or abandoned."""
        return not self.abandoned and bool(self.tracker.top["status"] == "running")

    @property
    def status(self) -> str:
        """`open` (no action yet), `running`, `won`, `lost` or `abandoned`, as acknowledged to clients."""
        if self.abandoned:
            return "abandoned"
        status = str(self.tracker.top["status"])
        return "open" if status == "running" and self.seq == 0 else status

    @property
    def memory_bytes(self) -> int:
        """The estimated bytes the game holds in memory: its belt's (`belt_memory`) and its recent updates' text,
        kept for `sync` (at most `SYNC_BUFFER_BYTES`)."""
        return self.belt_memory + self._recent_size + self._memo_bytes

    @property
    def deadline(self) -> float | None:
        """When (seconds since the epoch) the server plays the current turn itself; None when it will not."""
        delay = self._delay()
        return self.replication.deadline(None if delay is None else round(self._turn_started_wall + delay, 3))

    def seat_for(self, token: str) -> Seat | None:
        """The seat this token plays, or None."""
        return seat_for_token(self.seats, token)

    def seats_public(self) -> list[dict[str, Any]]:
        """The seats as anyone may see them, with how many connections each has."""
        counts: dict[int, int] = {}
        for conn in self.connections:
            if conn.seat is not None:
                counts[conn.seat.number] = counts.get(conn.seat.number, 0) + 1
        return [{**seat.public(), "connected": counts.get(seat.number, 0)} for seat in self.seats]

    def summary(self) -> dict[str, Any]:
        """The game as the lobby lists it (no tokens)."""
        top = self.tracker.top
        return {
            "id": self.id, "status": self.status, "seq": self.seq, "round": top["round"], "turn": top["turn"],
            "rules": self.rules, "belt": self.belt_name, "asteroids": self.asteroid_count,
            "turn_seconds": self.turn_seconds, "created": self.created, "seats": self.seats_public(),
        }

    def detail(self) -> dict[str, Any]:
        """The summary with the public view (R17) after command `seq`."""
        return {**self.summary(), "state": self.tracker.view()}

    # ----- refs: one ref, one effect -----
    def remember(self, commands: list[Command]) -> None:
        """Learn the refs of commands read from the store (each kept in its `by`), so that a command sent again
        after a restart is recognised too."""
        for command in commands:
            ref = command.by.get("ref")
            if ref is not None and "seat" in command.by and "auto" not in command.by:
                self._remember(int(command.by["seat"]), ref, command.seq)

    def _remember(self, seat: int, ref: str | int, seq: int) -> None:
        self.refs[(seat, ref)] = seq
        if len(self.refs) > REFS_KEPT:
            self.refs.popitem(last=False)

    # ----- the owner's life -----
    def start(self) -> None:
        """Start the owner task."""
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=f"game {self.id}")

    async def stop(self) -> None:
        """Stop the owner task (after the command in hand) and close every connection's outbox."""
        task, self._task = self._task, None
        if task is not None:
            # cancelled again until it has ended: a library the owner awaits may swallow a cancellation (the Redis
            # client does, on a cluster node: a command relayed to the game's new owner as the old one lets the
            # game go), and the owner went on waiting for ever, with this stop, and the game's clients were never
            # closed to reconnect
            while not task.done():
                task.cancel()
                await asyncio.wait({task}, timeout=0.1)
            with contextlib.suppress(asyncio.CancelledError):
                await task
        while self._ending:  # an abandon the owner will not get to: its request hears why
            _, done = self._ending.popleft()
            if not done.done():
                done.set_exception(StorageError(f"game {self.id} was stopped before it could be ended"))
        for conn in list(self.connections):
            conn.outbox.close()

    async def _run(self) -> None:
        while True:
            try:
                await self._step()
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug must not silence the game: log it, and go on with the next command
                log.exception("game %s: the owner failed", self.id)
                await asyncio.sleep(0.05)

    async def _step(self) -> None:
        self._busy = True  # (False only while the owner waits below: then it may be let go, `quiet`)
        if self._too_long():
            await self._end_too_long()
            return
        if self._ending:
            seat, done = self._ending.popleft()
            try:
                ended = await self._end(seat)
            except BaseException as failure:
                stopped = isinstance(failure, asyncio.CancelledError)
                if not done.done():  # the request hears a storage failure, also when the server stops meanwhile
                    done.set_exception(StorageError(f"game {self.id} was stopped") if stopped else failure)
                if stopped:
                    raise
            else:
                if not done.done():
                    done.set_result(ended)
            return
        if self._inbox:
            conn, action, ref = self._inbox.popleft()
            await self.commit(action, {"seat": conn.seat.number if conn.seat else 0}, ref, conn)
            return
        due = self._due()
        now = time.monotonic()
        if due is not None and now >= due:
            await self._auto()
            return
        self._wake.clear()
        self._busy = False
        # `asyncio.timeout`, not `wait_for`: Python 3.11's `wait_for` swallows a cancellation that comes in the very
        # turn of the loop the event is set in, and the owner went on waiting for ever, with `stop` waiting for it
        # (a cluster node that had lost a game while stalled kept its clients, which never heard to reconnect)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(None if due is None else due - now):
                await self._wake.wait()

    def _delay(self) -> float | None:
        """How long the current turn may last before the server plays it (bot or timer); None: no limit."""
        if not self.watched() or not self.running or self.broken or not self.replication.plays_here:
            return None  # (the clock and the bots run only where the game is played)
        turn = self.game.turn
        seat = self._owner_of.get(turn) if turn else None
        if seat is None:
            return None
        if seat.kind == "bot":
            return self._settings.bot_delay
        stand_in = self.meta.stand_in  # a silent seat is played by a bot after a while, or waits (the timer)
        return self.turn_seconds if stand_in is None else stand_in.after

    def watched(self) -> bool:
        """Somebody is connected to the game (here or, as its replication knows, elsewhere): its clock runs."""
        return bool(self.connections) or self.replication.watched_elsewhere()

    def _due(self) -> float | None:
        delay = self._delay()
        return None if delay is None else self._turn_started + delay

    def restart_clock(self) -> None:
        """The current turn starts now (its time, bot or timer, counts from now)."""
        self._turn_started = time.monotonic()
        self._turn_started_wall = time.time()

    async def _auto(self) -> None:
        """The turn's time is up: a bot seat's bot plays it, or the game's stand-in a silent seat's; else the
        settler waits."""
        settler = self.game.turn
        assert settler is not None
        seat = self._owner_of[settler]
        player = self._players.get(seat.number)  # a person's seat has one only with a stand-in
        if player is not None:
            action = await asyncio.to_thread(player, self.game, settler)
            await self.commit(action, {"seat": seat.number, "auto": "bot"})
        else:
            await self.commit(Wait(settler), {"seat": seat.number, "auto": "timer"})

    async def commit(self, action: Action, by: dict[str, Any], ref: str | int | None = None,
                     sender: Connection | None = None) -> None:
        """Apply, make durable, then broadcast; a refusal or a storage failure goes to the sender only. Where the
        game is not played, the command goes to where it is (`Replication.relay`)."""
        if not self.replication.plays_here:
            await self.replication.relay(action, by, ref, sender)
            return
        if self.broken:
            # the store may answer again by now (it restarted, or a write of it was cut at its deadline while it
            # stalled): reread the game first, and play on when that works
            await self.reload()
        if self.broken:
            if sender is not None:
                sender.outbox.put(error("storage_failed", "this game cannot be saved at the moment", ref=ref))
            return
        if self.abandoned:
            if sender is not None:
                sender.outbox.put(error("game_abandoned", "this game was abandoned: it is over", ref=ref))
            return
        if ref is not None and sender is not None and "auto" not in by:
            played = self.refs.get((int(by["seat"]), ref))
            if played is not None:  # sent again after its answer was lost: it was played once, as `played`
                sender.outbox.put(dumps({"type": "ack", "ref": ref, "seq": played}))
                return
            by = {**by, "ref": ref}  # stored with the command: recognised after a restart too (`remember`)
        if time.monotonic() < self._refused_until:  # the store refuses its writes: none is tried for a while
            if sender is not None:
                sender.outbox.put(error("storage_failed", "the server could not save this action: it was not "
                                        "played", ref=ref))
            else:
                self.restart_clock()  # a bot's or the timer's turn is tried again after its delay
            return
        game = self.game
        try:
            events = game.apply(action)
        except Refused as no:
            if sender is not None:
                sender.outbox.put(refused(no.refusal, ref))
            return
        seq = self.seq + 1
        command = Command(seq, action.to_json(), by, time.time())
        prepared: Prepared | None = None
        try:
            # worked out now, while what the command changed is still in the processor's caches (by the time the
            # store has it, other games' work has pushed it out), and remembered only once it is stored
            prepared = self.prepare(seq, command, events, ref)
        except Exception:  # played all the same: once stored, everyone is told the whole state (below)
            log.exception("game %s: the update of command %d could not be made", self.id, seq)
        ended = game.status != "running"
        snapshot = Snapshot(seq, game.to_json()) if ended or seq % self._settings.snapshot_every == 0 else None
        try:
            await self._store.append(self.id, command, progress_of(game, seq, command.at), snapshot)
            self._refused_writes = 0
            if self.charge_stored is not None:
                self.charge_stored(self.client, stored_bytes(command, snapshot))
        except Fenced:
            log.warning("game %s: another server owns it now; command %d was not played", self.id, seq)
            if sender is not None:
                sender.outbox.put(error("not_owner", "another server plays this game now: reconnect", ref=ref))
            await self.lost()
            return
        except StorageError as failure:
            # one line: the store has logged why (a full disk would have every refused command write a traceback)
            log.error("game %s: command %d could not be stored (%s); going back to what the store holds", self.id,
                      seq, failure)
            self._refused_writes += 1
            if self._refused_writes >= 2:  # twice in a row: a store that refuses, not a passing failure
                self._refused_until = time.monotonic() + STORE_REFUSED_SECONDS
            await self.reload()
            if sender is not None:
                # A write whose answer was lost (the database stopped between its commit and its reply) may be in
                # the store after all: then the game reread has it, and its ref, and the sender hears that it was
                # played, as a resend of it would (a `storage_failed` would have it sent again, to be refused or
                # played twice).
                played = None if ref is None else self.refs.get((int(by["seat"]), ref))
                if played is not None:
                    sender.outbox.put(dumps({"type": "ack", "ref": ref, "seq": played}))
                elif self.moved:
                    # Not even reread (the store does not answer: a write cut at its deadline): whether it was
                    # stored is unknown, and the game has been let go, its clients closed to reconnect. No answer,
                    # as for a lost one: the client sends it again with its ref, acknowledged if it was stored.
                    pass
                else:
                    sender.outbox.put(error("storage_failed", "the server could not save this action: it was not "
                                            "played", ref=ref))
            return
        if prepared is None:  # stored but not announced: go by the store, and tell everyone the whole state
            await self.reload()
            return
        try:
            message = self.announce(seq, command, ref, prepared)
        except Exception:  # the same
            log.exception("game %s: command %d was stored but could not be announced", self.id, seq)
            await self.reload()
            return
        self.deliver(message, prepared)

    def prepare(self, seq: int, command: Command, events: list[Event], ref: str | int | None) -> Prepared:
        """The `update` of command `seq`, just applied, and the choices it changed, not yet remembered by the
        view and choice trackers (what they give joining clients stays as of `self.seq` until `announce`). The
        next turn's clock starts."""
        happened = [event.to_json() for event in events]
        view = self.tracker.prepare()
        choices = self.choices.prepare(view.touched)
        self.restart_clock()
        update: dict[str, Any] = {"type": "update", "seq": seq, "action": command.action, "by": command.by}
        if ref is not None:
            update["ref"] = ref
        update.update(events=happened, diff=view.diff, deadline=self.deadline)
        return Prepared(dumps(update), view, choices)

    def announce(self, seq: int, command: Command, ref: str | int | None, prepared: Prepared) -> Message:
        """Take command `seq` as acknowledged (stored): the trackers remember it, and its `update` message
        (from `prepare`) is returned, its text kept for `sync`."""
        self.tracker.commit(prepared.view)
        self.choices.commit(prepared.choices)
        self.seq = seq
        self._forget_state()
        self.active_at = time.time()
        ref = command.by.get("ref")
        if ref is not None and "seat" in command.by and "auto" not in command.by:
            self._remember(int(command.by["seat"]), ref, seq)
        message = frame(prepared.text)
        self._keep(seq, prepared.text)
        self.replication.announced(seq, command, ref)
        return message

    def _keep(self, seq: int, text: str) -> None:
        """Keep an update's text for `sync`: the oldest kept go while there are too many, or too much text."""
        recent = self._recent
        if len(recent) == recent.maxlen:
            self._recent_size -= len(recent[0][1])
        recent.append((seq, text))
        self._recent_size += len(text)
        while self._recent_size > SYNC_BUFFER_BYTES and len(recent) > 1:
            self._recent_size -= len(recent.popleft()[1])

    def deliver(self, message: Message, prepared: Prepared) -> None:
        """Send an update to every connection, in one pass: `message`, or to a connection whose seat's settlers'
        choices changed, that seat's own update (`_own_updates`)."""
        own = self._own_updates(prepared.text, prepared.choices.changed)
        if not own:
            for conn in self.connections:
                conn.outbox.put_message(message)
            return
        for conn in self.connections:
            seat = conn.chooser
            conn.outbox.put_message(message if seat is None else own.get(seat.number, message))

    def _own_updates(self, text: str, changed: dict[str, str]) -> dict[int, Message]:
        """By seat number, the update of each seat whose settlers' choices `changed`: the update's `text` with
        those choices added (made once a seat, not encoded again). Only watched settlers' choices change, and
        each belongs to a seat."""
        mine: dict[int, dict[str, str]] = {}
        for sid, choices in changed.items():
            mine.setdefault(self._owner_of[sid].number, {})[sid] = choices
        return {number: frame(_with_choices(text, choices)) for number, choices in mine.items()}

    async def abandon(self, seat: Seat) -> bool:
        """End the game as `abandoned` for a human `seat` (through the owner, after the command in hand): stored
        first, then every client gets an `ended` message and its connection is closed. False when the game is
        already over; StorageError (nothing changed) when the store does not take it; whatever
        `Replication.may_end` raises when it may not be ended from this server."""
        self.replication.may_end()
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._ending.append((seat, done))
        self._wake.set()
        ended = await done
        if ended:
            self.replication.ended(seat.number)
        return ended

    async def _end(self, seat: Seat) -> bool:
        if not self.running:
            return False
        if self.broken:
            raise StorageError(f"game {self.id} cannot be saved at the moment")
        await self._store_end(seat.number)
        log.info("game %s abandoned by seat %d at command %d", self.id, seat.number, self.seq)
        return True

    async def _store_end(self, seat_number: int) -> None:
        """Store the game as abandoned (by `seat_number`, 0: the server), then end it here (`finish`)."""
        game = self.game
        progress = Progress(self.seq, "abandoned", game.round, game.turn, time.time())
        try:
            await self._store.end(self.id, progress)
        except Fenced:
            await self.lost()
            raise
        self.finish(seat_number, self.seq)

    def _too_long(self) -> bool:
        """Whether the game, played here, has played its `max_game_rounds` rounds and is still running."""
        return (self.running and not self.broken and self.replication.plays_here
                and self.game.round > self._settings.max_game_rounds)

    async def _end_too_long(self) -> None:
        """End a game that has played `max_game_rounds` rounds as abandoned by the server (seat 0), as a player's
        abandon ends it: stored, then every client told with `ended`. Nobody's token is needed: a game whose
        every seat is a bot or a program has no person to abandon it, and would play on (and grow the store) for
        as long as anyone watched."""
        try:
            await self._store_end(0)
        except Fenced:
            return  # another server plays the game now: it ends it there
        except StorageError:
            log.exception("game %s: could not be ended after %d rounds; trying again", self.id,
                          self._settings.max_game_rounds)
            await asyncio.sleep(1.0)  # (not at once: the store is failing)
            return
        self.replication.ended(0)
        log.info("game %s ended by the server after %d rounds (max_game_rounds), at command %d", self.id,
                 self._settings.max_game_rounds, self.seq)

    def finish(self, seat_number: int, seq: int) -> None:
        """The game has been abandoned by `seat_number` (0: by the server, `max_game_rounds`) after command `seq`
        (and stored so): it is over; commands waiting are refused, every client is told with `ended` and its
        connection closed."""
        self.abandoned = True
        while self._inbox:  # commands that came before the end are not played: the game is over
            conn, _, ref = self._inbox.popleft()
            conn.outbox.put(error("game_abandoned", "this game was abandoned: it is over", ref=ref))
        text = dumps({"type": "ended", "seq": seq, "status": "abandoned", "by": {"seat": seat_number}})
        for conn in list(self.connections):
            conn.outbox.put(text)
            conn.outbox.close()  # the connection closes (1000) once the message has gone
        self._wake.set()

    async def lost(self) -> None:
        """The store no longer takes this server's commands of the game (another server claimed it, see
        `GameStore.claim`): what follows is the replication's to say (`Replication.lost`)."""
        await self.replication.lost()

    async def reload(self) -> None:
        """Go back to what the store holds (after a failed write); if even that fails, the game is broken. The
        replication hears of it either way (`Replication.reloaded`).

        Should the store hold more than the clients were told (a failure between the write and the broadcast),
        every client gets the whole state again.
        """
        await self._load_stored()
        await self.replication.reloaded()

    async def _load_stored(self) -> None:
        try:
            stored = await self._store.load(self.id)
            if stored is None:
                raise StorageError(f"game {self.id} has vanished from the store")
            game = await asyncio.to_thread(rebuild, stored.record, stored.commands, stored.snapshot)
            # the refs of the commands this copy had not announced: a write reported failed that the store took
            # all the same, a follower's commands read rather than followed (one that takes the game over later
            # must recognise them when they are sent again)
            gained = await commands_to_remember(self._store, stored, self.seq)
        except Exception:
            log.exception("game %s: cannot be reloaded; it is stopped", self.id)
            self.broken = True
            return
        self.broken = False  # reread whole: it may be played again
        self.remember(gained)
        seq = (stored.snapshot.seq if stored.snapshot else 0) + len(stored.commands)
        self.game = game
        self.tracker.reset(game)
        self._forget_state()
        self.choices.reset(game)
        if seq != self.seq:
            self.seq = seq
            self._recent.clear()
            self._recent_size = 0
            for conn in self.connections:
                conn.outbox.put(self.state_message(conn))

    # ----- connections -----
    def join(self, conn: Connection) -> None:
        """Add a connection: it gets the whole state first, then every update."""
        if not self.connections:
            self.restart_clock()  # the clock stood still while nobody was here
        self.active_at = time.time()
        self.passing = False  # played or watched now: held until it is idle again
        conn.live = self
        self.connections.add(conn)
        if conn.chooser is not None:
            self.choices.watch(conn.chooser.settlers)
        conn.outbox.put_message(self.state_frame(conn))
        self._wake.set()
        self.replication.joined(conn)

    def leave(self, conn: Connection) -> None:
        """Remove a connection."""
        if conn in self.connections:
            self.connections.discard(conn)
            self.active_at = time.time()
            if conn.chooser is not None:
                self.choices.unwatch(conn.chooser.settlers)
        conn.outbox.close()
        self._wake.set()
        self.replication.left(conn)

    def wake(self) -> None:
        """Have the owner task look again at what it has to do (a command, the clock)."""
        self._wake.set()

    def state_message(self, conn: Connection) -> str:
        """The `state` message: who the client is, the seats, the whole view after command `seq`, and the choices
        of the settlers the client may move (none for a spectator, or a client that takes none)."""
        return str(self.state_frame(conn)["text"])

    def state_frame(self, conn: Connection) -> Message:
        """The `state` message (`state_message`) to send, shared by the connections that are sent the same one.

        The view's JSON is made once per seq (2 ms on a `large` belt, half a megabyte), and the last message made
        is kept until what it was made for changes (the seq, the seats' connections, the deadline, the seat and
        its choices): spectators joining one after another are sent the very same message, whose frame is made
        once (`direct.wire_frame`) and whose compression is kept (`transport.LargeMessageDeflate`)."""
        you = None
        choices: dict[str, str] = {}
        if conn.seat is not None:
            you = {"seat": conn.seat.number, "settlers": list(conn.seat.settlers)}
        if conn.chooser is not None:
            choices = self.choices.current(conn.chooser.settlers)
        head = {"type": "state", "seq": self.seq, "game": self.id, "status": self.status, "you": you,
                "seats": self.seats_public(), "turn_seconds": self.turn_seconds, "deadline": self.deadline}
        chosen = orjson.Fragment(choices_json(choices))
        key = orjson.dumps({**head, "choices": chosen})
        memo = self._state_memo
        if memo is not None and memo[0] == key:
            return memo[1]
        view = self._view_text
        if view is None:
            view = self._view_text = orjson.Fragment(orjson.dumps(self.tracker.view()))
        text = dumps({**head, "state": view, "choices": chosen})
        message = frame(text)
        self._state_memo = (key, message)
        # the view's JSON, the message's text and, once it is sent whole to a connection, its frame
        self._memo_bytes = 3 * len(text)
        return message

    def _forget_state(self) -> None:
        """The view has changed: the state messages made for the last one are dropped (`state_frame`)."""
        self._view_text = None
        self._state_memo = None
        self._memo_bytes = 0

    def submit(self, conn: Connection, msg: ActBase) -> None:
        """Queue an `act` for the owner; what can be refused without the game is refused at once."""
        ref = msg.ref
        if conn.seat is None:
            conn.outbox.put(error("read_only", "spectators cannot act: connect with a seat's token", ref=ref))
            return
        try:
            action = to_action(msg)
        except MessageError as bad:
            conn.outbox.put(error(bad.code, bad.message, bad.field, ref))
            return
        if action.actor not in conn.seat.settlers:
            mine = ", ".join(conn.seat.settlers)
            conn.outbox.put(error("not_your_settler", f"{action.actor} is not one of your settlers ({mine})",
                                  "settler", ref))
            return
        self.enqueue(conn, action, ref)

    def enqueue(self, conn: Connection, action: Action, ref: str | int | None) -> None:
        """Queue a checked command for the owner task (or refuse it as `busy`)."""
        if len(self._inbox) >= self._settings.inbox:
            conn.outbox.put(error("busy", "too many commands are waiting for this game; try again", ref=ref))
            return
        self._inbox.append((conn, action, ref))
        self._wake.set()

    def sync(self, conn: Connection, after: int) -> None:
        """A client's `sync`: answered as the replication says (`answer_sync`, maybe after a look at the store)."""
        self.replication.sync(conn, after)

    def answer_sync(self, conn: Connection, after: int) -> None:
        """Send the updates after `after` again; the whole state when they are no longer kept (so an answer is
        at most `SYNC_BUFFER_BYTES` of updates, or one state).

        The updates kept are those every connection got, without choices: the last one sent again carries the
        current choices of the connection's settlers, all of them, so the client has them right once more.
        """
        if after == self.seq:
            return
        oldest = self._recent[0][0] if self._recent else self.seq + 1
        if oldest <= after + 1 <= self.seq:
            for seq, text in self._recent:
                if seq == self.seq and conn.chooser is not None:
                    conn.outbox.put(_with_choices(text, self.choices.current(conn.chooser.settlers)))
                elif seq > after:
                    conn.outbox.put(text)
        else:
            conn.outbox.put(self.state_message(conn))


def _with_choices(update: str, choices: dict[str, str]) -> str:
    """An `update` message's text with `"choices"` added (the update is encoded once for every connection; each
    seat's choices, kept as JSON text, are added to its text rather than encoding it all again)."""
    return f'{update[:-1]},"choices":{choices_json(choices)}}}'
