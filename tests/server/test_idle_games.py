"""Running games nobody plays are let go after `idle_game_seconds`: out of memory and of the running games' limits,
kept in the store and the lobby, loaded again, exactly where they were, when a seat, a spectator or a request
needs them.

A game in play without a turn timer whose player acted once and left never ended: it never expired (only a game
nobody acted in does), its rounds never passed, and it kept its share of `max_live_bytes` and `max_live_games`,
loaded again at every start. Three addresses, one act each, made every new game `503 server_full` for everyone
with the limits scaled down to three games, before and after a restart.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.live import LiveGame, belt_memory

from .helpers import in_process, two_loops_belt, winning_seed
from .hubs import create_from, hub_of, on_loop, refused

IDLE = 600.0
"""The idle time of these tests (the default): passed by moving the hub's clock, never by waiting."""


def _settings(tmp_path: Path, **changes: Any) -> Settings:
    return Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                    idle_game_seconds=IDLE).with_changes(**changes)


def _wait_until(client: TestClient, condition: Callable[[], bool], what: str) -> None:
    """Wait (a generous deadline) until `condition()`, evaluated on the server's loop, holds."""
    deadline = time.monotonic() + 60
    while not on_loop(client, condition):
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def _nobody_on(client: TestClient, game_id: str) -> None:
    """Wait until the server has seen every connection of the game close (a closed test socket leaves soon)."""
    hub = hub_of(client)
    _wait_until(client, lambda: game_id not in hub.games or not hub.games[game_id].connections,
                f"the connections of {game_id} never left")


def _act_once(client: TestClient, game: dict[str, Any]) -> None:
    """Seat 1 waits once (acknowledged), then leaves."""
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as ws:
        player = in_process(ws)
        player.next_of("state")
        player.act("s1", "wait", ref="first")
        assert player.next_of("update")["seq"] == 1
    _nobody_on(client, game["id"])


def _later(client: TestClient, seconds: float) -> None:
    """The hub's clock moved `seconds` ahead of the wall's (the idle time passes without waiting)."""
    hub_of(client).clock = lambda: time.time() + seconds


def _rest(client: TestClient) -> int:
    """Move past the idle time and let the idle games go, as the hub's sweep does (then back to the wall's
    time); how many went."""
    _later(client, IDLE + 60)
    count: int = on_loop(client, hub_of(client).rest_idle)
    hub_of(client).clock = time.time
    return count


def _lobby(client: TestClient) -> dict[str, dict[str, Any]]:
    return {g["id"]: g for g in client.get("/api/games").json()["games"]}


# ----- the reproduction: three addresses, one act each, and every address refused -----
def test_games_acted_in_once_and_left_no_longer_fill_the_server(tmp_path: Path) -> None:
    one = belt_memory(two_loops_belt())
    settings = _settings(tmp_path, max_live_bytes=3 * one + one // 2)
    with TestClient(create_app(settings)) as client:
        hub = hub_of(client)
        games = [create_from(client, f"10.0.0.{n}") for n in (1, 2, 3)]
        for game in games:
            _act_once(client, game)
        full = client.post("/api/games", json={"seats": 1, "belt": two_loops_belt()})
        assert full.status_code == 503 and full.json()["error"]["code"] == "server_full", full.text
        listed = _lobby(client)

        _later(client, IDLE + 60)  # nobody has played, joined or read them for the idle time
        made = client.post("/api/games", json={"seats": 1, "belt": two_loops_belt()})
        assert made.status_code == 201, made.text  # the creation let them go first
        assert {g["id"] for g in games} <= set(hub.resting) and not {g["id"] for g in games} & set(hub.games)
        lobby = _lobby(client)
        assert all(lobby[g["id"]] == listed[g["id"]] for g in games)  # listed exactly as before

    with TestClient(create_app(settings)) as client:  # played within the idle time: resumed, and let go after it
        hub = hub_of(client)
        assert {g["id"] for g in games} <= set(hub.games)
        assert all(_lobby(client)[g["id"]] == listed[g["id"]] for g in games)
        _later(client, IDLE + 60)
        assert client.post("/api/games", json={"seats": 1, "belt": two_loops_belt()}).status_code == 201
        assert {g["id"] for g in games} <= set(hub.resting)

    with TestClient(create_app(settings.with_changes(idle_game_seconds=0.0))) as client:  # idle for long: listed,
        hub = hub_of(client)                                                                  # not loaded
        assert not {g["id"] for g in games} & set(hub.games)
        lobby = _lobby(client)
        assert all(lobby[g["id"]] == listed[g["id"]] for g in games)  # from the store's summaries, as before
        for n in (4, 5, 6):
            assert create_from(client, f"10.0.0.{n}")["id"] in hub.games  # room for everyone


# ----- a game let go resumes exactly where it was -----
@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(tmp_path))) as test_client:
        yield test_client


def _reads(client: TestClient, game: dict[str, Any]) -> dict[str, Any]:
    """What every read of the game answers (the hint with seat 1's token: its step is seat 1's)."""
    game_id = game["id"]
    answers = {path: client.get(f"/api/games/{game_id}{path}") for path in ("", "/summary", "/replay", "/events")}
    answers["/hint"] = client.post(f"/api/games/{game_id}/hint", json={"token": game["seats"][0]["token"]})
    for path, answer in answers.items():
        assert answer.status_code == 200, (path, answer.text)
    return {path: answer.json() for path, answer in answers.items()}


def test_a_game_let_go_answers_every_read_as_before_and_resumes_where_it_was(client: TestClient) -> None:
    hub = hub_of(client)
    game = client.post("/api/games", json={"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                           "seed": winning_seed()}).json()
    game_id, tokens = game["id"], [seat["token"] for seat in game["seats"]]
    with client.websocket_connect(f"/api/games/{game_id}/ws?token={tokens[0]}") as one, \
            client.websocket_connect(f"/api/games/{game_id}/ws?token={tokens[1]}") as two:
        players = [in_process(one), in_process(two)]
        for player in players:
            player.next_of("state")
        for seq, (who, settler) in enumerate([(0, "s1"), (1, "s2"), (0, "s1"), (1, "s2")], start=1):
            players[who].act(settler, "wait", ref=f"r{seq}")
            for player in players:
                assert player.next_of("update")["seq"] == seq
        view = players[0].view
    _nobody_on(client, game_id)
    before = _reads(client, game)
    listed = _lobby(client)[game_id]

    assert _rest(client) == 1
    assert game_id in hub.resting and game_id not in hub.games
    assert _lobby(client)[game_id] == listed
    assert _reads(client, game) == before  # each read answers as before (the store, or the game loaded for it)
    assert game_id not in hub.games  # loaded for the reads only: let go again after them

    with client.websocket_connect(f"/api/games/{game_id}/ws?token={tokens[0]}") as ws:
        player = in_process(ws)
        state = player.next_of("state")
        assert state["seq"] == 4 and state["status"] == "running" and state["state"] == view
        assert game_id in hub.games and game_id not in hub.resting  # held while played
        player.send({"type": "act", "settler": "s1", "action": "wait", "ref": "r3"})  # sent again: played once
        assert player.next_of("ack") == {"type": "ack", "ref": "r3", "seq": 3}
        player.act("s1", "wait", ref="r5")
        assert player.next_of("update")["seq"] == 5
    _nobody_on(client, game_id)
    log = client.portal.call(hub.store.log, game_id)  # type: ignore[union-attr]
    assert log is not None and [c.seq for c in log[2]] == [1, 2, 3, 4, 5]  # nothing lost, nothing played twice


def test_a_spectator_brings_a_game_let_go_back_and_it_is_let_go_again_once_idle(client: TestClient) -> None:
    hub = hub_of(client)
    game = create_from(client, "10.0.0.1")
    _act_once(client, game)
    assert _rest(client) == 1
    with client.websocket_connect(f"/api/games/{game['id']}/ws") as ws:
        assert in_process(ws).next_of("state")["seq"] == 1
        live: LiveGame = hub.games[game["id"]]
        _later(client, IDLE + 60)
        assert on_loop(client, hub.rest_idle) == 0  # watched: held, however late it is
        hub.clock = time.time
    _nobody_on(client, game["id"])
    assert on_loop(client, lambda: hub.idle(live)) is False  # the idle time counts from when it was left
    assert _rest(client) == 1 and game["id"] in hub.resting


# ----- no room to load it again: a clean 503, nothing lost -----
def test_a_game_let_go_with_no_room_to_load_it_is_refused_cleanly(tmp_path: Path) -> None:
    one = belt_memory(two_loops_belt())
    with TestClient(create_app(_settings(tmp_path, max_live_bytes=one + one // 2))) as client:
        hub = hub_of(client)
        game = create_from(client, "10.0.0.1")
        _act_once(client, game)
        assert _rest(client) == 1
        other = create_from(client, "10.0.0.2")  # takes the room the first one left

        detail = client.get(f"/api/games/{game['id']}")
        assert detail.status_code == 503 and detail.json()["error"]["code"] == "server_full", detail.text
        with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as ws:
            refused(ws, "server_full", 4409)
        assert game["id"] in hub.resting and game["id"] not in hub.games
        assert _lobby(client)[game["id"]]["seq"] == 1  # still listed, as it was

        token = other["seats"][0]["token"]
        assert client.post(f"/api/games/{other['id']}/abandon", json={"token": token}).status_code == 200
        with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as ws:
            player = in_process(ws)
            assert player.next_of("state")["seq"] == 1
            player.act("s1", "wait", ref="first")  # sent again: it was played before the game was let go
            assert player.next_of("ack") == {"type": "ack", "ref": "first", "seq": 1}


# ----- an address's games let go still count toward its own quota, not the server's -----
def test_games_let_go_count_for_their_address_only(tmp_path: Path) -> None:
    with TestClient(create_app(_settings(tmp_path, max_games_per_client=2, max_live_games=2))) as client:
        hub = hub_of(client)
        mine = [create_from(client, "10.0.0.1") for _ in range(2)]
        for game in mine:
            _act_once(client, game)
        assert _rest(client) == 2
        with pytest.raises(Exception) as refused:  # (a ServerError: 429 too_many_games)
            create_from(client, "10.0.0.1")
        assert getattr(refused.value, "code", None) == "too_many_games", refused.value
        others = [create_from(client, f"10.0.1.{n}") for n in (1, 2)]  # the server's room is everyone's
        assert {g["id"] for g in others} <= set(hub.games)
        finished = mine[0]
        with client.websocket_connect(f"/api/games/{finished['id']}/ws?token={finished['seats'][0]['token']}"):
            pass  # (no room to load it: refused, and it stays let go)
        answer = client.post(f"/api/games/{others[0]['id']}/abandon", json={"token": others[0]["seats"][0]["token"]})
        assert answer.status_code == 200
        answer = client.post(f"/api/games/{finished['id']}/abandon", json={"token": finished["seats"][0]["token"]})
        assert answer.status_code == 200, answer.text  # loaded again to be ended: it counts no more
        assert finished["id"] not in hub.resting
        assert create_from(client, "10.0.0.1")["id"] in hub.games


# ----- at start-up, games are listed from the store's summaries -----
def test_at_start_up_a_game_whose_row_cannot_be_summarised_is_loaded_and_listed_as_damaged(tmp_path: Path) -> None:
    settings = _settings(tmp_path, idle_game_seconds=0.0)  # nothing played lately: nothing loaded at start-up
    with TestClient(create_app(settings)) as client:
        good, bad = create_from(client, "10.0.0.1"), create_from(client, "10.0.0.2")
        for game in (good, bad):
            _act_once(client, game)
    with sqlite3.connect(settings.data_dir / "games.sqlite3") as db:
        db.execute("UPDATE games SET belt = '{\"asteroids\": [' WHERE id = ?", (bad["id"],))
    with TestClient(create_app(settings)) as client:
        hub = hub_of(client)
        assert good["id"] in hub.resting and good["id"] not in hub.games
        assert bad["id"] in hub.damaged and "belt" in hub.damaged[bad["id"]]["reason"]
        lobby = _lobby(client)
        assert lobby[bad["id"]]["status"] == "damaged" and lobby[good["id"]]["status"] == "running"
        assert lobby[good["id"]]["asteroids"] == len(two_loops_belt()["asteroids"])
