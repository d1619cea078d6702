"""The bus after Redis restarted: a node's first publication, made on a pooled connection the old Redis had,
still arrives.

Redis restarting empty closes every connection of every node. Messages published while it is away are lost
(pub/sub delivers at most once; followers reload from the store when they notice); what these tests pin down is
that nothing is lost *after* it is back without anybody noticing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from asteroid_mining.server.cluster.bus import Bus, game_channel
from asteroid_mining.server.cluster.node import connect_redis
from tests.services import Redis


@pytest.fixture
def server() -> Iterator[Redis]:
    running = Redis().start()
    try:
        yield running
    finally:
        running.close()


async def until(condition: Any, timeout: float, what: str) -> None:
    """Wait (bounded) for `condition()`."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:g} s")
        await asyncio.sleep(0.02)


class Listener:
    """Another node: a bus that follows one game and keeps what it hears."""

    def __init__(self, url: str) -> None:
        self.redis = connect_redis(url)
        self.heard: list[dict[str, Any]] = []
        self.bus = Bus(self.redis, "listener", lambda channel, data: self.heard.append(data))

    async def start(self, game: str) -> None:
        await self.bus.start()
        await self.bus.follow(game)

    async def close(self) -> None:
        await self.bus.close()
        await self.redis.aclose()


def test_a_message_published_after_redis_restarted_arrives(server: Redis) -> None:
    async def scenario() -> None:
        sender_redis = connect_redis(server.url)
        # only the sending half of a node: its publications go through the client's pool, whose idle
        # connection (left there by the first message) a restarted Redis has closed
        sender = Bus(sender_redis, "sender", lambda channel, data: None)
        sending = asyncio.create_task(sender._send())
        listener = Listener(server.url)
        try:
            await listener.start("g")
            deadline = time.monotonic() + 10
            while not listener.heard:  # until the subscription is in place: what nobody hears is dropped
                assert time.monotonic() < deadline, "the listener heard nothing"
                sender.publish(game_channel("g"), {"t": "seq", "g": "g", "seq": 0})
                await asyncio.sleep(0.05)
            await listener.close()

            server.stop()
            server.start()
            listener = Listener(server.url)
            await listener.start("g")
            heard_before = len(listener.heard)
            probe = connect_redis(server.url)
            try:
                deadline = time.monotonic() + 10
                while await probe.pubsub_numsub(game_channel("g")) != [(game_channel("g").encode(), 1)]:
                    assert time.monotonic() < deadline, "the listener did not subscribe again"
                    await asyncio.sleep(0.02)
            finally:
                await probe.aclose()

            sender.publish(game_channel("g"), {"t": "update", "g": "g", "seq": 1})
            await until(lambda: any(m.get("seq") == 1 for m in listener.heard[heard_before:]), 10,
                        "the first update published after Redis restarted arriving")
        finally:
            sending.cancel()
            await listener.close()
            await sender_redis.aclose()

    asyncio.run(scenario())
