"""Attacks on the cluster (round 18): what a follower is told, or not, when a game it follows ends."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from asteroid_mining.server.cluster.node import ClusterHub
from asteroid_mining.server.cluster.replication import shared
from asteroid_mining.server.errors import ServerError
from asteroid_mining.server.live import Connection
from asteroid_mining.server.outbox import Outbox
from tests.cluster.in_process import node
from tests.cluster.test_takeover_races import Told, new_game, owned_game, running, step, until
from tests.services import Redis


async def lease_gone(hub: ClusterHub, game_id: str) -> None:
    """Wait until nobody holds the game's lease (given up once the copy let go has stopped, `_let_go`)."""
    for _ in range(500):
        if game_id not in hub.held and await hub.leases.owner(game_id) is None:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the lease of game {game_id} is held still")


def test_a_follower_that_missed_the_end_does_not_play_the_abandoned_game_on(
        services: tuple[Redis, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The owner's `ended` message is lost on the bus (dropped past `MAX_OUTGOING`, or a publish that failed
    twice): the follower keeps the game as running, and an abandon leaves the seq where it was, so no beat shows
    it anything missed. Once the owner let the game go, the follower's client's next command took the game over
    and was played and stored after the abandon. Taking a game over reads its stored status now: the follower's
    clients are told it ended, and nothing more is stored."""
    redis, database = services
    owner = node(redis, database, tmp_path, "a")
    follower = node(redis, database, tmp_path, "b")
    real_publish = owner.bus.publish

    def losing_the_end(channel: str, message: dict[str, Any]) -> None:
        if message.get("t") != "ended":
            real_publish(channel, message)

    monkeypatch.setattr(owner.bus, "publish", losing_the_end)

    async def scenario() -> None:
        owned = await owned_game(owner)
        async with follower.acquire(owned.id) as live:
            assert live is not None and not shared(live).owner  # type: ignore[union-attr]
            told = Told()
            conn = Connection(live.seats[0], Outbox(100, told))
            live.join(conn)
            assert await owned.abandon(owned.seats[1])
            owner.release(owned)  # its last client there has gone: the owner lets it go, and its lease
            await until(lambda: owned.id not in owner.games, "the owner letting the game go")
            await lease_gone(owner, owned.id)
            live.enqueue(conn, step("s1", 0), "after")
            await until(lambda: bool(told.of("ended")) or bool(told.of("update"))
                        or any(m.get("ref") == "after" for m in told.messages), "an answer to the command")
            stored = await follower.stored_seq(owned.id)
            assert stored == 0, f"{stored} commands were stored after the game was abandoned"
            assert told.of("ended"), f"the follower's client was not told the game ended: {told.messages}"
            live.leave(conn)

    asyncio.run(running([owner, follower], scenario))


def test_a_game_nobody_plays_read_through_a_node_is_not_held_there(services: tuple[Redis, str],
                                                                    tmp_path: Path) -> None:
    """A REST read of a running game nobody owns loads it, and the load takes it (its lease, the store's claim):
    the node then kept it as its owner keeps a game other nodes' clients may play, for `idle_game_seconds`
    (600 s), where a read of a game another node plays lets the copy go at once. One address reading the lobby's
    games nobody played at its history rate (2 a second) held 1,200 of them on a node. Such a game is let go
    after the read now, its lease given up; a game a client joined stays owned."""
    redis, database = services
    creator = node(redis, database, tmp_path, "a")
    reader = node(redis, database, tmp_path, "b")

    async def scenario() -> None:
        read, _ = await creator.create(new_game(), "127.0.0.1")
        joined, _ = await creator.create(new_game(), "127.0.0.1")
        assert read.id not in creator.games and joined.id not in creator.games  # left in the store
        async with reader.acquire(read.id) as live:
            assert live is not None and shared(live).owner  # type: ignore[union-attr]
        await until(lambda: read.id not in reader.games, "the read game let go")
        assert read.id not in reader.held
        await lease_gone(reader, read.id)
        async with reader.acquire(joined.id) as live:
            assert live is not None
            conn = Connection(live.seats[0], Outbox(100, Told()))
            live.join(conn)
        assert joined.id in reader.games and joined.id in reader.held  # a client of it: owned and kept
        live.leave(conn)

    asyncio.run(running([creator, reader], scenario))


def test_creates_sent_at_once_to_several_nodes_keep_the_address_to_its_quota(services: tuple[Redis, str],
                                                                              tmp_path: Path) -> None:
    """Each node counted an address's running games in the store before creating one, and the store counts a game
    once it is stored: creates sent at once through two nodes each saw the count before the others' (a quota of
    3, 2 games held: 10 creates at once were 6 created, 8 games). The creates under way on every node count
    now."""
    redis, database = services
    hubs = [node(redis, database, tmp_path, name, max_games_per_client=3) for name in ("a", "b")]

    async def scenario() -> None:
        for _ in range(2):
            await hubs[0].create(new_game(), "10.0.0.9")

        async def create(number: int) -> int:
            try:
                await hubs[number % 2].create(new_game(), "10.0.0.9")
            except ServerError as refused:
                assert refused.status == 429 and refused.code == "too_many_games"
                return 0
            return 1

        created = sum(await asyncio.gather(*(create(number) for number in range(10))))
        held = await hubs[0].store.running_games_of("10.0.0.9")  # type: ignore[attr-defined]
        assert (created, held) == (1, 3), f"{created} created at once, {held} held by a quota of 3"
        assert await redis_creating(hubs[0], "10.0.0.9") == 0  # every create done has said so

    asyncio.run(running(hubs, scenario))


async def redis_creating(hub: ClusterHub, client: str) -> int:
    """How many creates of `client` the cluster counts as under way."""
    return int(await hub.redis.zcard(f"am:creating:{client}"))
