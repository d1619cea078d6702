"""The bus after Redis restarted: a node's first publication, made on a pooled connection the old Redis had,
still arrives; and a follower that lost an update all the same learns of it from the owner's seq beat.

Redis restarting empty closes every connection of every node. Messages published while it is away are lost
(pub/sub delivers at most once; followers reload from the store when they notice); what these tests pin down is
that nothing is lost *after* it is back without anybody noticing."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asteroid_mining.rules import action_from_json
from asteroid_mining.server.cluster.bus import Bus, game_channel
from asteroid_mining.server.cluster.node import ClusterHub, connect_redis
from asteroid_mining.server.cluster.replication import shared
from asteroid_mining.server.config import Settings
from asteroid_mining.server.live import Connection
from asteroid_mining.server.outbox import Outbox
from asteroid_mining.server.schemas import CreateGame
from asteroid_mining.server.stores import make_hub, make_store
from tests.server.helpers import PLANS, as_action, two_loops_belt, winning_seed
from tests.services import Postgres, Redis


@pytest.fixture
def server() -> Iterator[Redis]:
    with Redis().start() as running:
        yield running


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
            deadline = time.monotonic() + 60
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
                deadline = time.monotonic() + 60
                while await probe.pubsub_numsub(game_channel("g")) != [(game_channel("g").encode(), 1)]:
                    assert time.monotonic() < deadline, "the listener did not subscribe again"
                    await asyncio.sleep(0.02)
            finally:
                await probe.aclose()

            sender.publish(game_channel("g"), {"t": "update", "g": "g", "seq": 1})
            await until(lambda: any(m.get("seq") == 1 for m in listener.heard[heard_before:]), 60,
                        "the first update published after Redis restarted arriving")
        finally:
            sending.cancel()
            await listener.close()
            await sender_redis.aclose()

    asyncio.run(scenario())



def test_a_follower_that_lost_the_last_update_catches_up(server: Redis, tmp_path: Path) -> None:
    """The owner plays a command while a follower hears nothing (its subscription gone, as after a restart of
    Redis); no later command comes to show the gap (the next move is up to the follower's client, who has not seen
    its turn come): the owner's seq beat makes the follower reload anyway."""
    postgres = Postgres().start()
    try:
        asyncio.run(lost_update(server, postgres.create_database("games"), tmp_path))
    finally:
        postgres.close()


async def lost_update(server: Redis, database: str, tmp_path: Path) -> None:
    def node(name: str) -> ClusterHub:
        # leases of the default length: both nodes share this process's one event loop, and one that a busy
        # machine stalls for a lease would hand the game to the follower before the owner plays its command
        settings = Settings(data_dir=tmp_path / name, database=database, redis=server.url, node_id=name,
                            lease_seconds=3.0, bot_delay=0.0)
        hub = make_hub(settings, make_store(settings))
        assert isinstance(hub, ClusterHub)
        return hub

    async def sink(message: Any) -> None:
        pass

    owner, follower = node("a"), node("b")
    for hub in (owner, follower):
        await hub.store.open()
        await hub.start()
    try:
        request = CreateGame.model_validate({"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                             "seed": winning_seed()})
        created, _ = await owner.create(request, "127.0.0.1")
        mine, theirs = await owner.get(created.id), await follower.get(created.id)
        assert mine is not None and theirs is not None
        mine_shared, theirs_shared = shared(mine), shared(theirs)
        assert mine_shared is not None and theirs_shared is not None
        assert mine_shared.owner and not theirs_shared.owner and theirs.seq == mine.seq == 0
        # a client of the follower (its node tells the owner every tick that it watches the game)
        theirs.join(Connection(None, Outbox(100, sink)))

        await follower.bus.unfollow(created.id)  # what the owner publishes now, the follower does not hear
        player = Connection(mine.seats[0], Outbox(100, sink))
        mine.join(player)
        mine.enqueue(player, action_from_json(as_action(PLANS["s1"][0])), 1)
        await until(lambda: mine.seq == 1, 60, "the owner playing the command")
        await follower.bus.follow(created.id)
        await until(lambda: theirs.seq == 1, 60, "the follower catching up with the owner")
    finally:
        for hub in (follower, owner):
            await hub.close()
            await hub.store.close()
