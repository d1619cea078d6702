"""The bus: messages between the nodes of a cluster over Redis pub/sub.

Two kinds of channel: each node listens on its own (`am:node:{node}`: commands relayed to the games it owns,
answers for its clients, who is watching its games), and on the channel of each game it follows
(`am:game:{game}`: every accepted command of the game, in order, from its owner). Pub/sub delivers at most once:
what is lost while a node or Redis is away is made good from the store (a follower that sees a gap in the seqs
reloads; a client's `sync` asks the store).

Messages are compact JSON objects with a type `t`. Publishing never raises: a message that cannot be sent is
logged and dropped, as pub/sub itself would drop it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson

log = logging.getLogger(__name__)

Handler = Callable[[str, dict[str, Any]], Awaitable[None] | None]
"""Called with the channel and the decoded message."""

MAX_OUTGOING = 10_000
"""Messages a node keeps waiting to be published, at most; past it a new message is dropped, as pub/sub drops
what a node misses (a follower notices from the owner's seq beat and reloads from the store). While Redis does not
answer (paused, or a network that drops its packets) each batch of 256 waits out the client's timeout twice (4 s),
and the messages of every command an owner played waited behind it, 4 KB each (orjson's buffer): unbounded, an
owner playing 150 commands a second grew by 14 MB in 30 s, for as long as Redis was away (4 MB a second at 1,000
commands a second)."""


def node_channel(node: str) -> str:
    """The channel a node listens on."""
    return f"am:node:{node}"


def game_channel(game_id: str) -> str:
    """The channel of a game's updates."""
    return f"am:game:{game_id}"


class Bus:
    """A node's publishing connection and its subscriptions."""

    def __init__(self, redis: Any, node: str, handle: Handler) -> None:
        self.redis = redis
        self.node = node
        self._handle = handle
        self._pubsub = redis.pubsub(ignore_subscribe_messages=True)
        self._channels: set[str] = {node_channel(node)}
        self._task: asyncio.Task[None] | None = None
        self._outgoing: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue(MAX_OUTGOING)
        self._dropping = False
        """Messages are being dropped (`MAX_OUTGOING` wait): said once in the log, until a batch goes out again."""
        self._sender: asyncio.Task[None] | None = None
        self.healthy = True
        """False after a failure to reach Redis, until a message could be read again."""
        self.on_reconnect: Callable[[], None] = lambda: None
        """Called when Redis is back after a failure (messages may have been lost meanwhile)."""

    async def start(self) -> None:
        """Subscribe to this node's channel and start reading and sending."""
        await self._pubsub.subscribe(*self._channels)
        self._task = asyncio.create_task(self._read(), name="bus-reader")
        self._sender = asyncio.create_task(self._send(), name="bus-sender")

    async def close(self) -> None:
        """Stop reading and sending."""
        for task in (self._task, self._sender):
            if task is not None:
                while not task.done():  # again until it has ended: the Redis client may swallow a cancellation
                    task.cancel()
                    await asyncio.wait({task}, timeout=0.1)
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()

    async def follow(self, game_id: str) -> None:
        """Receive the game's updates from now on."""
        channel = game_channel(game_id)
        if channel not in self._channels:
            self._channels.add(channel)
            with contextlib.suppress(Exception):  # Redis away: the subscription is made when it reconnects
                await self._pubsub.subscribe(channel)

    async def unfollow(self, game_id: str) -> None:
        """Stop receiving the game's updates."""
        channel = game_channel(game_id)
        if channel in self._channels:
            self._channels.discard(channel)
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(channel)

    def publish(self, channel: str, message: dict[str, Any]) -> None:
        """Send a message (in order with this node's others); never waits, never raises: dropped when
        `MAX_OUTGOING` messages wait already (Redis does not take them)."""
        try:
            self._outgoing.put_nowait((channel, orjson.dumps(message)))
        except asyncio.QueueFull:
            if not self._dropping:
                log.warning("%d messages wait for Redis: new ones are dropped until it takes them", MAX_OUTGOING)
            self._dropping = True

    async def publish_now(self, channel: str, message: dict[str, Any]) -> int:
        """Send a message and wait: how many nodes received it (0: nobody listens there); raises when Redis
        cannot be reached."""
        return int(await self.redis.publish(channel, orjson.dumps(message)))

    async def _send(self) -> None:
        while True:
            channel, data = await self._outgoing.get()
            batch = [(channel, data)]
            while not self._outgoing.empty() and len(batch) < 256:
                batch.append(self._outgoing.get_nowait())
            try:
                await self._publish_batch(batch)
                self._dropping = False
            except Exception:
                # a pipeline is not retried by the client: after Redis restarted, each idle pooled connection
                # fails once ("closed by server") although Redis is back and the followers have subscribed
                # again, and a message lost then is one no follower knows it missed. Drop the idle connections
                # (all stale alike) and send once more on a fresh one.
                with contextlib.suppress(Exception):
                    await self.redis.connection_pool.disconnect(inuse_connections=False)
                try:
                    await self._publish_batch(batch)
                    self._dropping = False
                except Exception as failure:
                    log.warning("could not publish %d messages (%s); they are lost", len(batch), failure)

    async def _publish_batch(self, batch: list[tuple[str, bytes]]) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            for channel, data in batch:
                pipe.publish(channel, data)
            await pipe.execute()

    async def _read(self) -> None:
        while True:
            try:
                # after Redis came back, subscribe again to everything: whatever a `follow` meanwhile subscribed
                # to on the new connection, this node's own channel among the rest
                current = {c.decode() if isinstance(c, bytes) else str(c) for c in self._pubsub.channels}
                missing = self._channels - current
                if missing:
                    await self._pubsub.subscribe(*missing)
                message = await self._pubsub.get_message(timeout=1.0)
                if not self.healthy:
                    self.healthy = True
                    log.info("Redis is reachable again")
                    self.on_reconnect()
            except asyncio.CancelledError:
                raise
            except Exception as failure:
                if self.healthy:
                    log.warning("Redis cannot be reached (%s); retrying", failure)
                self.healthy = False
                with contextlib.suppress(Exception):
                    await self._pubsub.reset()
                self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
                await asyncio.sleep(0.5)
                continue
            if message is None or message.get("type") != "message":
                continue
            try:
                channel = message["channel"].decode()
                data = orjson.loads(message["data"])
                result = self._handle(channel, data)
                if result is not None:
                    await result
            except Exception:
                log.exception("a bus message could not be handled")
