"""A node that lost a game while it stalled (its lease ran out, another node took the game over) lets the game go
when it wakes up, and closes its clients' connections so that they reconnect — also when one of them had sent a
command again meanwhile, which the node relays to the new owner over Redis.

It did not: the game's owner task was relaying that command when it was told to stop, the Redis client swallowed
the cancellation, and the owner went on waiting for ever, with the stop waiting for it: the clients stayed on a
copy of the game that no longer followed it (seen in the failover test with a node stopped past its leases).
Two nodes in one process on a real Redis and PostgreSQL; the stall is made exactly: the lease deleted and the
game taken over by the other node while the first still believes it owns it.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asteroid_mining.rules import action_from_json
from asteroid_mining.server.cluster.leases import lease_key
from asteroid_mining.server.cluster.node import ClusterHub
from asteroid_mining.server.cluster.replication import shared
from asteroid_mining.server.config import Settings
from asteroid_mining.server.live import Connection
from asteroid_mining.server.outbox import Outbox
from asteroid_mining.server.schemas import CreateGame
from asteroid_mining.server.stores import make_hub, make_store
from tests.server.helpers import PLANS, as_action, two_loops_belt, winning_seed
from tests.services import Postgres, Redis


@pytest.fixture
def services() -> Iterator[tuple[Redis, str]]:
    redis, postgres = Redis().start(), Postgres().start()
    try:
        yield redis, postgres.create_database("games")
    finally:
        postgres.close()
        redis.close()


def test_a_node_that_lost_a_game_while_stalled_closes_its_clients(services: tuple[Redis, str],
                                                                   tmp_path: Path) -> None:
    redis, database = services
    asyncio.run(lost_while_stalled(redis, database, tmp_path))


async def lost_while_stalled(redis: Redis, database: str, tmp_path: Path) -> None:
    def node(name: str) -> ClusterHub:
        settings = Settings(data_dir=tmp_path / name, database=database, redis=redis.url, node_id=name,
                            lease_seconds=3.0, bot_delay=0.0)
        hub = make_hub(settings, make_store(settings))
        assert isinstance(hub, ClusterHub)
        return hub

    told: list[str] = []

    async def sink(message: Any) -> None:
        told.append(str(message["text"]))

    stalled, other = node("a"), node("b")
    for hub in (stalled, other):
        await hub.store.open()
        await hub.start()
    try:
        request = CreateGame.model_validate({"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                             "seed": winning_seed()})
        created, _ = await stalled.create(request, "127.0.0.1")
        mine, theirs = await stalled.get(created.id), await other.get(created.id)
        assert mine is not None and theirs is not None
        mine_shared, theirs_shared = shared(mine), shared(theirs)
        assert mine_shared is not None and theirs_shared is not None
        assert mine_shared.owner and not theirs_shared.owner
        player = Connection(mine.seats[0], Outbox(100, sink))
        mine.join(player)
        # the stall: the lease runs out and the other node takes the game over; the stalled node still believes
        # it owns the game
        await stalled.redis.delete(lease_key(created.id))
        assert await other.take(theirs_shared)
        # waking up, it finds the player's command and the same command sent again (the player had no answer)
        move = action_from_json(as_action(PLANS["s1"][0]))
        mine.enqueue(player, move, 1)
        mine.enqueue(player, move, 1)
        deadline = time.monotonic() + 60
        while not player.outbox.closed:  # the connection is closed (1012: reconnect)
            assert time.monotonic() < deadline, f"the player's connection was never closed; it was told {told}"
            await asyncio.sleep(0.05)
        assert mine.moved and created.id not in stalled.games
        assert [c.by for c in (await other.store.log(created.id) or (None, None, []))[2]] == [{"seat": 1, "ref": 1}]
    finally:
        for hub in (other, stalled):
            await hub.close()
            await hub.store.close()


def test_a_game_let_go_and_loaded_again_at_once_still_follows_its_owner(services: tuple[Redis, str],
                                                                         tmp_path: Path) -> None:
    """A node lets a game go (its last client left, or it lost the game) and a client of the game comes back to it
    before the letting go has finished: the new copy follows the game's owner. The letting go stopped following
    the game's channel after the new copy had followed it, and the copy never heard of a command again."""
    redis, database = services
    asyncio.run(let_go_and_loaded_again(redis, database, tmp_path))


async def let_go_and_loaded_again(redis: Redis, database: str, tmp_path: Path) -> None:
    def node(name: str) -> ClusterHub:
        settings = Settings(data_dir=tmp_path / name, database=database, redis=redis.url, node_id=name,
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
        played, old = await owner.get(created.id), await follower.get(created.id)
        assert played is not None and old is not None
        # the old copy's letting go is held at its start until the game has been loaded here again
        loaded_again = asyncio.Event()
        stop = old.stop

        async def held_stop() -> None:
            await loaded_again.wait()
            await stop()

        old.stop = held_stop  # type: ignore[method-assign]
        follower.release(old)  # nobody is connected to it here: let go
        assert created.id not in follower.games
        new = await follower.get(created.id)
        assert new is not None and new is not old
        new.join(Connection(None, Outbox(100, sink)))
        loaded_again.set()
        deadline = time.monotonic() + 60
        while any("_let_go" in repr(task.get_coro()) for task in asyncio.all_tasks()):
            assert time.monotonic() < deadline, "the old copy was never let go"
            await asyncio.sleep(0.01)
        player = Connection(played.seats[0], Outbox(100, sink))
        played.join(player)
        played.enqueue(player, action_from_json(as_action(PLANS["s1"][0])), 1)
        while new.seq < 1:  # the owner's command reaches the new copy (its update, or the owner's seq beat)
            assert time.monotonic() < deadline, "the game loaded again does not follow its owner"
            await asyncio.sleep(0.05)
    finally:
        for hub in (follower, owner):
            await hub.close()
            await hub.store.close()


def test_a_node_shuts_down_though_its_watchdog_swallows_a_cancellation(services: tuple[Redis, str],
                                                                        tmp_path: Path) -> None:
    """The Redis client may swallow a cancellation (as it did in the owner's relay above): a node's watchdog
    cancelled while it renews its leases went on, and the node's shutdown waited for it for ever."""
    redis, database = services
    asyncio.run(shut_down_while_renewing(redis, database, tmp_path))


async def shut_down_while_renewing(redis: Redis, database: str, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "a", database=database, redis=redis.url, node_id="a",
                        lease_seconds=0.6, bot_delay=0.0)
    hub = make_hub(settings, make_store(settings))
    assert isinstance(hub, ClusterHub)
    await hub.store.open()
    await hub.start()
    renewing = asyncio.Event()

    async def renew_swallowing(held: dict[str, int]) -> dict[str, bool]:
        if not renewing.is_set():  # the first renewal swallows the cancellation, as the Redis client did
            renewing.set()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(3600)
        return {}

    hub.leases.renew = renew_swallowing  # type: ignore[method-assign]
    try:
        await asyncio.wait_for(renewing.wait(), 60)
        closing = asyncio.create_task(hub.close())
        await asyncio.wait({closing}, timeout=60)  # (not wait_for: a test that fails must not hang as well)
        assert closing.done(), "the node's shutdown waits for ever for its watchdog"
    finally:
        await hub.store.close()
