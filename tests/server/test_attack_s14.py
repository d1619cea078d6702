"""What the fifth fresh attack found on a single server: a WebSocket with a wrong token loaded a running game let
go while idle only to refuse it, and let it go again at once, uncharged, as often as the address could connect."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from asteroid_mining.server import Settings, create_app

from .helpers import in_process
from .hubs import counted_loads, hub_of, on_loop, refused

IDLE = 600.0
"""The idle time of these tests (the default): passed by moving the hub's clock, never by waiting."""


def _settings(tmp_path: Path, **extra: Any) -> Settings:
    """A server's settings for these tests: its data in `tmp_path`, games let go after `IDLE`, and `extra`."""
    return Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                    idle_game_seconds=IDLE, **extra)


def _played_once_and_let_go(client: TestClient) -> dict[str, Any]:
    """A game whose seat acted once and left, then let go while idle (the hub's clock moved past the idle time):
    its id and tokens, as `POST /api/games` answers them."""
    made = client.post("/api/games", json={"seats": 1, "settlers_per_seat": 1, "belt": "tutorial", "seed": 7})
    assert made.status_code == 201, made.text
    game: dict[str, Any] = made.json()
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as ws:
        player = in_process(ws)
        player.next_of("state")
        player.act("s1", "wait", ref="first")
        assert player.next_of("update")["seq"] == 1
    hub = hub_of(client)
    deadline = time.monotonic() + 60  # (a generous bound on a hang: the closed socket leaves at once)
    while on_loop(client, lambda: bool(hub.games[game["id"]].connections)):
        assert time.monotonic() < deadline, "the player's connection never left"
        time.sleep(0.01)
    hub.clock = lambda: time.time() + IDLE + 60
    try:
        assert on_loop(client, hub.rest_idle) == 1
    finally:
        hub.clock = time.time
    assert game["id"] in hub.resting and game["id"] not in hub.games
    return game


def test_a_wrong_token_does_not_load_a_game_let_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A WebSocket with a wrong token to a running game let go while idle loaded the whole game from the store,
    was refused (4401), and the game was let go again at once; loading for a WebSocket is not charged (it is the
    normal path of serving a game), so the next wrong token loaded it again: 117 ms of CPU each on the largest
    accepted belt, 0.85 of a core from one address at its rate of new connections (10 a second). The token is now
    checked against the seats kept with the game let go, and refused without loading it; the right token still
    loads it and plays on where it was."""
    settings = _settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        hub = hub_of(client)
        game = _played_once_and_let_go(client)
        loads = counted_loads(hub, monkeypatch)
        for wrong in ("not-a-token", "x" * 300, game["seats"][0]["token"][:-1]):
            with client.websocket_connect(f"/api/games/{game['id']}/ws?token={wrong}") as session:
                refused(session, "bad_token", 4401)
        assert loads == []
        assert game["id"] in hub.resting and game["id"] not in hub.games
        with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as ws:
            state = in_process(ws).next_of("state")
            assert (state["seq"], state["you"]["seat"]) == (1, 1)
        assert loads == [game["id"]]


def test_a_wrong_token_to_abandon_or_hint_does_not_load_a_game_let_go(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`POST …/abandon` and `POST …/hint` with a wrong token for a running game let go while idle loaded the
    whole game to refuse the token (`403 bad_token`), each load taking a token of the address's history bucket
    (past its burst, `429`): 117 ms of CPU a request on the largest accepted belt, 20 at once and 2 a second from
    one address. The token is now checked against the seats kept with the game let go: refused without a load,
    and without a charge; the right token still ends the game."""
    settings = _settings(tmp_path)
    with TestClient(create_app(settings)) as client:
        hub = hub_of(client)
        game = _played_once_and_let_go(client)
        loads = counted_loads(hub, monkeypatch)
        answers = [client.post(f"/api/games/{game['id']}/{what}", json={"token": "not-a-token"})
                   for what in ("abandon", "hint") for _ in range(settings.history_rate_burst + 5)]
        assert {(a.status_code, a.json()["error"]["code"]) for a in answers} == {(403, "bad_token")}
        assert loads == []
        assert game["id"] in hub.resting
        ended = client.post(f"/api/games/{game['id']}/abandon", json={"token": game["seats"][0]["token"]})
        assert (ended.status_code, ended.json()["status"]) == (200, "abandoned")
        assert loads == [game["id"]]


def test_a_spectator_loading_games_let_go_is_charged_and_a_seat_is_not(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A spectator's WebSocket to a running game let go while idle loaded it free, as a seat's does: one address
    watching the server's idle games one after another (ten connections a second) had each loaded, 117 ms of CPU
    on the largest accepted belt, and kept in memory for `idle_game_seconds`. A spectator's load now takes a token
    of the address's history bucket, as a REST read does (past it: `rate_limited`, close 4429, nothing loaded);
    a seat's connection, whose token was checked before, still loads its game uncharged; and a game held in memory
    costs a spectator nothing."""
    settings = _settings(tmp_path, history_rate_burst=2,
                         history_rate_per_second=0.001)  # (a token back every 1,000 s: none during the test)
    with TestClient(create_app(settings)) as client:
        hub = hub_of(client)
        games = [_played_once_and_let_go(client) for _ in range(3)]
        loads = counted_loads(hub, monkeypatch)
        for game in games[:2]:  # the bucket's two tokens: both loaded
            with client.websocket_connect(f"/api/games/{game['id']}/ws") as ws:
                assert in_process(ws).next_of("state")["seq"] == 1
        assert loads == [games[0]["id"], games[1]["id"]]
        with client.websocket_connect(f"/api/games/{games[2]['id']}/ws") as session:
            refused(session, "rate_limited", 4429)
        assert loads == [games[0]["id"], games[1]["id"]] and games[2]["id"] in hub.resting
        with client.websocket_connect(f"/api/games/{games[0]['id']}/ws") as ws:  # held now: free to watch again
            assert in_process(ws).next_of("state")["seq"] == 1
        token = games[2]["seats"][0]["token"]
        with client.websocket_connect(f"/api/games/{games[2]['id']}/ws?token={token}") as ws:  # its seat: uncharged
            assert in_process(ws).next_of("state")["seq"] == 1
        assert loads == [games[0]["id"], games[1]["id"], games[2]["id"]]
