"""`ClusterHub`: the games of one node of a cluster.

Any node serves any client. A game is loaded on a node when a client asks for it there; the node takes the
game's lease if nobody holds it (and becomes its owner) or else follows it. A watchdog, every third of a lease:

- renews the leases this node holds (one pipelined round trip); a lease found gone (Redis restarted) is taken
  again, a lease found taken by another node means the game has moved: it is dropped and its clients reconnect;
- tells the followers of each game it owns the game's seq, so that one that lost an update reloads (a lost last
  update would otherwise show as a gap only when a later one arrived, and none arrives while the next move is up
  to a client who has not seen it);
- for each game it follows, looks up the owner: none (the owner died and its lease ran out) — the node takes the
  game over, rebuilding it from the store, clock and bots included; else it tells the owner how many clients
  watch here, so that the owner's clock runs for them.

A command that a follower relays to a dead owner finds nobody listening on its channel; the follower waits for
the lease to run out and takes the game over itself. Redis being away stops relaying and following (clients get
a clean error), not the owners: the store's fence keeps a game to one writer whatever Redis says.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import operator
import os
import socket
import time
from collections.abc import Hashable
from typing import Any

from ...rules import Action, Game, action_from_json
from ...storage import GameRecord, GameStore, Progress, StorageError, StoredGame
from ...storage.reread import made_again
from ..bots import BotPlayer
from ..config import Settings
from ..errors import ServerError
from ..hub import GameHub
from ..live import Connection, LiveGame
from ..messages import error
from ..meta import GameMeta, MetaError
from ..rebuild import DamagedGame, read_meta
from ..schemas import CreatedSeat, CreateGame
from ..seats import seat_for_token
from .bus import Bus, game_channel, node_channel
from .leases import Leases, lease_key
from .replication import ClusterReplication, shared

log = logging.getLogger(__name__)


LOAD_TRIES = 3
"""How many times a game let go while it was being loaded is loaded again before the client is told to try again."""

CREATING_SECONDS = 60.0
"""How long a create under way counts against its address's `max_games_per_client` on every node at most (a node
that died while creating cannot say it is done), each from its own start: a later create of the address does not
keep an earlier one counted."""

STORE_PROBE_SECONDS = 1.0
"""How often a node asks its store a trivial query, for `GET /api/health`."""


def default_node_id() -> str:
    """This process's name in the cluster: host and process id."""
    return f"{socket.gethostname()}-{os.getpid()}"


def connect_redis(url: str) -> Any:
    """A Redis client for `url` that fails fast (2 s) instead of hanging when Redis is away."""
    import redis.asyncio

    return redis.asyncio.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)


class ClusterHub(GameHub):
    """The live games of one node: owned or followed (see the module's documentation)."""

    def __init__(self, settings: Settings, store: GameStore) -> None:
        super().__init__(settings, store)
        self.node = settings.node_id or default_node_id()
        self.redis = connect_redis(settings.redis)
        self.leases = Leases(self.redis, self.node, settings.lease_seconds)
        self.bus = Bus(self.redis, self.node, self._on_message)
        self.bus.on_reconnect = self._after_outage
        self.held: dict[str, int] = {}
        """The games this node owns, with their epochs."""
        self.presence_ttl = settings.lease_seconds * 2
        self._tick = settings.lease_seconds / 3
        self._senders: dict[int, Connection] = {}
        """The connections here whose commands were relayed to another node, by their numbers (`_remember`)."""
        self._numbers: dict[Connection, int] = {}
        """The number of each connection of `_senders`."""
        self._next_number = itertools.count(1)
        """Numbers connections: never one given twice on this node (0 names no connection)."""
        self._next_create = itertools.count(1)
        """Numbers this node's creates under way (`_creating`)."""
        self._watchdog: asyncio.Task[None] | None = None
        self._prober: asyncio.Task[None] | None = None
        self.store_available = True
        """The store answered this node's last probe (a trivial query, each `STORE_PROBE_SECONDS`) within its read
        deadline: `GET /api/health` says so, and HAProxy sends new clients to the nodes that can reach it."""
        self._created = 0
        """Games created on this node (part of its lobby's version)."""
        self._taking: set[str] = set()
        """The games this node is taking over (`take`) at the moment."""
        self._kept: dict[str, asyncio.TimerHandle] = {}
        """The followed games nobody here is connected to, kept for `follower_keep_seconds` (`release`)."""
        self._listed: dict[str, tuple[tuple[GameRecord, Progress], dict[str, Any] | None]] = {}
        """The games of other nodes the lobby listed at its last building, each with the record and progress it
        was listed from and its summary (None: not listed): one the store gives as the same pair (its row
        unchanged) is not read again (`lobby_games`)."""

    # ----- life -----
    async def start(self) -> None:
        """Join the cluster (games are loaded when clients ask for them, not all at start)."""
        await self.bus.start()
        self._watchdog = asyncio.create_task(self._watch(), name="cluster-watchdog")
        if hasattr(self.store, "ping"):
            self._prober = asyncio.create_task(self._probe(), name="store-probe")
        self._start_sweeping()
        log.info("cluster node %s up", self.node)

    async def close(self) -> None:
        """Leave the cluster: give every lease up, so that other nodes take the games over at once."""
        if self._prober is not None:
            self._prober.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._prober
        if self._watchdog is not None:
            # cancelled again until it has ended: the Redis client the watchdog awaits may swallow a cancellation,
            # and the watchdog would go on for ever, with the node's shutdown waiting for it
            while not self._watchdog.done():
                self._watchdog.cancel()
                await asyncio.wait({self._watchdog}, timeout=0.1)
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._watchdog
        for timer in self._kept.values():
            timer.cancel()
        self._kept.clear()
        for live in self.games.values():
            if shared(live) is not None:
                live.moved = True
        await super().close()
        for game_id, epoch in list(self.held.items()):
            with contextlib.suppress(Exception):
                await self.leases.release(game_id, epoch)
        self.held.clear()
        await self.bus.close()
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    def make_live(self, record: GameRecord, meta: GameMeta, game: Game, seq: int,
                  players: dict[int, BotPlayer]) -> LiveGame:
        """A live game shared with the cluster (`ClusterReplication`), a follower until it is owned."""
        return LiveGame(record, meta, game, seq, self.settings, self.store, players, ClusterReplication(self))

    # ----- loading, owning, dropping -----
    async def get(self, game_id: str) -> LiveGame | None:
        """The live game, as `GameHub.get`, and one this node still holds: a copy let go while it was being
        loaded (taken over by another node, or the store failing as it was taken over) is not handed out, since
        a client that joined it would hear nothing more for ever, never told to reconnect (its letting go closed
        the connections it had then); the game is loaded again instead."""
        for _ in range(LOAD_TRIES):
            live = await super().get(game_id)
            if live is None or self.games.get(game_id) is live:
                return live
            log.info("game %s: let go by %s while it was being loaded; loading it again", game_id, self.node)
        raise ServerError(503, "cluster_unavailable", "the game moved between servers while it was loaded; "
                          "try again")

    async def _load(self, game_id: str) -> LiveGame | None:
        if len(game_id) > 64:
            return None
        await self._refuse_expired_past_quota(game_id)
        await self.bus.follow(game_id)  # before reading the store: an update published meanwhile is not missed
        try:
            live = await super()._load(game_id)
        except ServerError:  # no room for it here (`_creator_counted`): nothing of it is followed
            if game_id not in self.games:
                await self.bus.unfollow(game_id)
            raise
        if live is None:
            await self.bus.unfollow(game_id)
            return None
        game = shared(live)
        assert game is not None
        if live.running:
            with contextlib.suppress(Exception):  # Redis away: a follower for now; the watchdog tries again
                await self.take(game)
        return live

    async def create(self, request: CreateGame, client: str, lesson: str | None = None,
                     ) -> tuple[LiveGame, list[CreatedSeat]]:
        """Create the game in the store, and leave it there: the node its first client connects to will own it
        (so that with a balancer that sends one game's clients to one node, that node owns the game and no other
        node needs a copy of it)."""
        count = getattr(self.store, "running_games_of", None)
        creating = None
        try:
            if count is not None:  # the limit per address holds across the cluster, not per node
                # the address's creates under way on every node count too: the store counts a game once it is
                # stored, and creates sent at once to several nodes each saw the count before the others' (a
                # quota of 3 with 2 games held 8 after 10 creates at once through two nodes). A create stored
                # but not yet done counts twice for a moment: a refusal then, never a game past the quota.
                creating = await self._creating(client)
                mine = await count(client, self.clock() - self.settings.open_game_ttl)  # (expired open games aside)
                mine += creating[1] if creating is not None else 0
                if mine >= self.settings.max_games_per_client:
                    raise ServerError(429, "too_many_games", f"you already have {mine} running games on this "
                                      f"server (at most {self.settings.max_games_per_client})")
            live, seats = await super().create(request, client, lesson)
        finally:
            if creating is not None:
                with contextlib.suppress(Exception):
                    await self.redis.zrem(creating[0], creating[2])
        self._created += 1  # listed from the store: this node's lobby is built again at once
        self._let_followed_go(live)  # (not kept as a followed game is: this copy follows nothing)
        return live, seats

    async def _creating(self, client: str) -> tuple[str, int, str] | None:
        """Count a create of `client`'s under way in the cluster (until `CREATING_SECONDS` from now at most, should
        this node die meanwhile): its key, how many others are under way, and its own entry there (removed when it
        is done). None when Redis cannot be reached (the store's count alone holds then).

        Each create is an entry of its own with its own deadline (by the nodes' clocks, as `open_game_ttl` is),
        not one counter: a counter's expiry was pushed back by each later create, so that a create whose node
        died stayed counted for as long as its address tried to create at least once a minute (its refused tries
        included), and a create done after the counter had run out (Redis restarted, or lost the key) took it
        below zero, for good, so that as many creates at once were counted as none."""
        key = f"am:creating:{client}"
        entry = f"{self.node} {next(self._next_create)}"
        now = self.clock()
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.zremrangebyscore(key, "-inf", now)  # creates of nodes that died meanwhile: counted no more
                pipe.zadd(key, {entry: now + CREATING_SECONDS})
                pipe.zcard(key)
                pipe.pexpire(key, int(CREATING_SECONDS * 1000))  # (the key itself goes with its last entry)
                _, _, under_way, _ = await pipe.execute()
        except Exception:
            return None
        return key, int(under_way) - 1, entry

    async def take(self, game: ClusterReplication) -> bool:
        """Own the game when nobody does: lease, fence, catch up with the store. True when this node owns it."""
        if game.owner:
            return True
        live = game.live
        if self.games.get(live.id) is not live or live.id in self._taking:
            return False  # let go already (taking it would hold a lease for a game nobody here plays), or being taken
        await self._give_up_stale()  # an earlier copy's lease, held still, would keep this one from being owned
        self._taking.add(live.id)
        try:
            return await self._take(game, live)
        finally:
            self._taking.discard(live.id)

    async def _take(self, game: ClusterReplication, live: LiveGame) -> bool:
        floor = await self._epoch_of(live.id)
        epoch = await self.leases.acquire(live.id, floor)
        if epoch is None:
            return False
        self.held[live.id] = epoch  # from now on renewed, and not let go as a mere follower's game
        started = time.monotonic()
        try:
            if not await self.store.claim(live.id, epoch):
                raise LookupError("a newer epoch holds the game")
            stored = await self.store.load(live.id)
            await game.become_owner(epoch, stored)
            if self.games.get(live.id) is not live:
                # let go while it was taken over (its last client left, or it was dropped): its lease must not
                # stay held — renewed for ever by the watchdog for a copy that nobody plays, it kept every other
                # node from taking the game over, and their clients' commands were refused as `not_owner`
                raise LookupError("let go while it was taken over")
        except BaseException as failure:
            game.owner = False
            if self.held.get(live.id) == epoch:
                del self.held[live.id]
            with contextlib.suppress(Exception):
                await self.leases.release(live.id, epoch)
            if isinstance(failure, LookupError):
                return False
            raise
        await self.bus.unfollow(live.id)
        self.bus.publish(game_channel(live.id), {"t": "owner", "g": live.id, "node": self.node, "epoch": epoch})
        log.info("game %s: owned by %s (epoch %d, caught up in %.3f s)", live.id, self.node, epoch,
                 time.monotonic() - started)
        return True

    async def _epoch_of(self, game_id: str) -> int:
        epoch_of = getattr(self.store, "epoch_of", None)
        if epoch_of is None:
            return 0
        return int(await epoch_of(game_id) or 0)

    async def stored_seq(self, game_id: str) -> int | None:
        """The seq of the game's last stored command, as the store says."""
        last_seq = getattr(self.store, "last_seq", None)
        if last_seq is None:
            return None
        found: int | None = await last_seq(game_id)
        return found

    async def drop(self, game: ClusterReplication, why: str) -> None:
        """Let a game go that another node now owns: its clients are closed with 1012 and reconnect."""
        try:
            live = game.live
        except RuntimeError:  # let go already (this runs as a task of its own)
            return
        log.warning("game %s: dropped by %s (%s)", live.id, self.node, why)
        if self.games.get(live.id) is live:
            del self.games[live.id]
        epoch = self.held.pop(live.id, None)
        self.store.release(live.id)
        game.owner = False
        live.moved = True
        asyncio.get_running_loop().create_task(self._let_go(live, epoch))

    async def _let_go(self, live: LiveGame, epoch: int | None) -> None:
        await live.stop()
        if live.id not in self.games and live.id not in self._loading:
            # not while the game is here again (a client of it reconnected to this node, whose load follows the
            # game first): that copy would hear nothing of the game's owner any more, its clients stuck for good
            await self.bus.unfollow(live.id)
        if epoch is not None:
            with contextlib.suppress(Exception):
                await self.leases.release(live.id, epoch)

    def _creator_counted(self, stored: StoredGame) -> str | None:
        """A running game another node plays (or nobody, yet) is counted against this node's limits of running
        games as its creator's, like a game held here, before it is loaded: a node that has no room refuses it
        (`503 server_full`, close code 4409) rather than loading past its memory."""
        try:
            return read_meta(stored.record).client
        except DamagedGame:
            return None  # building it finds it damaged, and says so

    def release(self, live: LiveGame) -> None:
        """Let a game go once nobody here needs it: a finished one, or one this node only followed. Not while a
        load of it is under way (`_load`, taking it over): the client it is loaded for joins it once loaded, and
        would join a copy let go meanwhile (its owner task stopped, following nothing): it heard nothing more,
        and its commands waited unplayed until it was told `busy`.

        A running game this node follows is kept `follower_keep_seconds` after its last client here left (it
        goes on following the owner's updates meanwhile): a client reconnecting, or a spectator's reconnect loop,
        finds it here rather than loading it from the store again (44 ms of CPU a load on a `large` belt). One
        loaded only for a REST read (`LiveGame.passing`: nobody joined it) is let go at once, as before: each
        such load is charged to its reader (`lobby.charge_load`). A lesson's game is kept as a followed game is,
        read or joined: its player's browser asks for its goals after each move, through whichever node the
        balancer picks, and pays for one load per node, not one per move."""
        if live.connections or self.games.get(live.id) is not live or live.id in self._loading:
            return
        game = shared(live)
        if (game is not None and (game.owner or live.id in self.held) and live.running
                and not self._only_read(live, game)):
            return  # the owner keeps it (other nodes' clients may be playing it), and so does one taking it over
        if (game is not None and live.running and (not live.passing or live.meta.lesson) and not live.moved
                and live.id not in self._taking and self.settings.follower_keep_seconds > 0):
            self._keep_followed(live)
            return
        self._let_followed_go(live)

    def _keep_followed(self, live: LiveGame) -> None:
        """Let a followed game go `follower_keep_seconds` from now, unless a client of it is here again then."""
        timer = self._kept.pop(live.id, None)
        if timer is not None:
            timer.cancel()
        loop = asyncio.get_running_loop()
        self._kept[live.id] = loop.call_later(self.settings.follower_keep_seconds, self._kept_over, live)

    def _kept_over(self, live: LiveGame) -> None:
        """A followed game's keeping is over: let it go when nobody here needs it still."""
        if self.games.get(live.id) is not live:
            return  # let go already (dropped, or at rest): another copy's keeping, if any, is its own
        self._kept.pop(live.id, None)
        if live.connections or live.id in self._loading or self._readers.get(live.id):
            return  # a client came back: kept again once its last client here leaves
        game = shared(live)
        if (game is not None and (game.owner or live.id in self.held) and live.running
                and not self._only_read(live, game)):
            return  # taken over meanwhile: the owner keeps it
        self._let_followed_go(live)

    def _only_read(self, live: LiveGame, game: ClusterReplication) -> bool:
        """Whether this node owns `live` only because a REST read loaded it (`_load` takes a running game nobody
        owns): nobody joined it here (`LiveGame.passing`), no other node's clients watch it, nothing is in hand.
        Such a game is let go as a follower's copy loaded for a read is (a lesson's kept a while): kept as an
        owned game, it stayed in memory for `idle_game_seconds`, and one address reading the lobby's games that
        nobody played held 1,200 of them on a node at its history rate."""
        return (game.owner and live.passing and live.quiet and not game.remotely_watched()
                and live.id not in self._taking and not self._readers.get(live.id))

    def _let_followed_go(self, live: LiveGame) -> None:
        """Let go of a game nobody here needs (its lease too, if this node holds one)."""
        game = shared(live)
        timer = self._kept.pop(live.id, None)
        if timer is not None:
            timer.cancel()
        del self.games[live.id]
        epoch = self.held.pop(live.id, None)
        self.store.release(live.id)
        asyncio.get_running_loop().create_task(self._let_go(live, epoch) if game is not None else live.stop())

    def _rest(self, live: LiveGame) -> None:
        """Let go of a game nobody has been connected to, on this node or any other, for `idle_game_seconds`
        (`GameHub.rest_idle`): its lease given up (an owner kept its games for as long as it ran), so that the
        node a client of it next reaches loads it and takes it. Nothing is kept of it here: a node's lobby, its
        count of an address's games and its summaries read the shared store."""
        del self.games[live.id]
        epoch = self.held.pop(live.id, None)
        self.store.release(live.id)
        asyncio.get_running_loop().create_task(self._let_go(live, epoch))

    async def load_is_charged(self, game_id: str, seat: bool) -> bool:
        """Whether the reader of a game this node does not hold is charged for loading it, as the store's one row
        of it says (a millisecond; a load is about 50 ms of CPU on a large belt): for a finished game, as on one
        server; for a game in play (another node plays it) a REST read or a spectator's WebSocket, but not a
        seat's WebSocket (`seat`), for which loading it is the normal path of serving it (every player
        reconnecting after a node died). A lesson's goals too, which its player's browser asks for after each of
        its moves: the node keeps a lesson's game it loaded for a read (`release`), so its player pays once per
        node, while one address reading lessons' games nobody plays, each loaded from the store and let go, was
        charged nothing. A crowd watching one game through one node pays once: the node then follows it."""
        if game_id in self.games or game_id in self.damaged or len(game_id) > 64:
            return False
        try:
            found = await self._stored(game_id)
        except (StorageError, OSError):  # the load that follows fails alike, and answers for it
            return False
        if found is None:
            return False
        progress = found[1]
        if progress.status != "running":
            return True
        return not seat

    async def token_refused(self, game_id: str, token: str) -> bool:
        """Whether `token` plays no seat of a game in play this node does not hold, as the store's one row of it
        says (a millisecond): a WebSocket with a wrong token loaded the game here only to refuse it and let it go
        again at once, uncharged (loading for a WebSocket is the normal path of serving a game), 117 ms of CPU a
        connection on the largest accepted belt. False when it cannot be told so (a game held here, whose token
        is checked once acquired; a finished game, whose load is charged; the store away: loading answers)."""
        if game_id in self.games:
            return False
        meta = await self._running_meta(game_id)
        return meta is not None and seat_for_token(list(meta.seats), token) is None

    async def in_play(self, game_id: str) -> bool:
        """Whether `game_id` is in play, as this node has it when it plays it or, else, as the store's one row of
        it says (its commands not read: a copy this node follows may lag behind the owner's end of it). False when
        it cannot be told so: a damaged game (its seats may read its log), a row whose metadata cannot be read
        (reading the log says it is damaged), the store away (reading the log answers for it), none."""
        live = self.games.get(game_id)
        if live is not None and live.replication.plays_here:
            return live.running
        return await self._running_meta(game_id) is not None

    async def _running_meta(self, game_id: str) -> GameMeta | None:
        """The metadata of a game in play as the store's one row of it says (its commands not read), or None when
        it cannot be told so: a damaged game, an id no game has, a game not running, the store away, metadata that
        cannot be read (loading the game finds it damaged and answers so)."""
        if game_id in self.damaged or len(game_id) > 64:
            return None
        try:
            found = await self._stored(game_id)
        except (StorageError, OSError):
            return None
        if found is None or found[1].status != "running":
            return None
        try:
            return GameMeta.from_json(found[0].meta)
        except MetaError:
            return None

    async def _refuse_expired_past_quota(self, game_id: str) -> None:
        """Refuse (`503 server_full`) to load an open game that expired when its creator has as many running games
        as it may (`max_games_per_client`), as on one server: an expired open game counts no more for its
        creator's quota (`running_games_of`), and its link still opens it, so an address creating its quota each
        `open_game_ttl` and bringing the expired games back would run as many games as it liked."""
        count = getattr(self.store, "running_games_of", None)
        if count is None:
            return
        try:
            found = await self._stored(game_id)
        except (StorageError, OSError):
            return  # the load that follows fails alike, and answers for it
        if found is None:
            return
        record, progress = found
        open_since = self.clock() - self.settings.open_game_ttl
        if progress.status != "running" or progress.seq != 0 or record.created >= open_since:
            return
        try:
            client = GameMeta.from_json(record.meta).client
        except MetaError:
            return  # loading it finds the game damaged, and says so
        # the expired games of its creator that this node holds count too: the store counts them no more, and an
        # address opening every game it had let expire held them all, past its quota
        if await count(client, open_since) + self._held_expired_of(client) >= self.settings.max_games_per_client:
            raise ServerError(503, "server_full", "the address that created this game has as many running games "
                              "on this server as it may; try later")

    async def _stored(self, game_id: str) -> tuple[GameRecord, Progress] | None:
        """The game's record (its belt left out) and progress, as the store's lobby reads them; None when there
        is no such game (or its row is damaged: loading it says how)."""
        summaries = getattr(self.store, "summaries", None)
        if summaries is None:
            return None
        found = await summaries([game_id])
        return found[0] if found else None

    async def stored_summary(self, game_id: str) -> dict[str, Any] | None:
        """A game this node does not hold, as the lobby lists it, from the shared store (one row, no load)."""
        try:
            found = await self._stored(game_id)
        except (StorageError, OSError):
            return None  # loading it answers for the store being away
        if found is None:
            return None
        record, progress = found
        try:
            return _summary(record, progress, GameMeta.from_json(record.meta))
        except MetaError:
            return None  # loading it finds the game damaged and answers so

    # ----- the lobby -----
    def lobby_version(self) -> Hashable:
        """This node's own games and the games created here: the lobby lists every node's games too, which this
        node cannot tell have changed without reading them all, so its answer is kept for `lobby_cache_seconds` at
        most whatever other nodes do (`LobbyCache`). Built for every request, a lobby of 400 games cost a node 29 ms
        of CPU (a third of a second at the cap of games): a hundred browsers, each asking every 5 seconds, would
        have kept most of a core busy."""
        return (super().lobby_version(), self._created)

    async def lobby_games(self) -> list[dict[str, Any]]:
        """Every node's open and running games, from the shared store (this node's own from memory); expired open
        games are not listed, as on one server. They stay running in the store for good, and were read, parsed
        and listed at each building of the lobby: with 50,000 of them (an address creating its quota each
        `open_game_ttl`, or many addresses once), 1.46 s of a node's CPU a building, on its event loop, once a
        second for anyone asking."""
        summaries = getattr(self.store, "summaries", None)
        if summaries is None:
            return self.lobby()
        out = []
        # a game listed at the last building from the same record and progress (the store's, for a row that has
        # not changed: most have not) is listed with the same summary, not read again, and those new or changed are
        # read off the event loop: reading each game's meta and making its summary was 0.17 s of a node's CPU on
        # its event loop at 10,651 games, at each building
        found = await summaries(open_since=self.clock() - self.settings.open_game_ttl)
        # (the store gives a row unchanged since its last read as the same pair: `is` tells it unchanged)
        self._listed = await made_again([game for game in found if game[0].id not in self.games],
                                        lambda game: game[0].id, self._listed, operator.is_,
                                        lambda game: _listed_summary(*game))
        for record, progress in found:
            live = self.games.get(record.id)
            if live is not None:
                if not live.meta.lesson:  # a lesson's game is one person's practice, not listed
                    out.append(live.summary())
                continue
            listed = self._listed.get(record.id)
            # (a game let go here while the others were read is read now)
            summary = listed[1] if listed is not None else _listed_summary(record, progress)
            if summary is not None:
                out.append(summary)
        return out

    # ----- relaying -----
    async def relay(self, game: ClusterReplication, action: Action, by: dict[str, Any], ref: str | int | None,
                    sender: Connection | None) -> None:
        """Hand a client's command to the game's owner; take the game over when it has none."""
        live = game.live
        give_up = time.monotonic() + self.settings.lease_seconds * 3
        holder: tuple[str, int] | None = None
        while True:
            try:
                holder = await self.leases.owner(live.id)
                if holder is None or holder[0] == self.node:
                    if await self.take(game):
                        await live.commit(action, by, ref, sender)
                        return
                else:
                    message = {"t": "act", "g": live.id, "seat": by["seat"], "action": action.to_json(),
                               "ref": ref, "from": self.node, "c": self._remember(sender)}
                    if await self.bus.publish_now(node_channel(holder[0]), message):
                        return
                    # nobody listens on the owner's channel: it is gone, and its lease runs out soon
            except (StorageError, OSError, ConnectionError) as failure:
                self._fail(sender, "cluster_unavailable", f"the game's server cannot be reached ({failure}); "
                           "try again", ref)
                return
            except Exception as failure:
                if type(failure).__module__.startswith("redis"):
                    self._fail(sender, "cluster_unavailable", "the cluster's coordination (Redis) cannot be "
                               "reached; try again", ref)
                    return
                raise
            if time.monotonic() > give_up:
                log.warning("game %s: its owner (%s) cannot be reached from %s", live.id,
                            holder[0] if holder else "none", self.node)
                self._fail(sender, "owner_unreachable", "the server playing this game does not answer; try again",
                           ref)
                return
            await asyncio.sleep(0.1)

    def _fail(self, sender: Connection | None, code: str, message: str, ref: str | int | None) -> None:
        if sender is not None:
            sender.outbox.put(error(code, message, ref=ref))

    def _remember(self, sender: Connection | None) -> int:
        # a connection that has left (`forget` ran; its commands still waiting in the inbox are relayed and played
        # all the same) has nobody to answer: remembered again, it was kept for ever, and its game with it
        if sender is None or sender.outbox.closed:
            return 0
        # a number never given before, not the connection's `id()`: an id is its address, given again to a newer
        # connection once this one is freed, which would be told the owner's late answers to this one
        number = self._numbers.get(sender)
        if number is None:
            number = self._numbers[sender] = next(self._next_number)
            self._senders[number] = sender
        return number

    def forget(self, conn: Connection) -> None:
        """A connection has closed: answers for it are dropped."""
        number = self._numbers.pop(conn, None)
        if number is not None:
            del self._senders[number]

    def reply(self, node: str, conn_id: int, text: str) -> None:
        """Send an answer to a client of another node."""
        if node == self.node:
            conn = self._senders.get(conn_id)
            if conn is not None:
                conn.outbox.put(text)
            return
        self.bus.publish(node_channel(node), {"t": "reply", "c": conn_id, "m": text})

    def published(self, game: ClusterReplication, message: dict[str, Any]) -> None:
        """The owner accepted a command: every follower hears it."""
        self.bus.publish(game_channel(game.id), message)

    def presence(self, game: ClusterReplication) -> None:
        """Tell the game's owner how many clients watch it here (in the background)."""
        asyncio.get_running_loop().create_task(self._tell_owner([game]))

    async def _tell_owner(self, games: list[ClusterReplication]) -> None:
        if not games:
            return
        try:
            values = await self.redis.mget([lease_key(g.id) for g in games])
        except Exception:
            return
        for game, value in zip(games, values, strict=True):
            try:
                live = game.live
            except RuntimeError:  # let go meanwhile (a spectator came and went): nobody watches it here
                continue
            if game.owner or self.games.get(live.id) is not live:
                continue
            if value is None:
                if live.running and live.connections:
                    with contextlib.suppress(Exception):
                        await self.take(game)  # the owner is gone: the watchdog's takeover
                continue
            node = (value.decode() if isinstance(value, bytes) else str(value)).rpartition(" ")[0]
            if node != self.node:
                self.bus.publish(node_channel(node), {"t": "here", "g": live.id, "from": self.node,
                                                      "n": len(live.connections)})

    # ----- messages from other nodes -----
    def _on_message(self, channel: str, data: dict[str, Any]) -> None:
        kind = data.get("t")
        if kind == "reply":
            conn = self._senders.get(int(data["c"]))
            if conn is not None:
                conn.outbox.put(str(data["m"]))
            return
        live = self.games.get(str(data.get("g")))
        game = None if live is None else shared(live)
        if live is None or game is None:
            if kind == "act":
                self.reply(str(data["from"]), int(data["c"]), error(
                    "not_owner", "this game moved to another server meanwhile: try again", ref=data.get("ref")))
            return
        if kind == "update":
            game.follow(data)
        elif kind == "ended":
            game.follow_end(data)
        elif kind == "act":
            if not game.owner:
                self.reply(str(data["from"]), int(data["c"]), error(
                    "not_owner", "this game moved to another server meanwhile: try again", ref=data.get("ref")))
                return
            sender = game.remote_sender(int(data["seat"]), str(data["from"]), int(data["c"]))
            live.enqueue(sender, action_from_json(data["action"], "relayed act"), data.get("ref"))
        elif kind == "seq":
            game.behind(int(data["seq"]))
        elif kind == "here":
            if game.owner:
                game.watched_by(str(data["from"]), int(data["n"]))
        elif kind == "owner":
            if data.get("node") == self.node:
                return
            if game.owner and int(data["epoch"]) > game.epoch:
                asyncio.get_running_loop().create_task(self.drop(game, f"{data['node']} took it over"))
            elif not game.owner:
                self.presence(game)

    def _after_outage(self) -> None:
        """Redis is back: updates may have been lost meanwhile; every followed game asks the store."""
        for live in list(self.games.values()):
            game = shared(live)
            if game is not None and not game.owner:
                game.catch_up(None)

    # ----- the store's health -----
    async def _probe(self) -> None:
        """Ask the store a trivial query now and then (its own task: a store that does not answer holds it for
        the read deadline, never the watchdog's renewals); `store_available` is the last answer."""
        ping = self.store.ping  # type: ignore[attr-defined]
        while True:
            try:
                await ping()
            except asyncio.CancelledError:
                raise
            except Exception as failure:
                if self.store_available:
                    log.warning("node %s: the store does not answer (%s): /api/health says so", self.node, failure)
                self.store_available = False
            else:
                if not self.store_available:
                    log.warning("node %s: the store answers again", self.node)
                self.store_available = True
            await asyncio.sleep(STORE_PROBE_SECONDS)

    # ----- the watchdog -----
    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self._tick)
            try:
                await self._renew()
                self._beat()
                followed = [game for live in self.games.values() if (game := shared(live)) is not None
                            and not game.owner and live.connections and live.running]
                await self._tell_owner(followed)
            except asyncio.CancelledError:
                raise
            except Exception as failure:
                log.debug("watchdog: %s", failure)

    def _beat(self) -> None:
        """Tell the followers of each owned game its seq. An update lost on the way (Redis restarting, a publish
        failing) shows as a gap only when a later one arrives, and none does when the next move is up to a
        client who has not seen it: this beat lets such a follower notice within a tick and reload."""
        for live in self.games.values():
            game = shared(live)
            if game is not None and game.owner and game.remotely_watched():
                self.bus.publish(game_channel(live.id), {"t": "seq", "g": live.id, "seq": live.seq})

    def _stale(self, game_id: str) -> bool:
        """Whether this node holds the game's lease for no copy it plays: the copy was let go (a path that lets
        games go without `drop` or `release`: an open game expired, say) and no takeover of it is under way. Such
        a lease, renewed for ever, kept every other node from taking the game over (their clients' commands
        refused as `not_owner`), and this node too, should the game be loaded here again."""
        if game_id not in self.held or game_id in self._taking:
            return False
        live = self.games.get(game_id)
        game = None if live is None else shared(live)
        return game is None or not game.owner

    async def _give_up_stale(self) -> None:
        """Give up the leases of games this node no longer plays (`_stale`)."""
        for game_id in [g for g in self.held if self._stale(g)]:
            epoch = self.held.pop(game_id)
            self.store.release(game_id)
            log.warning("game %s: let go by %s without its lease; the lease is given up", game_id, self.node)
            with contextlib.suppress(Exception):
                await self.leases.release(game_id, epoch)

    async def _renew(self) -> None:
        await self._give_up_stale()
        held = dict(self.held)
        try:
            still = await self.leases.renew(held)
        except Exception as failure:  # Redis away: keep playing; the store's fence stays the judge
            log.debug("leases not renewed: %s", failure)
            return
        for game_id, ok in still.items():
            if ok:
                continue
            live = self.games.get(game_id)
            game = None if live is None else shared(live)
            if game is None or self.held.get(game_id) != held[game_id]:
                continue
            holder = None
            with contextlib.suppress(Exception):
                holder = await self.leases.owner(game_id)
            if holder is None:  # the lease is gone (Redis lost it): take it again, with a new epoch
                epoch = await self.leases.acquire(game_id, max(held[game_id], await self._epoch_of(game_id)))
                if epoch is not None and await self.store.claim(game_id, epoch):
                    self.held[game_id] = game.epoch = epoch
                    continue
            await self.drop(game, "its lease was lost")


def _listed_summary(record: GameRecord, progress: Progress) -> dict[str, Any] | None:
    """A game of another node as the lobby lists it (`_summary`); None for a lesson's game (one person's practice)
    and a damaged one (logged: listed by no node rather than breaking the lobby of all)."""
    try:
        meta = GameMeta.from_json(record.meta)
    except MetaError as damaged:
        log.error("game %s: %s", record.id, damaged)
        return None
    return None if meta.lesson else _summary(record, progress, meta)


def _summary(record: GameRecord, progress: Progress, meta: GameMeta) -> dict[str, Any]:
    """A game no client of this node is connected to, as the lobby lists it, from its stored record (the belt
    left out but its asteroids' count) and progress."""
    seats = [{**seat, "connected": 0} for seat in meta.seats_public()]
    status = "open" if progress.seq == 0 and progress.status == "running" else progress.status
    return {"id": record.id, "status": status, "seq": progress.seq, "round": progress.round, "turn": progress.turn,
            "rules": meta.rules, "belt": meta.belt_name, "asteroids": len(record.belt.get("asteroids", ())),
            "turn_seconds": meta.turn_seconds, "created": record.created, "seats": seats}
