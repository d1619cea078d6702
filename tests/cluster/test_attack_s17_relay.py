"""A follower matched the owner's answers to its clients' relayed commands by the `id()` of each connection: an id
is the object's address, used again once the object is freed, so an owner's late answer for a connection that had
left reached a newer connection that had been given the same address (another seat's refusal, error or
ack)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from asteroid_mining.server.cluster import node as node_module
from asteroid_mining.server.cluster.replication import shared
from asteroid_mining.server.live import Connection
from asteroid_mining.server.outbox import Outbox
from tests.cluster.in_process import node
from tests.cluster.test_takeover_races import Told, owned_game, running, step, until
from tests.services import Redis


def test_an_owners_late_answer_reaches_no_newer_connection(services: tuple[Redis, str], tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Seat 0's connection through a follower sends a command and leaves before the owner's answer (its ack) comes
    back (a refusal: a command played is acknowledged by its update, which every connection gets); seat 1's
    connection then sends one too. Every connection is given the same `id()` here, as a connection
    made after another was freed may be by CPython (the address of the freed one): the follower keyed both alike,
    and seat 1 was told seat 0's refusal. Each connection is numbered now, and no number is given twice."""
    redis, database = services
    owner = node(redis, database, tmp_path, "a")
    follower = node(redis, database, tmp_path, "b")
    # the address reuse made certain: any `id()` the node takes of a connection is the same
    monkeypatch.setattr(node_module, "id", lambda obj: 1, raising=False)
    held: list[tuple[str, int, str]] = []
    monkeypatch.setattr(owner, "reply", lambda node, conn_id, text: held.append((node, conn_id, text)))

    async def scenario() -> None:
        owned = await owned_game(owner)
        async with follower.acquire(owned.id) as live:
            assert live is not None and not shared(live).owner  # type: ignore[union-attr]
            first_told, second_told = Told(), Told()
            first = Connection(live.seats[0], Outbox(100, first_told))
            live.join(first)
            live.enqueue(first, step("s2", 0), "first")  # refused: s1 plays first
            await until(lambda: len(held) == 1, "the owner's answer to the first connection")
            live.leave(first)  # gone before its answer came back
            second = Connection(live.seats[1], Outbox(100, second_told))
            live.join(second)
            live.enqueue(second, step("s2", 0), "second")  # refused alike
            await until(lambda: len(held) == 2, "the owner's answer to the second connection")
            for answer in held:  # the owner's answers arrive now, in the order it gave them
                node_module.ClusterHub.reply(owner, *answer)
            await until(lambda: any(m.get("ref") == "second" for m in second_told.messages),
                        "the second connection's answer")
            await asyncio.sleep(0)  # (the outbox's sender has had its turn)
            refs = [m["ref"] for m in second_told.messages if "ref" in m]
            assert refs == ["second"], f"the second connection was told of others' commands: {refs}"
            live.leave(second)
        assert follower._senders == {}

    asyncio.run(running([owner, follower], scenario))
