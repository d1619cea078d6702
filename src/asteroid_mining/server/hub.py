"""`GameHub`: every live game of the server — creating games, loading them from the store, the lobby.

A running game is held in memory (its owner started) while it is played, watched or read; once nobody has been
connected to it for `idle_game_seconds`, it is let go (`rest_idle`): it stays in the store, intact, and in the
lobby (a summary of a few hundred bytes is kept, `Resting`), and is loaded again when a seat or a spectator
connects, or a request needs its state (`get`), counted again against the limits of running games (`503
server_full` when there is no room). At start-up only the running games played within `idle_game_seconds` (and
those past `max_game_rounds`, to be ended) are loaded; the others are listed from the store's summaries. So a game
acted in once and left holds no memory and no share of the limits for long, and a restart does not bring it back.

Finished games are loaded on demand and let go once nobody watches them. A stored game that cannot be loaded is
kept aside as `damaged` (listed, refused with `DamagedGame`); an open game nobody has played in for
`open_game_ttl` is let go and counts no more for its creator's quota. A new game is refused past the running
games' count (`max_live_games`, `max_games_per_client`) and their estimated memory (`max_live_bytes`,
`max_live_bytes_per_client`, `live.belt_memory`), before anything is stored: the games held count, and a game let
go counts toward its creator's `max_games_per_client` only (so that an address's running games stay bounded in
number, in the store as in memory, without one address's unplayed games filling the server for everyone).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import orjson

from ..maps.resolve import Resolved
from ..rules import Game, SetupError
from ..storage import Command, DamagedRecord, GameRecord, GameStore, Progress, StorageError, StoredGame
from .belts import checked_belt
from .bots import BotPlayer, BotUnavailable, make_player
from .config import Settings
from .errors import ServerError, storage_refusal
from .live import LiveGame, belt_memory, commands_to_remember, progress_of
from .meta import GameMeta, StandInMeta
from .options import game_options
from .outbox import SendBudget
from .rebuild import DamagedGame, read_meta, rebuild
from .schemas import CreatedSeat, CreateGame
from .seats import Seat, deal_settlers, seat_for_token
from .security import new_token, token_digest

log = logging.getLogger(__name__)


def new_game_id() -> str:
    """A fresh game id (12 URL-safe characters)."""
    return secrets.token_urlsafe(9)


SWEEP_SECONDS = 60.0
"""How often, at most, the hub looks for running games to let go (`rest_idle`); a quarter of
`idle_game_seconds` when that is shorter (at least a second)."""


@dataclass(frozen=True, slots=True)
class Resting:
    """A running game let go while idle (`GameHub.rest_idle`), or not loaded at start-up: what the lobby lists of
    it and what the limits count, without the game."""

    summary: dict[str, Any]
    """The game as the lobby lists it (`LiveGame.summary`, nobody connected)."""
    client: str
    """The address that created it (its `max_games_per_client` counts it)."""
    lesson: bool
    """A lesson's game: not listed in the lobby."""
    seats: tuple[Seat, ...] | None = None
    """Its seats (their tokens' digests): a WebSocket's token is checked against them before the game is loaded
    (`GameHub.token_refused`); None when they are not known here."""

    @property
    def created(self) -> float:
        """When it was created (seconds since the epoch)."""
        return float(self.summary["created"])

    @property
    def seq(self) -> int:
        """Its last command's seq (0: an open game, which expires after `open_game_ttl`)."""
        return int(self.summary["seq"])


class GameHub:
    """The live games, by id."""

    def __init__(self, settings: Settings, store: GameStore) -> None:
        self.settings = settings
        self.store = store
        self.games: dict[str, LiveGame] = {}
        self._loading: dict[str, asyncio.Future[LiveGame | None]] = {}
        self._pending: Counter[str] = Counter()
        self._reserved: Counter[str] = Counter()
        """address -> the estimated bytes (`belt_memory`) of the games it is creating, not yet held (`create`)."""
        self._connected: Counter[str] = Counter()  # address -> its open WebSocket connections
        self._programs: Counter[str] = Counter()  # address -> its connections with a program seat's budget
        self.damaged: dict[str, dict[str, Any]] = {}  # id -> its lobby summary, for games that cannot be loaded
        self.send_budget = SendBudget(settings.send_buffer_total_bytes)
        """The bytes waiting for every WebSocket client of the process, bounded in all (`Outbox`)."""
        self.clock = time.time
        """Seconds since the epoch (replaced in tests): when open games expire and idle games are let go."""
        self.resting: dict[str, Resting] = {}
        """id -> a running game not held in memory (let go while idle, or not loaded at start-up)."""
        self._rest_version = 0
        """Counts the changes of `resting` (part of the lobby's version)."""
        self._open_resting: set[str] = set()
        """The ids of `resting` that are open games (seq 0): the only ones that expire (`expire`), looked at
        without reading every game let go (tens of thousands on a server that has run for long)."""
        self._resting_of: Counter[str] = Counter()
        """address -> its games in `resting`, as its `max_games_per_client` counts them (`_games_of`)."""
        self._resting_kept: tuple[int, list[tuple[float, dict[str, Any]]]] | None = None
        """The lobby's games let go, sorted, at the `_rest_version` they were sorted at (`_resting_listed`)."""
        self._readers: Counter[str] = Counter()
        """id -> the requests and connections using the game now (`acquire`): it is not let go meanwhile."""
        self._waking = 0
        """Games being loaded again from rest, counted against `max_live_games` until they are held."""
        self._sweeper: asyncio.Task[None] | None = None
        self.charge_stored: Callable[[str, float], None] | None = None
        """Charges bytes added to the store to an address (the app's bucket of new games' bytes): every game held
        here charges its creator the bytes of its stored commands (`LiveGame.charge_stored`)."""

    async def start(self) -> None:
        """List every running game of the store, and load those played within `idle_game_seconds` (or past
        `max_game_rounds`, which their owner ends); the others are loaded when asked for (`get`). Then look for
        idle games now and then (`rest_idle`)."""
        ids = await self.store.unfinished()
        summaries = await self._stored_summaries()
        settings, now = self.settings, self.clock()
        wanted: dict[str, float | None] = {}  # id -> when it was last played (None: unknown)
        for game_id in ids:
            found = summaries.get(game_id)
            if found is None:  # no summary (its row cannot be read, or the store keeps none): loading it says
                wanted[game_id] = None
                continue
            record, progress, meta = found
            if progress.seq == 0 and now - record.created > settings.open_game_ttl:
                continue  # an expired open game: not loaded (its link still opens it)
            self._keep_resting(game_id, Resting(_stored_summary(record, progress, meta), meta.client,
                                                bool(meta.lesson), meta.seats))
            if (progress.round > settings.max_game_rounds
                    or now - progress.updated < settings.idle_game_seconds):
                wanted[game_id] = progress.updated
        for game_id, updated in wanted.items():
            try:
                live = await self.get(game_id)
            except DamagedGame as damaged:
                log.error("%s; it is listed as damaged", damaged)
                continue
            except ServerError as refused:  # no room: it is loaded when asked for
                log.warning("game %s is not resumed at start-up: %s", game_id, refused.message)
                continue
            except Exception:
                log.exception("game %s could not be resumed", game_id)
                continue
            if live is not None:
                live.passing = False  # resumed: held until idle
                if updated is not None:
                    live.active_at = updated
        self.expire()
        if ids:
            log.info("resumed %d running games, %d more listed until asked for (%d damaged)", len(self.games),
                     len(self.resting), len(self.damaged))
        self._start_sweeping()

    def _start_sweeping(self) -> None:
        """Look for idle games to let go now and then (`rest_idle`), until `close`."""
        every = min(SWEEP_SECONDS, max(1.0, self.settings.idle_game_seconds / 4))
        self._sweeper = asyncio.get_running_loop().create_task(self._sweep(every), name="idle games")

    async def _stored_summaries(self) -> dict[str, tuple[GameRecord, Progress, GameMeta]]:
        """The running games' records (their belts left out) and progress, by id, as the store's summaries say
        them; a game whose metadata cannot be read is left out (loading it finds it damaged). Empty when the
        store keeps no summaries or cannot read them (every running game is then loaded, as it says)."""
        summaries = getattr(self.store, "summaries", None)
        if summaries is None:
            return {}
        try:
            found: list[tuple[GameRecord, Progress]] = await summaries()
        except StorageError:
            log.exception("the running games' summaries could not be read: every running game is loaded")
            return {}
        out = {}
        for record, progress in found:
            with contextlib.suppress(DamagedGame):
                out[record.id] = (record, progress, read_meta(record))
        return out

    async def _sweep(self, every: float) -> None:
        """Let idle games go, and expired open games, every `every` seconds."""
        while True:
            await asyncio.sleep(every)
            try:
                self.rest_idle()
                self.expire()
            except Exception:  # a bug here must not stop the sweeping
                log.exception("letting idle games go failed")

    async def close(self) -> None:
        """Stop every owner and close every connection."""
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
            self._sweeper = None
        games, self.games = list(self.games.values()), {}
        await asyncio.gather(*(live.stop() for live in games))

    # ----- finding games -----
    async def get(self, game_id: str) -> LiveGame | None:
        """The live game, loading it from the store when needed; None when there is no such game.

        Raises DamagedGame for a stored game that cannot be loaded (then and every time after).
        """
        live = self.games.get(game_id)
        if live is not None:
            return live
        if game_id in self.damaged:
            raise DamagedGame(game_id, self.damaged[game_id]["reason"])
        pending = self._loading.get(game_id)
        if pending is not None:  # someone is loading it already: wait for that
            return await asyncio.shield(pending)
        future: asyncio.Future[LiveGame | None] = asyncio.get_running_loop().create_future()
        self._loading[game_id] = future
        try:
            live = await self._load(game_id)
        except BaseException as failure:
            future.set_exception(failure)
            future.exception()  # retrieved: the waiters re-raise it
            raise
        else:
            future.set_result(live)
            return live
        finally:
            del self._loading[game_id]

    async def _load(self, game_id: str) -> LiveGame | None:
        if len(game_id) > 64:
            return None
        try:
            stored = await self.store.load(game_id)
        except DamagedRecord as unreadable:  # a damaged row damages its game, not the server
            self._unrest(game_id)
            self.damaged[game_id] = _unreadable_summary(game_id, unreadable.reason)
            raise DamagedGame(game_id, unreadable.reason) from None
        if stored is None:
            self._unrest(game_id)
            return None
        resting = self.resting.get(game_id)
        creator = resting.client if resting is not None else self._creator_counted(stored)
        if creator is None or stored.progress.status != "running":
            self._unrest(game_id)
            return await self._build_loaded(game_id, stored)
        # a game let go while idle comes back (or a cluster node loads a game another node plays): counted against
        # the running games' limits like any held here (503 without room), before it is built
        need = await asyncio.to_thread(belt_memory, stored.record.belt)
        self._make_room(creator, need)
        self._waking += 1
        self._reserved[creator] += need
        try:
            live = await self._build_loaded(game_id, stored)
        except DamagedGame:
            self._unrest(game_id)  # listed as damaged from now on
            raise
        finally:
            self._waking -= 1
            self._unreserve(creator, need)
        live.passing = True  # (until someone joins it: `release` lets it go again after the request)
        self._unrest(game_id)
        return live

    def _creator_counted(self, stored: StoredGame) -> str | None:
        """The address whose share of the limits a running game not let go here is counted against while it is
        loaded (its creator's), or None when the load is not counted before it is built (its metadata cannot be
        read: building it finds it damaged). On one server such a game is an open game that expired (its link
        still opens it), or one the store lists without a summary. An expired open game counts no more for its
        creator, so its load is refused (`503 server_full`) when the creator has as many running games as it
        may (`max_games_per_client`): loaded uncounted, then played once, it became a running game past every
        limit, and an address creating its quota of games each `open_game_ttl` and bringing them back had as
        many running games as it liked, in memory past `max_live_games` and `max_live_bytes`."""
        if stored.progress.status != "running":
            return None
        try:
            client = read_meta(stored.record).client
        except DamagedGame:
            return None
        if self._games_of(client, self._held_running()) >= self.settings.max_games_per_client:
            raise ServerError(503, "server_full", "the address that created this game has as many running games "
                              "on this server as it may; try later")
        return client

    async def _build_loaded(self, game_id: str, stored: StoredGame) -> LiveGame:
        """The live game of a stored one, held and started; DamagedGame when it cannot be rebuilt."""
        try:
            meta = read_meta(stored.record)
            try:
                game, seq = await asyncio.to_thread(_rebuild_checked, stored)
            except DamagedGame as failed:
                if stored.snapshot is None:
                    raise
                # a snapshot only saves time: the whole log rebuilds the game without it (or finds the damage)
                log.warning("game %s: rebuilt from its whole log (from its snapshot: %s)", game_id, failed.reason)
                stored = await self._without_snapshot(stored)
                game, seq = await asyncio.to_thread(_rebuild_checked, stored)
            players = _players(stored.record, meta)
        except Exception as failure:  # a bug of ours or a stored game a change of rules broke: not a crash
            damaged = failure if isinstance(failure, DamagedGame) else DamagedGame(
                game_id, f"{type(failure).__name__}: {failure}"[:300])
            self.damaged[game_id] = _damaged_summary(stored, damaged.reason)
            raise damaged from failure
        # off the event loop: the first view of a big belt is tens of milliseconds of CPU
        live = await asyncio.to_thread(self.make_live, stored.record, meta, game, seq, players)
        # a command sent again after a restart is recognised by its ref, those played before the snapshot too
        live.remember(await self._latest_commands(stored))
        live.abandoned = stored.progress.status == "abandoned"
        live.charge_stored = self.charge_stored
        self.games[game_id] = live
        live.start()
        _age_young_objects()
        return live

    async def _latest_commands(self, stored: StoredGame) -> list[Command]:
        """The game's last `REFS_KEPT` commands: those after its snapshot, and as many from before it as its log
        has room for (a client may send again a command that was played just before a snapshot was taken)."""
        return await commands_to_remember(self.store, stored, 0)

    async def _without_snapshot(self, stored: StoredGame) -> StoredGame:
        """The stored game with every command of its log and no snapshot."""
        found = await self.store.log(stored.record.id)
        if found is None:
            raise DamagedGame(stored.record.id, "its log is gone")
        record, progress, commands = found
        return StoredGame(record, progress, None, commands)

    def make_live(self, record: GameRecord, meta: GameMeta, game: Game, seq: int,
                  players: dict[int, BotPlayer]) -> LiveGame:
        """The live game of a record, at command `seq` (a cluster node makes its own kind)."""
        return LiveGame(record, meta, game, seq, self.settings, self.store, players)

    @contextlib.asynccontextmanager
    async def acquire(self, game_id: str) -> AsyncIterator[LiveGame | None]:
        """The live game (as `get`: None when there is none; DamagedGame, store failures and `server_full` for a
        game let go that there is no room for are raised), released (`release`) however the block is left: every
        path that loads a game lets it go again, so that a finished game loaded for a request, a refused token
        included, is not held for ever. It is not let go while the block runs."""
        live = await self.get(game_id)
        if live is not None:
            self._readers[live.id] += 1
        try:
            yield live
        finally:
            if live is not None:
                _give_back(self._readers, live.id)
                self.release(live)

    def release(self, live: LiveGame) -> None:
        """Let a game go once nobody is connected nor reading it (it is loaded again when asked for): a finished
        one, or a running one loaded only for requests (`LiveGame.passing`); `acquire` calls it."""
        if self._holds(live) or self.games.get(live.id) is not live:
            return
        if not live.running:
            del self.games[live.id]
            asyncio.get_running_loop().create_task(live.stop())
        elif live.passing and live.quiet and not self.expired(live):
            self._rest(live)

    # ----- running games nobody plays are let go -----
    def idle(self, live: LiveGame) -> bool:
        """Whether `live` is a running game held here that nobody has played, joined, left or read for
        `idle_game_seconds` (its clock and bots stand still while nobody is connected: it cannot move by itself),
        its owner quiet."""
        return (live.running and not live.connections and not live.replication.watched_elsewhere()
                and not self._readers.get(live.id) and live.quiet and not self.expired(live)
                and self.clock() - live.active_at >= self.settings.idle_game_seconds)

    def rest_idle(self) -> int:
        """Let go of every idle running game (`idle`): out of memory and of the running games' limits, kept in
        the store and listed in the lobby as it was (`Resting`); how many."""
        gone = [live for live in self.games.values() if self.idle(live)]
        for live in gone:
            self._rest(live)
        if gone:
            log.info("let go of %d idle running games (%d let go in all)", len(gone), len(self.resting))
        return len(gone)

    def _rest(self, live: LiveGame) -> None:
        """Let go of a running game nobody is connected to, its summary kept (`Resting`)."""
        del self.games[live.id]
        self._keep_resting(live.id, Resting(live.summary(), live.client, bool(live.meta.lesson), live.meta.seats))
        asyncio.get_running_loop().create_task(live.stop())

    def _keep_resting(self, game_id: str, resting: Resting) -> None:
        """List `game_id` as let go (`resting`), counted for its creator and, open, among those that expire."""
        self._unrest(game_id)  # (its counts are taken once, however often it is let go)
        self.resting[game_id] = resting
        self._resting_of[resting.client] += 1
        if resting.seq == 0:
            self._open_resting.add(game_id)
        self._rest_version += 1

    def _unrest(self, game_id: str) -> None:
        """`game_id` is held again, ended, damaged or gone: no longer listed as let go."""
        resting = self.resting.pop(game_id, None)
        if resting is not None:
            _give_back(self._resting_of, resting.client)
            self._open_resting.discard(game_id)
            self._rest_version += 1

    def _make_room(self, client: str, need: int) -> None:
        """Refuse (`503 server_full`) to load again a game let go by `client`'s address, of `need` estimated
        bytes, when the running games held (and those being created or loaded) leave no room for it in
        `max_live_games`, `max_live_bytes` or `max_live_bytes_per_client`."""
        settings = self.settings
        running = self._held_running()
        if len(running) + sum(self._pending.values()) + self._waking >= settings.max_live_games:
            raise ServerError(503, "server_full", "this server is running as many games as it can; try later")
        total = sum(g.memory_bytes for g in running) + sum(self._reserved.values())
        mine = sum(g.memory_bytes for g in running if g.client == client) + self._reserved[client]
        if total + need > settings.max_live_bytes or mine + need > settings.max_live_bytes_per_client:
            raise ServerError(503, "server_full", "this server holds as many games as its memory allows (or its "
                              "creator's address's share of it); try later")

    def _held_expired_of(self, client: str) -> int:
        """How many expired open games created by `client` are held here by a connection or a request: counted
        as running games (`_held_running`), though a cluster's store counts them no more for its quota."""
        return sum(1 for g in self.games.values() if g.client == client and self.expired(g) and self._holds(g))

    def _holds(self, live: LiveGame) -> bool:
        """Whether a connection or a request holds `live` here."""
        return bool(live.connections or self._readers.get(live.id))

    def _games_of(self, client: str, running: list[LiveGame]) -> int:
        """The running games `client` has created here, as its `max_games_per_client` counts them: those of
        `running` (`_held_running`), those being created, and those let go while idle (so that an address's
        running games stay bounded in number in the store too)."""
        return sum(1 for g in running if g.client == client) + self._pending[client] + self._resting_of[client]

    def _held_running(self) -> list[LiveGame]:
        """The running games held in memory: what the limits of running games count. An expired open game is
        left out only while nothing holds it (`expire` lets it go at its next sweep); one a connection or a
        request holds is counted: its link loads it again, and uncounted, one address opening every open game it
        had let expire held them all in memory, past `max_live_games`, `max_live_bytes` and its own
        `max_games_per_client`."""
        return [g for g in self.games.values()
                if g.running and (not self.expired(g) or self._holds(g))]

    # ----- connections per address -----
    def connect(self, client: str) -> bool:
        """Count a new WebSocket connection of `client`; False (and not counted) when it has as many open as it
        may (`max_connections_per_client`)."""
        return _take(self._connected, client, self.settings.max_connections_per_client)

    def disconnect(self, client: str) -> None:
        """A connection counted by `connect` has closed."""
        _give_back(self._connected, client)

    def take_program_budget(self, client: str) -> bool:
        """Count a connection of `client` given a program seat's message budget; False (and not counted) when
        `program_connections_per_client` of its connections have it already, so this one has a person's: each
        connection's own budget times the connections one address may open (256 × 200 a second) let one address
        hold the event loop's core whole."""
        return _take(self._programs, client, self.settings.program_connections_per_client)

    def give_program_budget(self, client: str) -> None:
        """A connection counted by `take_program_budget` has closed."""
        _give_back(self._programs, client)

    async def lobby_games(self) -> list[dict[str, Any]]:
        """What the lobby lists (a cluster node reads every node's games from the shared store)."""
        return self.lobby()

    async def load_is_charged(self, game_id: str, seat: bool) -> bool:
        """Whether reading `game_id` would load a game from the store that its reader is charged for
        (`lobby.charge_load`): a finished one, and a running one let go (`Resting`), a lesson's too, but not for a
        seat's WebSocket (`seat`), for which loading it is the normal path of serving it (every player coming back
        after a restart). A lesson's player asks for its goals after each of its moves while its WebSocket holds
        the game here: a lesson's game let go is one nobody has been connected to for `idle_game_seconds`, and
        reading it (its goals, its view) loaded it again for each request, uncharged. A spectator's WebSocket is
        charged as a REST read: one address watching games let go, one after another, had each loaded free (a
        crowd watching one game behind one address pays once: the game is then held)."""
        if game_id in self.games or game_id in self.damaged:
            return False
        resting = self.resting.get(game_id)
        if resting is not None:
            return not seat
        return True

    async def token_refused(self, game_id: str, token: str) -> bool:
        """Whether `token` is known to play no seat of `game_id`, told without loading the game: a running game
        let go (`Resting`) is told from the seats kept with it. A WebSocket with a wrong token loaded such a game
        only to refuse it, and let it go again at once, uncharged (loading for a WebSocket is the normal path of
        serving a game): 117 ms of CPU a connection on the largest accepted belt, ten a second from one address at
        its rate of new connections. False when it cannot be told so cheaply: a game held here (its token is
        checked once it is acquired), a finished one (its load is charged, `load_is_charged`), none."""
        resting = self.resting.get(game_id)
        return resting is not None and resting.seats is not None and seat_for_token(list(resting.seats),
                                                                                      token) is None

    async def stored_summary(self, game_id: str) -> dict[str, Any] | None:
        """A game this server does not hold, as the lobby lists it, without loading the game: a running game let
        go (`Resting`); None when that is no cheaper than loading it (a finished game, whose summary is kept
        once loaded)."""
        resting = self.resting.get(game_id)
        return None if resting is None else dict(resting.summary)

    async def in_play(self, game_id: str) -> bool:
        """Whether `game_id` is known to be in play without reading its log: a game held here that is running, or
        one let go (`Resting`: a running game). False when it cannot be told so (a finished game, a damaged one,
        none): reading its log tells. `GET /log` refuses a game in play with this, before reading and parsing
        its whole log (16-31 ms of CPU at 5,000 commands, for a refusal)."""
        live = self.games.get(game_id)
        return live.running if live is not None else game_id in self.resting

    def lobby_version(self) -> Hashable:
        """What the lobby's listing depends on, cheaper to compute than the listing (0.8 ms of CPU with 400 games,
        where the listing's answer is 20 ms): while it is the same, the listing is too (`LobbyCache`). None when
        it cannot be told (a cluster node's lobby is every node's)."""
        self.expire()  # (open games let go that expire change the listing too)
        return (len(self.damaged), self._rest_version, hash(tuple(
            (g.id, g.seq, g.running, len(g.connections), self.expired(g)) for g in self.games.values())))

    def lobby(self) -> list[dict[str, Any]]:
        """Open and running games, held or let go (`Resting`, listed as they were), newest first, then the damaged
        ones (no tokens); expired open games are not listed."""
        self.expire()
        listed = [(g.created, g.summary()) for g in self.games.values() if g.running and not g.meta.lesson]
        listed += self._resting_listed()
        listed.sort(key=itemgetter(0), reverse=True)  # (two runs sorted already: merged, not sorted again)
        damaged = sorted(self.damaged.values(), key=lambda d: -d["created"])
        return [summary for _, summary in listed] + [{k: v for k, v in d.items() if k != "reason"} for d in damaged]

    def _resting_listed(self) -> list[tuple[float, dict[str, Any]]]:
        """The games let go that the lobby lists, newest first, as (created, summary): sorted again only when
        `resting` has changed. Each is the game's own summary, not a copy: it never changes while it rests, and
        the lobby keeps its checked text by it (`lobby._listing`). A server that has run for long lets go of tens
        of thousands of games nobody finished (they stay running, and listed, for good): reading, copying and
        sorting them all at each building of the lobby was 25 ms of its CPU with 50,000 of them."""
        kept = self._resting_kept
        if kept is None or kept[0] != self._rest_version:
            pairs = [(r.created, r.summary) for r in self.resting.values() if not r.lesson]
            pairs.sort(key=itemgetter(0), reverse=True)
            kept = self._resting_kept = (self._rest_version, pairs)
        return kept[1]

    # ----- open games expire -----
    def expired(self, live: LiveGame) -> bool:
        """Whether `live` is an open game (nobody has acted) older than `open_game_ttl`."""
        return live.seq == 0 and live.running and self.clock() - live.created > self.settings.open_game_ttl

    def _expired_resting(self, resting: Resting) -> bool:
        """Whether a game let go is an open game older than `open_game_ttl`."""
        return resting.seq == 0 and self.clock() - resting.created > self.settings.open_game_ttl

    def expire(self) -> int:
        """Let go of the expired open games nobody is connected to (they stay in the store), and forget those let
        go already; how many."""
        gone = [g for g in self.games.values() if self.expired(g) and not self._holds(g)]
        for live in gone:
            del self.games[live.id]
            asyncio.get_running_loop().create_task(live.stop())
        old = [game_id for game_id in self._open_resting if self._expired_resting(self.resting[game_id])]
        for game_id in old:
            self._unrest(game_id)
        return len(gone) + len(old)

    # ----- creating games -----
    async def create(self, request: CreateGame, client: str, lesson: str | None = None,
                     ) -> tuple[LiveGame, list[CreatedSeat]]:
        """Create, store and start a game; its seats with their tokens (shown this once only). A `lesson`'s game
        is not listed in the lobby."""
        self.expire()
        self.rest_idle()  # (a game let go leaves room for this one)
        running = self._held_running()
        if len(running) + sum(self._pending.values()) + self._waking >= self.settings.max_live_games:
            raise ServerError(503, "server_full", "this server is running as many games as it can; try later")
        # the games let go count here (not above): an address's running games stay bounded in number, in the
        # store too, while those nobody plays leave the server's room to others
        mine = self._games_of(client, running)
        if mine >= self.settings.max_games_per_client:
            raise ServerError(429, "too_many_games", f"you already have {mine} running games on this server "
                              f"(at most {self.settings.max_games_per_client})")
        self._pending[client] += 1
        try:
            return await self._create(request, client, lesson)
        finally:
            _give_back(self._pending, client)

    def _reserve(self, client: str, need: int) -> None:
        """Count `need` estimated bytes of a game `client` is creating against `max_live_bytes` and
        `max_live_bytes_per_client` (with the running games' and those being created), or refuse it as the counts
        are refused. The games' count bounds how many, not how big: on the largest accepted belt a game holds
        up to 30 MB, and 5,000 of them would not fit in any machine's memory."""
        settings = self.settings
        running = self._held_running()
        total = sum(g.memory_bytes for g in running) + sum(self._reserved.values())
        if total + need > settings.max_live_bytes:
            raise ServerError(503, "server_full", "this server holds as many games as its memory allows; try "
                              "later, or a smaller belt")
        mine = sum(g.memory_bytes for g in running if g.client == client) + self._reserved[client]
        if mine + need > settings.max_live_bytes_per_client:
            raise ServerError(429, "too_many_games", f"your running games on this server take about "
                              f"{_megabytes(mine)} of its memory, and this one would take {_megabytes(need)} "
                              f"(at most {_megabytes(settings.max_live_bytes_per_client)} in all): finish or "
                              "abandon one first, or choose a smaller belt")
        self._reserved[client] += need

    def _unreserve(self, client: str, need: int) -> None:
        _give_back(self._reserved, client, need)

    async def _create(self, request: CreateGame, client: str, lesson: str | None = None,
                      ) -> tuple[LiveGame, list[CreatedSeat]]:
        turn_seconds = _turn_seconds(request, self.settings)
        seed = request.seed if request.seed is not None else secrets.randbelow(2**31)
        game_options(request.rules, request.options)  # bad options are refused before a belt is generated
        players = await asyncio.to_thread(_bot_players, request, seed)
        resolved, belt_json = await asyncio.to_thread(checked_belt, request.belt, seed, self.settings,
                                                      request.difficulty)
        need = await asyncio.to_thread(belt_memory, belt_json)  # refused before the game is built or stored
        self._reserve(client, need)
        try:
            return await self._build(request, client, lesson, turn_seconds, seed, players, resolved, belt_json)
        finally:
            self._unreserve(client, need)

    async def _build(self, request: CreateGame, client: str, lesson: str | None, turn_seconds: float | None,
                     seed: int, players: dict[int, BotPlayer], resolved: Resolved, belt_json: dict[str, Any],
                     ) -> tuple[LiveGame, list[CreatedSeat]]:
        belt = resolved.belt
        options = game_options(request.rules, request.options, resolved.options_for(request.rules))
        total = request.seats * request.settlers_per_seat
        try:
            game = await asyncio.to_thread(Game.new, belt, options, seed, total)
        except SetupError as bad:
            raise ServerError(422, "invalid", f"belt: {bad}", "belt") from None
        seats, created = [], []
        for number, settlers in enumerate(deal_settlers(list(game.settlers), request.seats), start=1):
            bot = request.bots.get(str(number))
            token = None if bot else new_token()
            seat = Seat(number, "bot" if bot else "human", settlers, token_digest(token) if token else "", bot,
                        number in request.programs)
            seats.append(seat)
            created.append(CreatedSeat(seat=number, kind=seat.kind, bot=bot, token=token, settlers=list(settlers)))
        name = resolved.name
        stand_in = StandInMeta(request.stand_in.bot, request.stand_in.after) if request.stand_in else None
        meta = GameMeta(request.rules, name, turn_seconds, client, tuple(seats), lesson, stand_in)
        record = GameRecord(new_game_id(), self.clock(), belt_json, options.to_json(), seed, total, meta.to_json())
        try:
            await self.store.create(record, progress_of(game, 0, record.created))
        except StorageError as failure:
            log.error("game %s could not be stored: %s", record.id, failure)
            refusal = storage_refusal(failure)
            # charged as if created: the belt was made and the game set up (47 ms of CPU on `large`), and on a
            # full disk one address refused without a charge kept half a core busy
            refusal.charge = await asyncio.to_thread(lambda: len(orjson.dumps(belt_json)))
            raise refusal from None
        live = await asyncio.to_thread(self.make_live, record, meta, game, 0, players)  # (as in _load)
        live.belt_bytes = await asyncio.to_thread(lambda: len(orjson.dumps(belt_json)))  # (a few ms at most)
        live.charge_stored = self.charge_stored
        self.games[record.id] = live
        live.start()
        _age_young_objects()
        log.info("game %s created by %s: %d seats on %s", record.id, client, request.seats, name)
        return live, created


def _megabytes(count: int) -> str:
    """Bytes as a person reads them: `12.5 MB`."""
    return f"{count / 1e6:.1f} MB"


def _age_young_objects() -> None:
    """Collect the young generations now that a game has been set up, so that its thousands of long-lived objects
    (and the garbage of building them) go to the old generation at once, in a pause of a millisecond or so.

    Left to the collector's thresholds (`main.GC_THRESHOLDS`), the objects of every game set up since the last
    collection of generation 1 are examined together the next time: with 200 games created before play began,
    that was one pause of 120 ms in the first second of play.
    """
    gc.collect(1)


def _rebuild_checked(stored: StoredGame) -> tuple[Game, int]:
    """The game and its seq: the log is the truth (the progress row is written with it, so they agree)."""
    game = rebuild(stored.record, stored.commands, stored.snapshot)
    seq = (stored.snapshot.seq if stored.snapshot else 0) + len(stored.commands)
    if seq != stored.progress.seq:
        log.warning("game %s: the log has %d commands, its progress says %d", stored.record.id, seq,
                    stored.progress.seq)
    return game, seq


def _stored_summary(record: GameRecord, progress: Progress, meta: GameMeta) -> dict[str, Any]:
    """A running game as the lobby lists it (`LiveGame.summary`, nobody connected), from its stored record (its
    belt's asteroids counted) and progress, without loading it."""
    seats = [{**seat, "connected": 0} for seat in meta.seats_public()]
    status = "open" if progress.seq == 0 and progress.status == "running" else progress.status
    asteroids = record.belt.get("asteroids")
    return {"id": record.id, "status": status, "seq": progress.seq, "round": progress.round, "turn": progress.turn,
            "rules": meta.rules, "belt": meta.belt_name, "asteroids": len(asteroids) if isinstance(asteroids, list)
            else 0, "turn_seconds": meta.turn_seconds, "created": record.created, "seats": seats}


def _damaged_summary(stored: StoredGame, reason: str) -> dict[str, Any]:
    """A damaged game as the lobby lists it, from what the store holds (and why it cannot be loaded)."""
    record, progress = stored.record, stored.progress
    meta = record.meta if isinstance(record.meta, dict) else {}
    seats: list[dict[str, Any]] = []
    with contextlib.suppress(DamagedGame):  # metadata that cannot be read: the seats stay unknown
        seats = [{**seat, "connected": 0} for seat in read_meta(record).seats_public()]
    asteroids = record.belt.get("asteroids") if isinstance(record.belt, dict) else None
    return {"id": record.id, "status": "damaged", "seq": progress.seq, "round": progress.round,
            "turn": progress.turn, "rules": str(meta.get("rules", "")), "belt": str(meta.get("belt_name", "")),
            "asteroids": len(asteroids) if isinstance(asteroids, list) else 0,
            "turn_seconds": _seconds_or_none(meta.get("turn_seconds")), "created": record.created, "seats": seats,
            "reason": reason}


def _take(counts: Counter[str], key: str, limit: int) -> bool:
    """Count one more for `key`, unless it has `limit` already (then False, and not counted)."""
    if counts[key] >= limit:
        return False
    counts[key] += 1
    return True


def _give_back(counts: Counter[str], key: str, amount: int = 1) -> None:
    """Take `amount` off `key`'s count, forgetting the key at 0 (so that the counters hold only what is in use)."""
    counts[key] -= amount
    if counts[key] <= 0:
        del counts[key]


def _seconds_or_none(value: Any) -> float | None:
    """A damaged game's stored turn timer as the lobby can list it: a finite number, else None (unknown). The
    metadata of a damaged row can hold anything: a string there failed the lobby's check of its summary, and with
    it every page of the lobby (`500`) for as long as the row was listed."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def _unreadable_summary(game_id: str, reason: str) -> dict[str, Any]:
    """A game whose rows cannot be read, as the lobby lists it: its id and why (nothing else can be trusted)."""
    return {"id": game_id, "status": "damaged", "seq": 0, "round": 0, "turn": None, "rules": "", "belt": "",
            "asteroids": 0, "turn_seconds": None, "created": 0.0, "seats": [], "reason": reason}


def _turn_seconds(request: CreateGame, settings: Settings) -> float | None:
    """The game's turn timer, once `programs`, `stand_in` and `turn_seconds` are checked (422 naming the field):
    the creator's; else `program_turn_seconds` when programs and the server play every seat; else none."""
    least = settings.min_turn_seconds
    if request.turn_seconds is not None and request.turn_seconds < least:
        raise ServerError(422, "invalid", f"turn_seconds: at least {least:g} on this server", "turn_seconds")
    seen: set[int] = set()
    for i, number in enumerate(request.programs):
        where = f"programs[{i}]"
        if number > request.seats:
            raise ServerError(422, "invalid", f"{where}: there is no seat {number} (the game has {request.seats})",
                              where)
        if str(number) in request.bots:
            raise ServerError(422, "invalid", f"{where}: seat {number} is played by the server's bot "
                              f"{request.bots[str(number)]!r}, not by a program", where)
        if number in seen:
            raise ServerError(422, "invalid", f"{where}: seat {number} is named twice", where)
        seen.add(number)
    if request.stand_in is not None:
        if request.turn_seconds is not None:
            raise ServerError(422, "invalid", "stand_in: a silent seat either waits (turn_seconds) or is played by "
                              "a bot (stand_in), not both", "stand_in")
        if request.stand_in.after < least:
            raise ServerError(422, "invalid", f"stand_in.after: at least {least:g} on this server",
                              "stand_in.after")
        return None
    unplayed = set(range(1, request.seats + 1)) - {int(key) for key in request.bots} - seen
    if request.turn_seconds is None and seen and not unplayed:  # nobody but programs: one gone must not hang it
        return settings.program_turn_seconds
    return request.turn_seconds


def _bot_players(request: CreateGame, seed: int) -> dict[int, BotPlayer]:
    """The players of the bot seats, and with a stand-in, of every other seat (seeded by the seat as bots are)."""
    players = {}
    for key, name in sorted(request.bots.items()):
        number = int(key)
        if number > request.seats:
            raise ServerError(422, "invalid", f"there is no seat {number} (the game has {request.seats})",
                              f"bots.{key}")
        try:
            players[number] = make_player(name, seed + number)
        except BotUnavailable as missing:
            raise ServerError(422, "bots_unavailable", str(missing), f"bots.{key}") from None
    if request.stand_in is not None:
        for number in range(1, request.seats + 1):
            if number not in players:
                try:
                    players[number] = make_player(request.stand_in.bot, seed + number)
                except BotUnavailable as missing:
                    raise ServerError(422, "bots_unavailable", str(missing), "stand_in.bot") from None
    return players


def _players(record: GameRecord, meta: GameMeta) -> dict[int, BotPlayer]:
    """The players of a stored game's bot seats, and of its other seats when it has a stand-in."""
    players = {}
    for seat in meta.seats:
        name = seat.bot if seat.kind == "bot" else meta.stand_in.bot if meta.stand_in else None
        if name is not None:
            try:
                players[seat.number] = make_player(name, record.seed + seat.number)
            except BotUnavailable as missing:
                log.warning("game %s seat %d: %s; its settlers wait", record.id, seat.number, missing)
    return players
