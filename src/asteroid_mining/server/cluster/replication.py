"""`ClusterReplication`: how a live game on one node of a cluster is shared — the node either owns the game or
follows it. The game (`LiveGame`) is the same as on a single server; this object is given to it when it is made
and answers its hooks (`live.Replication`).

The **owner** plays the game as a single server does (one owner task, the store's append before anything is
told), runs its turn clock and bot seats, and publishes every accepted command on the game's channel. It keeps
each command's `ref` with the command (in `by`), so that a command sent again after its acknowledgement was lost
(the client reconnected, maybe to another node) is answered with an `ack` of its seq instead of being played
twice — also by the next owner, which reads the refs back from the log.

A **follower** serves clients connected to a node that does not own the game: it keeps its own copy of the game
up to date by applying the owner's published commands (the engine is deterministic, so it sends its clients the
very updates the owner's clients get), and relays its clients' commands to the owner. When there is no owner
(its node died and its lease ran out), the follower takes the game over itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...rules import Action, action_from_json
from ...storage import Command, StoredGame
from ..errors import ServerError
from ..live import Connection, LiveGame, Replication
from ..outbox import Message, Outbox

if TYPE_CHECKING:
    from .node import ClusterHub

log = logging.getLogger(__name__)


class RemoteOutbox(Outbox):
    """What the owner sends to a client connected to another node: published to that node."""

    __slots__ = ("_deliver",)

    def __init__(self, deliver: Callable[[str], None]) -> None:
        super().__init__(1, self._never)
        self._deliver = deliver

    @staticmethod
    async def _never(message: Message) -> None:  # pragma: no cover - put_message never sends through it
        raise AssertionError("a remote outbox sends through the bus")

    def put_message(self, message: Message) -> None:
        """Hand the message's text to the bus."""
        self._deliver(str(message["text"]))


class ClusterReplication(Replication):
    """A live game's part in the cluster (see the module's documentation): owner or follower."""

    def __init__(self, hub: ClusterHub) -> None:
        self.hub = hub
        self.owner = False
        self.epoch = 0
        self.remote_deadline: float | None = None
        self.watchers: dict[str, tuple[int, float]] = {}
        """Other nodes' connections to this game (node -> count, when told): the owner's clock runs for them."""
        self._buffer: list[dict[str, Any]] | None = None  # updates arriving while catching up from the store
        self._catching_up: asyncio.Task[None] | None = None
        self._taking = False
        """True while this node takes the game over (`become_owner`): the copy is the store's to set, not a
        follower's catching up nor the old owner's updates."""

    @property
    def id(self) -> str:
        """The game's id."""
        return self.live.id

    # ----- the game's hooks -----
    @property
    def plays_here(self) -> bool:
        """Only the owner plays the game: applies and stores commands, runs the clock and the bots."""
        return self.owner

    def deadline(self, own: float | None) -> float | None:
        """The owner's deadline (a follower repeats what the owner said)."""
        return own if self.owner else self.remote_deadline

    def watched_elsewhere(self) -> bool:
        """Other nodes have said lately that they have clients of this game."""
        return self.remotely_watched()

    async def relay(self, action: Action, by: dict[str, Any], ref: str | int | None,
                    sender: Connection | None) -> None:
        """A follower hands the command to the owner (or takes the game over when it has none)."""
        await self.hub.relay(self, action, by, ref, sender)

    def may_end(self) -> None:
        """Only the owner may end the game (it alone writes it); a follower asks to be tried again, by when the game
        may have come to this node."""
        if not self.owner:
            raise ServerError(503, "not_owner", "another server of the cluster plays this game at the moment; "
                              "try again")

    def ended(self, seat_number: int) -> None:
        """The followers' clients are told too."""
        self.hub.published(self, {"t": "ended", "g": self.id, "seq": self.live.seq, "seat": seat_number})

    def announced(self, seq: int, command: Command, ref: str | int | None) -> None:
        """The owner publishes every stored command to the followers (a follower's own announcements are of the
        owner's commands)."""
        if self.owner:
            self.hub.published(self, {"t": "update", "g": self.id, "seq": seq, "action": command.action,
                                      "by": command.by, "at": command.at, "ref": ref,
                                      "deadline": self.live.deadline})

    def joined(self, conn: Connection) -> None:
        """A follower tells the owner that somebody watches."""
        if not self.owner:
            self.hub.presence(self)

    def left(self, conn: Connection) -> None:
        """Forget the connection as a sender of relayed commands; a follower tells the owner."""
        self.hub.forget(conn)
        if not self.owner:
            self.hub.presence(self)

    async def reloaded(self) -> None:
        """When the store cannot be read now, let the game go: clients reconnect and load it again."""
        if self.live.broken:
            self.live.broken = False
            await self.hub.drop(self, "the store cannot be read")

    async def lost(self) -> None:
        """The store has fenced this node off: another node owns the game. Let it go; clients reconnect."""
        await self.hub.drop(self, "the store refused this node's command")

    def sync(self, conn: Connection, after: int) -> None:
        """Answer from this copy; a follower first asks the store whether it has missed anything."""
        if self.owner:
            self.live.answer_sync(conn, after)
            return
        asyncio.get_running_loop().create_task(self._sync_follower(conn, after))

    async def _sync_follower(self, conn: Connection, after: int) -> None:
        with contextlib.suppress(Exception):
            stored = await self.hub.stored_seq(self.id)
            if stored is not None and stored > self.live.seq:
                self.catch_up(None)
                catching_up = self._catching_up
                if catching_up is not None:
                    # waited for, not awaited: a catching up cancelled because this node takes the game over
                    # meanwhile must not cancel the answer too (the client would wait for it for ever)
                    await asyncio.wait({catching_up})
        self.live.answer_sync(conn, after)

    # ----- roles -----
    async def become_owner(self, epoch: int, stored: StoredGame | None) -> None:
        """Play the game from now on (the lease and the store's claim are this node's): catch up with the store
        first, so that nothing a previous owner stored is missed.

        A follower's catching up still under way is cancelled first, and none is started meanwhile: its read of
        the store may be older than this one, and finishing after it, it set the owner's copy back to what it had
        read — after the owner had played a command on its copy (under load: seen as a `not_your_turn` for a
        player whose turn it was, the owner's copy one command behind what it had announced)."""
        self.epoch = epoch
        live = self.live
        self._taking = True
        try:
            await self._stop_catching_up()
            if stored is not None:
                live.remember(stored.commands)
            await live.reload()
            if stored is not None and stored.progress.status == "abandoned" and not live.abandoned:
                # abandoned while this node followed it, the owner's `ended` lost on the bus (pub/sub drops, and
                # so does `MAX_OUTGOING`): the seq stays where it was, so nothing showed a gap, and the game was
                # played on over the abandon by this new owner. Over here too; the clients are told (by seat 0:
                # the store keeps no word of who abandoned it).
                live.finish(0, live.seq)
        finally:
            self._taking = False
        self.owner = True
        live.restart_clock()
        live.wake()

    async def _stop_catching_up(self) -> None:
        """Cancel a catching up under way and wait until it has ended (cancelled again until then: a library it
        awaits may swallow a cancellation); the updates it had kept aside are dropped with it."""
        task = self._catching_up
        if task is None:
            return
        while not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=0.1)
        self._catching_up = None
        self._buffer = None

    def watched_by(self, node: str, count: int) -> None:
        """Another node has `count` connections to this game: the clock runs while anybody watches."""
        live = self.live
        before = live.watched()
        self.watchers[node] = (count, time.monotonic())
        if not before and live.watched():
            live.restart_clock()  # the clock stood still while nobody was here
        live.wake()

    def remotely_watched(self) -> bool:
        """Another node has said lately that it has clients of this game (so it follows the game's updates)."""
        now = time.monotonic()
        return any(count > 0 and now - seen < self.hub.presence_ttl for count, seen in self.watchers.values())

    # ----- following -----
    def follow(self, update: dict[str, Any]) -> None:
        """Apply a command the owner has published (ignoring what this copy has; catching up on a gap). Not while
        this node takes the game over: the store it reads then has every command the old owner could publish."""
        if self.owner or self._taking:
            return
        if self._buffer is not None:
            self._buffer.append(update)
            return
        live = self.live
        seq = int(update["seq"])
        if seq <= live.seq:
            return
        if seq > live.seq + 1:
            self.catch_up(update)
            return
        action = action_from_json(update["action"], f"update {seq}")
        try:
            events = live.game.apply(action)
        except Exception:  # this copy disagrees with the owner: take the store's word for it
            log.exception("game %s: the owner's command %d does not apply here; reloading", self.id, seq)
            self.catch_up(None)
            return
        self.remote_deadline = update.get("deadline")
        command = Command(seq, update["action"], update["by"], update["at"])
        prepared = live.prepare(seq, command, events, update.get("ref"))
        # as the owner sends them: each seat with its own choices when they changed
        live.deliver(live.announce(seq, command, update.get("ref"), prepared), prepared)

    def follow_end(self, message: dict[str, Any]) -> None:
        """The owner has abandoned the game (stored): over here as well, and this node's clients are told."""
        if not self.owner and not self.live.abandoned:
            self.live.finish(int(message["seat"]), int(message["seq"]))

    def behind(self, seq: int) -> None:
        """The owner says the game is at `seq`: a follower that has less missed an update (pub/sub delivers at
        most once), maybe the last one before a turn of its own clients, so no later update would show the gap:
        it reloads from the store."""
        if not self.owner and seq > self.live.seq:
            self.catch_up(None)

    def catch_up(self, pending: dict[str, Any] | None) -> None:
        """Reload from the store (in the background); updates arriving meanwhile are applied after it. Only a
        follower does: the owner's copy is the store's, and one taking the game over reads the store itself."""
        if self.owner or self._taking:
            return
        if self._catching_up is not None:
            if pending is not None and self._buffer is not None:
                self._buffer.append(pending)
            return
        self._buffer = [pending] if pending is not None else []
        self._catching_up = asyncio.get_running_loop().create_task(self._catch_up())

    async def _catch_up(self) -> None:
        try:
            await self.live.reload()
        finally:
            buffered, self._buffer = self._buffer or [], None
            self._catching_up = None
        for update in sorted(buffered, key=lambda u: int(u["seq"])):
            self.follow(update)

    def remote_sender(self, seat_number: int, node: str, conn_id: int) -> Connection:
        """A connection standing for a client of another node (its answers go back over the bus)."""
        seat = next((s for s in self.live.seats if s.number == seat_number), None)
        return Connection(seat, RemoteOutbox(lambda text: self.hub.reply(node, conn_id, text)))


def shared(live: LiveGame) -> ClusterReplication | None:
    """The cluster's part of a live game (None for a game that is not shared so)."""
    replication = live.replication
    return replication if isinstance(replication, ClusterReplication) else None
