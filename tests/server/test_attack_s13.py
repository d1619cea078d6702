"""What the fourth fresh attack on the server found, each held by a test at the level it was found."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from asteroid_mining.server import Settings, create_app, read_cache
from asteroid_mining.storage import SqliteStore, StorageError
from asteroid_mining.storage.base import GameRecord, Progress, StoredGame

from .helpers import in_process, stored_log, two_loops_belt


def test_a_lobby_of_many_games_in_play_is_not_built_for_every_request(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lobby's answer was built again whenever what it lists had changed, and while any game is played it
    changes with every command: with 2,000 games listed and one game of bots played, eight addresses asking at
    their lobby rate (5 a second each) had the lobby built for every request, 70 ms of CPU each, took the server's
    core (3.6 s of CPU in 10 s, `/api/health` 0.34 s at the median). Even a request answered from the cache worked
    out the hub's version, over every game. Once it lists many games, the answer is now given as it is, unchecked,
    for a moment after each check (`LOBBY_HOLD_PER_GAME` a game, never past `lobby_cache_seconds` of its age)."""
    monkeypatch.setattr(read_cache, "LOBBY_HOLD_MIN_GAMES", 3)  # three games stand for a lobby of thousands
    monkeypatch.setattr(read_cache, "LOBBY_HOLD_PER_GAME", 0.1)  # held 0.3 s after each check
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        lobby_cache_seconds=1.0)
    with TestClient(create_app(settings)) as client:
        cache = client.app.state.lobby_cache  # type: ignore[attr-defined]
        now = [100.0]
        cache.clock = lambda: now[0]  # the test's clock: the answer ages only when the test says so
        games = [client.post("/api/games", json={"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                                 "seed": seed}).json() for seed in range(3)]
        first = client.get("/api/games").json()["games"]
        assert len(first) == 3 and cache.builds == 1 and cache.checks == 1
        played = games[0]
        with client.websocket_connect(f"/api/games/{played['id']}/ws?token={played['seats'][0]['token']}") as seat:
            assert seat.receive_json()["type"] == "state"
            seat.send_json({"type": "act", "settler": played["seats"][0]["settlers"][0], "action": "move",
                            "target": "a1"})
            assert seat.receive_json()["type"] == "update"
            # what it lists has changed (a seat connected, a command played), but the answer is held: not built
            # again, and not even checked
            now[0] += 0.29
            for _ in range(5):
                assert client.get("/api/games").json()["games"] == first
            assert cache.builds == 1 and cache.checks == 1
            now[0] += 0.02  # past the hold: checked, found changed, built again
            listed = {g["id"]: g for g in client.get("/api/games").json()["games"]}
            assert listed[played["id"]]["seq"] == 1 and listed[played["id"]]["seats"][0]["connected"] == 1
            assert cache.builds == 2 and cache.checks == 2
            now[0] += 0.31  # held again, then checked: nothing has changed, so the answer is kept
            assert client.get("/api/games").json()["games"] == list(listed.values())
            assert cache.builds == 2 and cache.checks == 3


def test_a_lobby_of_few_games_shows_a_change_at_once(tmp_path: Path) -> None:
    """Under `LOBBY_HOLD_MIN_GAMES` games the lobby is cheap: it is checked at every request, and a game created
    is listed at the next one (the hold applies to lobbies of many games only)."""
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static")
    with TestClient(create_app(settings)) as client:
        cache = client.app.state.lobby_cache  # type: ignore[attr-defined]
        cache.clock = lambda: 0.0  # a clock that stands still: only a change builds the answer again
        assert client.get("/api/games").json()["games"] == []
        created = client.post("/api/games", json={"seats": 1, "belt": "tutorial", "seed": 4}).json()
        assert [g["id"] for g in client.get("/api/games").json()["games"]] == [created["id"]]
        assert cache.builds == 2 and cache.checks == 2


class FullDisk(SqliteStore):
    """A store on a disk that fills up: once `full`, every write is refused as SQLite refuses it; counts the
    writes tried and the games read."""

    full = False
    writes = 0
    loads = 0

    async def create(self, record: GameRecord, progress: Progress) -> None:
        self.writes += 1
        if self.full:
            raise StorageError("OperationalError: database or disk is full")
        await super().create(record, progress)

    async def append(self, *args: Any, **kwargs: Any) -> None:
        self.writes += 1
        if self.full:
            raise StorageError("OperationalError: database or disk is full")
        await super().append(*args, **kwargs)

    async def load(self, game_id: str) -> StoredGame | None:
        self.loads += 1
        return await super().load(game_id)


def test_commands_of_a_game_the_store_keeps_refusing_are_not_tried(tmp_path: Path) -> None:
    """On a full disk every `act` was played, refused by the store and the game read again from it: 40 ms of CPU
    on a large belt, so one player acting at the rate limit kept 0.4 of a core busy for as long as the disk was
    full (4.2 s of CPU in 10 s, measured on a tmpfs filled to the last byte), and each refusal wrote three
    tracebacks to the log (1.5 KB). After two refused writes in a row, the game's commands are refused at once for
    `STORE_REFUSED_SECONDS`, not played and not stored; a write that goes through clears it. Nothing acknowledged
    is lost, and a single refused write is still tried again at once."""
    store = FullDisk(tmp_path)
    with TestClient(create_app(Settings(data_dir=tmp_path, bot_delay=0.0), store=store)) as client:
        game = client.post("/api/games", json={"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                               "seed": 1}).json()
        live = client.app.state.hub.games[game["id"]]  # type: ignore[attr-defined]
        with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as session:
            me = in_process(session)
            me.next_of("state")
            me.send({"type": "act", "settler": "s1", "action": "wait", "ref": 1})
            assert me.next_of("update")["seq"] == 1
            store.full = True
            writes, loads = store.writes, store.loads
            for ref in (2, 3):  # tried, refused by the store, the game read again
                me.send({"type": "act", "settler": "s1", "action": "wait", "ref": ref})
                answer = me.next()
                assert (answer["type"], answer["code"], answer["ref"]) == ("error", "storage_failed", ref)
            assert (store.writes, store.loads) == (writes + 2, loads + 2)
            for ref in (4, 5, 6):  # refused at once: neither played nor tried
                me.send({"type": "act", "settler": "s1", "action": "wait", "ref": ref})
                answer = me.next()
                assert (answer["type"], answer["code"], answer["ref"]) == ("error", "storage_failed", ref)
            assert (store.writes, store.loads) == (writes + 2, loads + 2)
            me.send({"type": "act", "settler": "s1", "action": "wait", "ref": 1})  # one played: acknowledged still
            assert me.next() == {"type": "ack", "ref": 1, "seq": 1}
            store.full = False
            live._refused_until = 0.0  # as when STORE_REFUSED_SECONDS have passed
            me.send({"type": "act", "settler": "s1", "action": "wait", "ref": 7})
            assert me.next_of("update")["seq"] == 2
            store.full = True  # one refused write after one that went through is tried again at once
            me.send({"type": "act", "settler": "s1", "action": "wait", "ref": 8})
            assert me.next()["code"] == "storage_failed"
            store.full = False
            me.send({"type": "act", "settler": "s1", "action": "wait", "ref": 9})
            assert me.next_of("update")["seq"] == 3
        commands = stored_log(client, game["id"])["commands"]
    assert [(c["seq"], c["by"]["ref"]) for c in commands] == [(1, 1), (2, 7), (3, 9)]


def test_a_create_the_store_refuses_is_charged_to_the_address(tmp_path: Path) -> None:
    """A new game is charged to its creator's address by the bytes of its belt only once created: on a full disk
    every `POST /api/games` generated its belt and set its game up before the store refused it (`507`), uncharged,
    47 ms of CPU each on `large`: one address with two requests at a time took 4.7 s of CPU in 10 s, and wrote two
    tracebacks (1.1 KB) to the log for each. A create the store refuses is now charged as a created one."""
    store = FullDisk(tmp_path)
    settings = Settings(data_dir=tmp_path, bot_delay=0.0, create_bytes_burst=10_000, create_bytes_per_second=0.001)
    with TestClient(create_app(settings, store=store)) as client:
        store.full = True
        refused = client.post("/api/games", json={"seats": 1, "belt": "standard", "seed": 1})
        assert refused.status_code == 507 and refused.json()["error"]["code"] == "storage_full"
        writes = store.writes
        again = client.post("/api/games", json={"seats": 1, "belt": "standard", "seed": 1})
        assert again.status_code == 429 and again.json()["error"]["code"] == "rate_limited", again.text
        assert int(again.headers["retry-after"]) >= 1 and store.writes == writes  # not even tried
        other = client.post("/api/games", json={"seats": 1, "belt": "standard", "seed": 1},
                            headers={"x-forwarded-for": "192.0.2.7"})  # (not believed: the same address)
        assert other.status_code == 429


def test_a_redis_password_stays_out_of_the_log_and_the_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cluster's Redis should have a password (whoever reaches it speaks as a node), given in its URL
    (`redis://:PASSWORD@host`): the start-up line of the log and the error of a Redis that cannot be reached
    showed the URL whole, password and all. They show it as PostgreSQL's, without its password."""
    from asteroid_mining.server import main
    from asteroid_mining.server.stores import describe

    settings = Settings(data_dir=Path("."), database="postgresql://games:pg-secret@db.internal/games",
                        redis="redis://:redis-secret@127.0.0.1:1/0")
    said = describe(settings)
    assert "127.0.0.1:1/0" in said and "db.internal" in said
    assert "secret" not in said

    class NoStore:
        async def open(self) -> None:
            pass

        async def close(self) -> None:
            pass

    monkeypatch.setattr(main, "make_store", lambda settings: NoStore())
    with pytest.raises(StorageError) as refused:  # nothing listens on port 1
        asyncio.run(main._check_store(settings))
    assert "cannot reach Redis at redis://@127.0.0.1:1/0" in str(refused.value)
    assert "secret" not in str(refused.value)
