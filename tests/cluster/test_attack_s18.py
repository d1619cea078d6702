"""Attacks on the cluster (round 18): what a follower is told, or not, when a game it follows ends."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from asteroid_mining.server.cluster.replication import shared
from asteroid_mining.server.live import Connection
from asteroid_mining.server.outbox import Outbox
from tests.cluster.in_process import node
from tests.cluster.test_takeover_races import Told, new_game, running, step, until
from tests.services import Redis


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
        created, _ = await owner.create(new_game(), "127.0.0.1")
        owned = await owner.get(created.id)
        assert owned is not None and shared(owned).owner  # type: ignore[union-attr]
        async with follower.acquire(created.id) as live:
            assert live is not None and not shared(live).owner  # type: ignore[union-attr]
            told = Told()
            conn = Connection(live.seats[0], Outbox(100, told))
            live.join(conn)
            assert await owned.abandon(owned.seats[1])
            owner.release(owned)  # its last client there has gone: the owner lets it go, and its lease
            await until(lambda: created.id not in owner.games, "the owner letting the game go")
            await until(lambda: created.id not in owner.held, "the owner giving the lease up")
            live.enqueue(conn, step("s1", 0), "after")
            await until(lambda: bool(told.of("ended")) or bool(told.of("update"))
                        or any(m.get("ref") == "after" for m in told.messages), "an answer to the command")
            stored = await follower.stored_seq(created.id)
            assert stored == 0, f"{stored} commands were stored after the game was abandoned"
            assert told.of("ended"), f"the follower's client was not told the game ended: {told.messages}"
            live.leave(conn)

    asyncio.run(running([owner, follower], scenario))
