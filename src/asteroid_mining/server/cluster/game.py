"""`ClusterGame`: a live game on one node of a cluster, which either owns it or follows it.

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
from ..live import Connection, LiveGame, Prepared
from ..outbox import Message, Outbox
from ..seats import Seat

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


class ClusterGame(LiveGame):
    """A live game of a cluster node (see the module's documentation)."""

    def __init__(self, *args: Any, hub: ClusterHub, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hub = hub
        self.owner = False
        self.epoch = 0
        self.remote_deadline: float | None = None
        self.watchers: dict[str, tuple[int, float]] = {}
        """Other nodes' connections to this game (node -> count, when told): the owner's clock runs for them."""
        self._buffer: list[dict[str, Any]] | None = None  # updates arriving while catching up from the store
        self._catching_up: asyncio.Task[None] | None = None

    async def abandon(self, seat: Seat) -> bool:
        """End the game as `abandoned`: only its owner may (it alone writes the game); a follower asks to be tried
        again, by when the game may have come to this node."""
        if not self.owner:
            raise ServerError(503, "not_owner", "another server of the cluster plays this game at the moment; "
                              "try again")
        ended = await super().abandon(seat)
        if ended:  # the followers' clients are told too
            self.hub.published(self, {"t": "ended", "g": self.id, "seq": self.seq, "seat": seat.number})
        return ended

    # ----- roles -----
    async def become_owner(self, epoch: int, stored: StoredGame | None) -> None:
        """Play the game from now on (the lease and the store's claim are this node's): catch up with the store
        first, so that nothing a previous owner stored is missed."""
        self.epoch = epoch
        if stored is not None:
            self.remember(stored.commands)
        await self._reload()
        self.owner = True
        self._restart_clock()
        self._wake.set()

    # ----- what differs on a follower -----
    @property
    def deadline(self) -> float | None:
        """The owner's deadline (a follower repeats what the owner said)."""
        return super().deadline if self.owner else self.remote_deadline

    def _delay(self) -> float | None:
        return super()._delay() if self.owner else None  # the clock and the bots run on the owner only

    def watched(self) -> bool:
        """Somebody is connected, here or (as other nodes have said lately) elsewhere."""
        return bool(self.connections) or self.remotely_watched()

    def join(self, conn: Connection) -> None:
        """Add a connection; a follower tells the owner that somebody watches."""
        super().join(conn)
        if not self.owner:
            self.hub.presence(self)

    def leave(self, conn: Connection) -> None:
        """Remove a connection (and forget it as a sender of relayed commands)."""
        super().leave(conn)
        self.hub.forget(conn)
        if not self.owner:
            self.hub.presence(self)

    def watched_by(self, node: str, count: int) -> None:
        """Another node has `count` connections to this game: the clock runs while anybody watches."""
        before = self.watched()
        self.watchers[node] = (count, time.monotonic())
        if not before and self.watched():
            self._restart_clock()  # the clock stood still while nobody was here
        self._wake.set()

    async def _commit(self, action: Action, by: dict[str, Any], ref: str | int | None = None,
                      sender: Connection | None = None) -> None:
        if not self.owner:
            await self.hub.relay(self, action, by, ref, sender)
            return
        await super()._commit(action, by, ref, sender)  # a ref sent again is acknowledged there, not played

    def _announce(self, seq: int, command: Command, ref: str | int | None, prepared: Prepared) -> Message:
        message = super()._announce(seq, command, ref, prepared)
        if self.owner:
            self.hub.published(self, {"t": "update", "g": self.id, "seq": seq, "action": command.action,
                                      "by": command.by, "at": command.at, "ref": ref, "deadline": self.deadline})
        return message

    async def _reload(self) -> None:
        await super()._reload()
        if self.broken:  # the store cannot be read now: let the game go; clients reconnect and load it again
            self.broken = False
            await self.hub.drop(self, "the store cannot be read")

    async def lost(self) -> None:
        """The store has fenced this node off: another node owns the game. Let it go; clients reconnect."""
        await self.hub.drop(self, "the store refused this node's command")

    # ----- following -----
    def follow(self, update: dict[str, Any]) -> None:
        """Apply a command the owner has published (ignoring what this copy has; catching up on a gap)."""
        if self.owner:
            return
        if self._buffer is not None:
            self._buffer.append(update)
            return
        seq = int(update["seq"])
        if seq <= self.seq:
            return
        if seq > self.seq + 1:
            self.catch_up(update)
            return
        game = self.game
        action = action_from_json(update["action"], f"update {seq}")
        try:
            events = game.apply(action)
        except Exception:  # this copy disagrees with the owner: take the store's word for it
            log.exception("game %s: the owner's command %d does not apply here; reloading", self.id, seq)
            self.catch_up(None)
            return
        self.remote_deadline = update.get("deadline")
        command = Command(seq, update["action"], update["by"], update["at"])
        prepared = self._prepare(seq, command, events, update.get("ref"))
        # as the owner sends them: each seat with its own choices when they changed
        self._deliver(self._announce(seq, command, update.get("ref"), prepared), prepared)

    def follow_end(self, message: dict[str, Any]) -> None:
        """The owner has abandoned the game (stored): over here as well, and this node's clients are told."""
        if not self.owner and not self.abandoned:
            self.finish(int(message["seat"]), int(message["seq"]))

    def behind(self, seq: int) -> None:
        """The owner says the game is at `seq`: a follower that has less missed an update (pub/sub delivers at
        most once), maybe the last one before a turn of its own clients, so no later update would show the gap:
        it reloads from the store."""
        if not self.owner and seq > self.seq:
            self.catch_up(None)

    def remotely_watched(self) -> bool:
        """Another node has said lately that it has clients of this game (so it follows the game's updates)."""
        now = time.monotonic()
        return any(count > 0 and now - seen < self.hub.presence_ttl for count, seen in self.watchers.values())

    def catch_up(self, pending: dict[str, Any] | None) -> None:
        """Reload from the store (in the background); updates arriving meanwhile are applied after it."""
        if self._catching_up is not None:
            if pending is not None and self._buffer is not None:
                self._buffer.append(pending)
            return
        self._buffer = [pending] if pending is not None else []
        self._catching_up = asyncio.get_running_loop().create_task(self._catch_up())

    async def _catch_up(self) -> None:
        try:
            await self._reload()
        finally:
            buffered, self._buffer = self._buffer or [], None
            self._catching_up = None
        for update in sorted(buffered, key=lambda u: int(u["seq"])):
            self.follow(update)

    def sync(self, conn: Connection, after: int) -> None:
        """Answer from this copy; a follower first asks the store whether it has missed anything."""
        if self.owner:
            super().sync(conn, after)
            return
        asyncio.get_running_loop().create_task(self._sync_follower(conn, after))

    async def _sync_follower(self, conn: Connection, after: int) -> None:
        with contextlib.suppress(Exception):
            stored = await self.hub.stored_seq(self.id)
            if stored is not None and stored > self.seq:
                self.catch_up(None)
                if self._catching_up is not None:
                    await asyncio.shield(self._catching_up)
        super().sync(conn, after)

    def remote_sender(self, seat_number: int, node: str, conn_id: int) -> Connection:
        """A connection standing for a client of another node (its answers go back over the bus)."""
        seat = next((s for s in self.seats if s.number == seat_number), None)
        return Connection(seat, RemoteOutbox(lambda text: self.hub.reply(node, conn_id, text)))
