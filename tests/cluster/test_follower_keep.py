"""A node keeps a game it follows for a moment after its last client left, and counts such a load against its
limits of running games.

The fourth attack opened a spectator's connection to a `large` game through a node that did not hold it, read
its state and closed, one at a time: the node loaded the game from the store for each connection (44 ms of CPU)
and let it go when the connection closed, 6.0 s of its CPU in 10 s. Two nodes in one process on a real Redis and
PostgreSQL."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from asteroid_mining.server.cluster.bus import game_channel
from asteroid_mining.server.cluster.node import ClusterHub
from asteroid_mining.server.cluster.replication import shared
from asteroid_mining.server.errors import ServerError
from asteroid_mining.server.live import Connection, LiveGame
from asteroid_mining.server.outbox import Outbox
from tests.cluster.in_process import node
from tests.cluster.test_takeover_races import DEADLINE, Told, new_game, owned_game, running, shut, step, until
from tests.services import Redis


class CountedLoads:
    """A store's `load`, counting the loads of each game."""

    def __init__(self, hub: ClusterHub) -> None:
        self.real = hub.store.load
        self.count: dict[str, int] = {}
        hub.store.load = self  # type: ignore[method-assign]

    async def __call__(self, game_id: str) -> Any:
        self.count[game_id] = self.count.get(game_id, 0) + 1
        return await self.real(game_id)


async def spectate(hub: ClusterHub, game_id: str) -> dict[str, Any]:
    """What a spectator's WebSocket does on `hub`: acquire the game, join, read the state, leave."""
    async with hub.acquire(game_id) as live:
        assert live is not None
        told = Told()
        conn = Connection(None, Outbox(100, told))
        live.join(conn)
        await until(lambda: bool(told.of("state")), "the state")
        live.leave(conn)
        return told.of("state")[0]


def test_repeated_spectators_on_a_follower_load_the_game_once(services: tuple[Redis, str], tmp_path: Path) -> None:
    redis, database = services
    owner, follower = node(redis, database, tmp_path, "a"), node(redis, database, tmp_path, "b")

    async def scenario() -> None:
        owned = await owned_game(owner)
        player = Connection(owned.seats[0], Outbox(100, Told()))
        owned.join(player)
        loads = CountedLoads(follower)
        states = [await spectate(follower, owned.id) for _ in range(8)]
        assert loads.count == {owned.id: 1}, "the follower loaded the game again for a spectator"
        assert [s["seq"] for s in states] == [0] * 8
        kept = follower.games[owned.id]
        assert not kept.connections and not shared(kept).owner  # type: ignore[union-attr]
        # kept, it follows the game: a command the owner plays reaches it without a load
        owned.enqueue(player, step("s1", 0), "s1-0")
        await until(lambda: kept.seq == 1, "the kept copy following the owner's command")
        assert (await spectate(follower, owned.id))["seq"] == 1 and loads.count == {owned.id: 1}
        # once the keeping is over (its timer fired), the copy is let go, and its lease is nobody's here
        follower._kept_over(kept)
        assert owned.id not in follower.games and owned.id not in follower.held
        assert (await spectate(follower, owned.id))["seq"] == 1 and loads.count == {owned.id: 2}

    asyncio.run(running([owner, follower], scenario))


def test_a_kept_copy_is_not_taken_over_until_a_client_comes_back(services: tuple[Redis, str],
                                                                  tmp_path: Path) -> None:
    """The owner dies while the follower keeps the game for nobody: no lease is taken for it; a client that comes
    back to it is served by the kept copy, which then takes the game over and plays its command."""
    redis, database = services
    owner, follower = node(redis, database, tmp_path, "a"), node(redis, database, tmp_path, "b")

    async def scenario() -> None:
        created, _ = await owner.create(new_game(), "127.0.0.1")
        assert await owner.get(created.id) is not None
        await spectate(follower, created.id)
        kept = follower.games[created.id]
        await shut(owner)  # its leases given up: the game has no owner
        assert await follower.leases.owner(created.id) is None
        game = shared(kept)
        assert game is not None
        await follower._tell_owner([game])  # the watchdog's look at the owner: nobody here to take it over for
        assert follower.held == {} and not game.owner
        async with follower.acquire(created.id) as live:
            assert live is kept  # not loaded again
            told = Told()
            conn = Connection(live.seats[0], Outbox(100, told))
            live.join(conn)
            await until(lambda: bool(shared(live).owner), "the takeover")  # type: ignore[union-attr]
            live.enqueue(conn, step("s1", 0), "s1-0")
            await until(lambda: bool(told.of("update")) or bool(told.of("error")), "the command's answer")
            assert [m["seq"] for m in told.of("update")] == [1], told.messages
            live.leave(conn)
        assert follower.games.get(created.id) is kept  # the owner now: kept for other nodes' clients

    asyncio.run(running([owner, follower], scenario))


def test_a_follower_without_room_refuses_the_load(services: tuple[Redis, str], tmp_path: Path) -> None:
    """A node loading a game another node plays counts it against its own limits of running games, charged to
    the game's creator: without room, `503 server_full` (close code 4409), nothing loaded or held."""
    redis, database = services
    owner = node(redis, database, tmp_path, "a")
    follower = node(redis, database, tmp_path, "b", max_live_bytes_per_client=1)

    async def scenario() -> None:
        created, _ = await owner.create(new_game(), "127.0.0.1")
        assert await owner.get(created.id) is not None
        loads = CountedLoads(follower)
        with pytest.raises(ServerError) as refused:
            await follower.get(created.id)
        assert refused.value.status == 503 and refused.value.code == "server_full"
        assert created.id not in follower.games and not follower.held and loads.count == {created.id: 1}
        assert game_channel(created.id) not in follower.bus._channels, "a game refused is still followed"
        copy: LiveGame | None = owner.games.get(created.id)
        assert copy is not None and shared(copy).owner  # type: ignore[union-attr]

    asyncio.run(running([owner, follower], scenario))


def test_a_follower_keeps_nothing_when_told_not_to(services: tuple[Redis, str], tmp_path: Path) -> None:
    redis, database = services
    owner = node(redis, database, tmp_path, "a")
    follower = node(redis, database, tmp_path, "b", follower_keep_seconds=0)

    async def scenario() -> None:
        created, _ = await owner.create(new_game(), "127.0.0.1")
        assert await owner.get(created.id) is not None
        await spectate(follower, created.id)
        await asyncio.wait_for(until(lambda: created.id not in follower.games, "letting go"), DEADLINE)

    asyncio.run(running([owner, follower], scenario))
