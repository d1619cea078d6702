"""Races of a node's loading and taking over of a game with what else happens to the game meanwhile, each made
exactly (the slow step held on an event) rather than left to a busy machine's timing, where the failover test met
them:

- a follower catching up from the store reads it, the node then takes the game over and plays a command, and
  the catching up finishes last: it set the new owner's copy back to what it had read (the next player was told
  `not_your_turn` on their turn, the owner's copy one command behind what it had announced);
- a game let go (its last client left) or dropped (another node took it) while a client's connection was loading
  it: the connection joined the copy let go, whose owner task had stopped and which followed nothing (its player's
  commands waited unplayed until they were refused as `busy`; a follower's client never heard of a command again);
- a takeover by the watchdog of a game let go meanwhile kept the lease, renewed for ever for a copy nobody played:
  no other node could take the game over, and every relayed command was refused as `not_owner`.

Two nodes in one process on a real Redis and PostgreSQL.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from asteroid_mining.rules import action_from_json
from asteroid_mining.server.cluster.node import ClusterHub
from asteroid_mining.server.cluster.replication import shared
from asteroid_mining.server.live import Connection, LiveGame
from asteroid_mining.server.outbox import Outbox
from asteroid_mining.server.schemas import CreateGame
from tests.cluster.in_process import node
from tests.server.helpers import PLANS, as_action, two_loops_belt, winning_seed
from tests.services import Redis

DEADLINE = 60.0
"""Seconds a condition is waited for at most: a bound for a busy machine, never a measure."""

class Told:
    """What a connection was sent (its messages decoded)."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def __call__(self, message: Any) -> None:
        self.messages.append(orjson.loads(message["text"]))

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.messages if m["type"] == kind]


async def until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {DEADLINE:g} s"
        await asyncio.sleep(0.02)


async def running(hubs: list[ClusterHub], scenario: Callable[[], Awaitable[None]]) -> None:
    for hub in hubs:
        await hub.store.open()
        await hub.start()
    try:
        await scenario()
    finally:
        for hub in reversed(hubs):
            if hub not in gone:
                await hub.close()
                await hub.store.close()


gone: set[ClusterHub] = set()
"""The nodes a scenario has shut down already (`shut`)."""


async def shut(hub: ClusterHub) -> None:
    """A node goes away (as a node stopped gives its leases up)."""
    gone.add(hub)
    await hub.close()
    await hub.store.close()


def new_game() -> CreateGame:
    return CreateGame.model_validate({"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                      "seed": winning_seed()})


async def owned_game(hub: ClusterHub) -> LiveGame:
    """A `new_game` created through `hub`, loaded there and owned by it."""
    created, _ = await hub.create(new_game(), "127.0.0.1")
    owned = await hub.get(created.id)
    assert owned is not None and shared(owned).owner  # type: ignore[union-attr]
    return owned


def step(settler: str, index: int) -> Any:
    return action_from_json(as_action(PLANS[settler][index]))


class Held:
    """An async function replaced by one that waits, once, on `go` (after calling through, or before)."""

    def __init__(self, real: Callable[..., Awaitable[Any]], after: bool) -> None:
        self.real, self.after = real, after
        self.entered, self.go = asyncio.Event(), asyncio.Event()
        self.used = False

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.used:
            return await self.real(*args, **kwargs)
        self.used = True
        if self.after:
            result = await self.real(*args, **kwargs)
            self.entered.set()
            await self.go.wait()
            return result
        self.entered.set()
        await self.go.wait()
        return await self.real(*args, **kwargs)


def test_a_catching_up_read_before_a_takeover_does_not_set_the_new_owner_back(services: tuple[Redis, str],
                                                                              tmp_path: Path) -> None:
    redis, database = services
    old, new = node(redis, database, tmp_path, "a"), node(redis, database, tmp_path, "b")

    async def scenario() -> None:
        created, _ = await old.create(new_game(), "127.0.0.1")
        owned, followed = await old.get(created.id), await new.get(created.id)
        assert owned is not None and followed is not None
        game = shared(followed)
        assert game is not None and not game.owner and shared(owned).owner  # type: ignore[union-attr]
        # the follower catches up (Redis came back, say): it reads the store, and is slow to go on (held here)
        held = Held(new.store.load, after=True)
        new.store.load = held  # type: ignore[method-assign]
        game.catch_up(None)
        await asyncio.wait_for(held.entered.wait(), DEADLINE)
        # meanwhile its owner goes away, and the follower takes the game over and plays a command
        await shut(old)
        assert await new.take(game)
        first, second = Told(), Told()
        s1, s2 = Connection(followed.seats[0], Outbox(100, first)), Connection(followed.seats[1], Outbox(100, second))
        followed.join(s1)
        followed.join(s2)
        followed.enqueue(s1, step("s1", 0), "s1-0")
        await until(lambda: followed.seq == 1, "the new owner's first command")
        held.go.set()  # the catching up may finish now (when it still runs)
        await until(lambda: game._catching_up is None, "the catching up's end")
        assert followed.seq == 1 and followed.game.turn == "s2", "the new owner's copy went back"
        followed.enqueue(s2, step("s2", 0), "s2-0")
        await until(lambda: followed.seq == 2 or bool(second.of("error")), "the next player's command")
        assert not second.of("error"), second.of("error")
        assert [c.seq for c in (await new.store.log(created.id) or (None, None, []))[2]] == [1, 2]

    asyncio.run(running([old, new], scenario))


@pytest.mark.parametrize("meanwhile", ["its last client left", "another node took it"])
def test_a_game_let_go_while_a_client_loads_it_is_loaded_again_for_that_client(services: tuple[Redis, str],
                                                                                tmp_path: Path,
                                                                                meanwhile: str) -> None:
    redis, database = services
    hub = node(redis, database, tmp_path, "a")

    async def scenario() -> None:
        created, _ = await hub.create(new_game(), "127.0.0.1")  # left in the store: loaded by its first client
        held = Held(hub.leases.acquire, after=False)  # taking the game over is slow (Redis is busy, say)
        hub.leases.acquire = held  # type: ignore[method-assign]
        loading = asyncio.create_task(hub.get(created.id))
        await asyncio.wait_for(held.entered.wait(), DEADLINE)
        first = hub.games[created.id]
        if meanwhile == "its last client left":  # a client that joined the copy being loaded, and left
            async with hub.acquire(created.id) as passing:
                assert passing is first
                watcher = Connection(None, Outbox(100, Told()))
                passing.join(watcher)
                passing.leave(watcher)
        else:
            game = shared(first)
            assert game is not None
            await hub.drop(game, "a test")
        held.go.set()
        live = await asyncio.wait_for(loading, DEADLINE)
        assert live is not None and hub.games.get(created.id) is live, "a copy let go was handed out"
        assert shared(live).owner  # type: ignore[union-attr]
        assert await hub.leases.owner(created.id) == ("a", shared(live).epoch)  # type: ignore[union-attr]
        told = Told()
        player = Connection(live.seats[0], Outbox(100, told))
        live.join(player)
        live.enqueue(player, step("s1", 0), "s1-0")
        await until(lambda: bool(told.of("update")) or bool(told.of("error")), "the answer to the command")
        assert [m["seq"] for m in told.of("update")] == [1], told.messages

    asyncio.run(running([hub], scenario))


def test_a_takeover_of_a_game_let_go_meanwhile_gives_its_lease_back(services: tuple[Redis, str],
                                                                    tmp_path: Path) -> None:
    redis, database = services
    old, new = node(redis, database, tmp_path, "a"), node(redis, database, tmp_path, "b")

    async def scenario() -> None:
        created, _ = await old.create(new_game(), "127.0.0.1")
        owned, followed = await old.get(created.id), await new.get(created.id)
        assert owned is not None and followed is not None
        game = shared(followed)
        assert game is not None and not game.owner
        await shut(old)  # the owner goes away: the follower's watchdog takes the game over (slowly, held here)
        held = Held(new.leases.acquire, after=False)
        new.leases.acquire = held  # type: ignore[method-assign]
        taking = asyncio.create_task(new.take(game))
        await asyncio.wait_for(held.entered.wait(), DEADLINE)
        new.release(followed)  # its last client here left meanwhile: let go
        assert created.id not in new.games
        held.go.set()
        assert not await asyncio.wait_for(taking, DEADLINE)
        assert await new.leases.owner(created.id) is None and created.id not in new.held
        again = await new.get(created.id)  # a client comes back: the game is loaded, owned and played here
        assert again is not None and again is not followed and shared(again).owner  # type: ignore[union-attr]
        told = Told()
        player = Connection(again.seats[0], Outbox(100, told))
        again.join(player)
        again.enqueue(player, step("s1", 0), "s1-0")
        await until(lambda: bool(told.of("update")) or bool(told.of("error")), "the answer to the command")
        assert [m["seq"] for m in told.of("update")] == [1], told.messages

    asyncio.run(running([old, new], scenario))


def test_a_game_let_go_without_its_lease_gives_the_lease_up(services: tuple[Redis, str], tmp_path: Path) -> None:
    """A game let go by a path that knows nothing of leases (an open game expiring, say) kept its lease, renewed
    for ever: loaded here again, the game could not be owned; loaded elsewhere, it could not be taken over."""
    redis, database = services
    hub, other = node(redis, database, tmp_path, "a"), node(redis, database, tmp_path, "b")

    async def scenario() -> None:
        created, _ = await hub.create(new_game(), "127.0.0.1")
        owned = await hub.get(created.id)
        assert owned is not None and shared(owned).owner  # type: ignore[union-attr]
        del hub.games[created.id]  # let go as an expired open game is (`GameHub.expire`)
        await owned.stop()
        again = await hub.get(created.id)  # a client comes back to this node: it owns and plays the game
        assert again is not None and again is not owned and shared(again).owner  # type: ignore[union-attr]
        told = Told()
        player = Connection(again.seats[0], Outbox(100, told))
        again.join(player)
        again.enqueue(player, step("s1", 0), "s1-0")
        await until(lambda: bool(told.of("update")) or bool(told.of("error")), "the answer to the command")
        assert [m["seq"] for m in told.of("update")] == [1], told.messages
        again.leave(player)
        del hub.games[created.id]  # let go so again; its next client goes to the other node, which takes it over
        await again.stop()
        followed = await other.get(created.id)
        assert followed is not None
        deadline = time.monotonic() + DEADLINE
        while await hub.leases.owner(created.id) is not None:  # given up within a watchdog tick
            assert time.monotonic() < deadline, "the lease of a game let go was never given up"
            await asyncio.sleep(0.05)
        game = shared(followed)
        assert game is not None and await other.take(game) and followed.seq == 1

    asyncio.run(running([hub, other], scenario))
