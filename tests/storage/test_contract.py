"""The contract of every `GameStore`, run against SQLite and PostgreSQL alike: records, the append-only log and
its key, snapshots, group commits, reopening, a closed store."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from asteroid_mining.storage import Command, GameRecord, GameStore, Progress, Snapshot, StorageError

Stores = Callable[[], GameStore]


def record(game_id: str = "g1", created: float = 1.0) -> GameRecord:
    return GameRecord(game_id, created, {"belt": "json"}, {"uranium_fuse": 1}, 7, 2, {"seats": []})


def progress(seq: int, status: str = "running") -> Progress:
    return Progress(seq, status, 1 + seq // 2, "s1", 100.0 + seq)  # updated: its command's time


def command(seq: int) -> Command:
    return Command(seq, {"type": "wait", "actor": f"s{1 + seq % 2}"}, {"seat": 1}, 100.0 + seq)


def test_create_append_load(make_store: Stores) -> None:
    async def scenario() -> None:
        store = make_store()
        await store.open()
        await store.create(record(), progress(0))
        for seq in (1, 2, 3):
            await store.append("g1", command(seq), progress(seq))
        stored = await store.load("g1")
        assert stored is not None
        assert stored.record == record() and stored.progress == progress(3) and stored.snapshot is None
        assert stored.commands == [command(1), command(2), command(3)]
        await store.append("g1", command(4), progress(4), Snapshot(4, {"whole": "game"}))
        await store.append("g1", command(5), progress(5, "won"))
        stored = await store.load("g1")
        assert stored is not None and stored.snapshot == Snapshot(4, {"whole": "game"})
        assert stored.commands == [command(5)]
        found = await store.log("g1")
        assert found is not None and [c.seq for c in found[2]] == [1, 2, 3, 4, 5]
        assert await store.load("nope") is None and await store.log("nope") is None
        assert await store.unfinished() == []
        await store.close()

    asyncio.run(scenario())


def test_the_log_has_no_gaps_and_no_rewrites(make_store: Stores) -> None:
    async def scenario() -> None:
        store = make_store()
        await store.open()
        await store.create(record(), progress(0))
        with pytest.raises(StorageError):
            await store.create(record(), progress(0))
        await store.append("g1", command(1), progress(1))
        for seq in (1, 3):  # again, or a gap
            with pytest.raises(StorageError):
                await store.append("g1", command(seq), progress(seq))
        with pytest.raises(StorageError):
            await store.append("ghost", command(1), progress(1))
        found = await store.log("g1")
        assert found is not None and [c.seq for c in found[2]] == [1] and found[1].seq == 1
        await store.close()

    asyncio.run(scenario())


def test_reopen_and_unfinished(make_store: Stores) -> None:
    async def first() -> None:
        store = make_store()
        await store.open()
        await store.create(record("old", 1.0), progress(0))
        await store.create(record("done", 2.0), progress(0))
        await store.create(record("new", 3.0), progress(0))
        await store.append("done", command(1), progress(1, "lost"))
        await store.append("new", command(1), progress(1))
        await store.close()

    async def second() -> None:
        store = make_store()
        await store.open()
        assert await store.unfinished() == ["old", "new"]
        stored = await store.load("new")
        assert stored is not None and stored.commands == [command(1)] and stored.progress == progress(1)
        await store.append("new", command(2), progress(2))
        await store.close()

    asyncio.run(first())
    asyncio.run(second())


def test_many_games_write_at_once(make_store: Stores) -> None:
    """Writes of many games are grouped into shared transactions; each is durable before its caller goes on."""

    async def scenario() -> None:
        store = make_store()
        await store.open()
        ids = [f"g{i}" for i in range(50)]
        await asyncio.gather(*(store.create(record(i), progress(0)) for i in ids))

        async def play(game_id: str) -> None:
            for seq in range(1, 21):
                await store.append(game_id, command(seq), progress(seq))

        await asyncio.gather(*(play(i) for i in ids))
        for game_id in ids:
            found = await store.log(game_id)
            assert found is not None and [c.seq for c in found[2]] == list(range(1, 21))
        await store.close()

    asyncio.run(scenario())


def test_a_finished_game_leaves_the_unfinished_and_keeps_where_it_ended(make_store: Stores) -> None:
    async def scenario() -> None:
        store = make_store()
        await store.open()
        await store.create(record("g1"), progress(0))
        await store.create(record("g2", 2.0), progress(0))
        await store.append("g1", command(1), progress(1))
        await store.append("g1", command(2), progress(2, "won"), Snapshot(2, {"the": "end"}))
        assert await store.unfinished() == ["g2"]
        stored = await store.load("g1")
        assert stored is not None and stored.progress == progress(2, "won") and stored.snapshot == Snapshot(
            2, {"the": "end"}) and stored.commands == []
        await store.close()

    asyncio.run(scenario())


def test_an_abandoned_game_ends_in_its_row_and_stays_ended(make_store: Stores) -> None:
    """`end` writes `abandoned` without a command: kept after reopening, out of the unfinished, the log as it was;
    a game that is not running at that seq is refused and nothing changes."""
    ended = Progress(2, "abandoned", 2, "s1", 500.0)

    async def first() -> None:
        store = make_store()
        await store.open()
        await store.create(record("g1"), progress(0))
        await store.create(record("g2", 2.0), progress(0))
        await store.create(record("g3", 3.0), progress(0))
        for seq in (1, 2):
            await store.append("g1", command(seq), progress(seq))
        with pytest.raises(StorageError):
            await store.end("g1", Progress(1, "abandoned", 1, "s1", 500.0))  # a command came after seq 1
        await store.end("g1", ended)
        with pytest.raises(StorageError):
            await store.end("g1", ended)  # not running any more
        await store.append("g2", command(1), progress(1, "won"))
        with pytest.raises(StorageError):
            await store.end("g2", Progress(1, "abandoned", 1, "s1", 500.0))
        with pytest.raises(StorageError):
            await store.end("nope", Progress(0, "abandoned", 1, "s1", 500.0))
        await store.end("g3", Progress(0, "abandoned", 1, "s1", 400.0))  # before any command
        await store.close()

    async def second() -> None:
        store = make_store()
        await store.open()
        assert await store.unfinished() == []
        stored = await store.load("g1")
        assert stored is not None and stored.progress == ended and [c.seq for c in stored.commands] == [1, 2]
        found = await store.log("g1")
        assert found is not None and found[1] == ended and found[2] == [command(1), command(2)]
        won = await store.load("g2")
        assert won is not None and won.progress == progress(1, "won")
        fresh = await store.load("g3")
        assert fresh is not None and fresh.progress == Progress(0, "abandoned", 1, "s1", 400.0)
        await store.close()

    asyncio.run(first())
    asyncio.run(second())


def test_a_later_snapshot_replaces_the_earlier(make_store: Stores) -> None:
    async def scenario() -> None:
        store = make_store()
        await store.open()
        await store.create(record(), progress(0))
        for seq in range(1, 7):
            shot = Snapshot(seq, {"at": seq}) if seq in (2, 4) else None
            await store.append("g1", command(seq), progress(seq), shot)
        stored = await store.load("g1")
        assert stored is not None and stored.snapshot == Snapshot(4, {"at": 4})
        assert stored.commands == [command(5), command(6)]
        await store.close()

    asyncio.run(scenario())


def test_a_bad_write_in_a_group_takes_no_other_down(make_store: Stores) -> None:
    """Writes queued together share a transaction; one that cannot be stored fails alone."""

    async def scenario() -> None:
        store = make_store()
        await store.open()
        await asyncio.gather(*(store.create(record(f"g{i}"), progress(0)) for i in range(4)))
        outcomes = await asyncio.gather(
            store.append("g0", command(1), progress(1)),
            store.append("g1", command(2), progress(2)),  # a gap
            store.append("ghost", command(1), progress(1)),  # no such game
            store.create(record("g3"), progress(0)),  # taken
            store.append("g2", command(1), progress(1)),
            store.append("g2", command(2), progress(2)),  # two of one game in one group
            store.append("g3", command(1), progress(1), Snapshot(1, {"s": 1})),
            return_exceptions=True,
        )
        assert [type(o).__name__ for o in outcomes] == [
            "NoneType", "StorageError", "StorageError", "StorageError", "NoneType", "NoneType", "NoneType"]
        assert "does not follow" in str(outcomes[1]) and "no game" in str(outcomes[2])
        assert "already exists" in str(outcomes[3])
        for gid, seqs in (("g0", [1]), ("g1", []), ("g2", [1, 2]), ("g3", [1])):
            found = await store.log(gid)
            assert found is not None and [c.seq for c in found[2]] == seqs and found[1].seq == len(seqs)
        await store.append("g1", command(1), progress(1))  # the refused write changed nothing
        await store.close()

    asyncio.run(scenario())


def test_closed_store_refuses_writes(make_store: Stores) -> None:
    async def scenario() -> None:
        store = make_store()
        await store.open()
        await store.close()
        with pytest.raises(StorageError):
            await store.create(record(), progress(0))

    asyncio.run(scenario())
