"""What the fourth fresh attack on the server found, each held by a test at the level it was found."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from asteroid_mining.server import Settings, create_app, read_cache

from .helpers import two_loops_belt


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
