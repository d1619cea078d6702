"""What the sixth fresh attack found on a single server: an open game that expired was loaded again by its link
past every limit of running games, and a damaged row whose metadata held a string for a number took the whole lobby
down (`500` on every page)."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.live import LiveGame

from .helpers import in_process
from .hubs import create_from, hub_of, on_loop, refused

TTL = 3600.0
"""The life of an open game in these tests (the default): passed by moving the hub's clock, never by waiting."""


def _refused_to_load(client: TestClient, game: dict[str, Any]) -> None:
    """The game's seat connecting is refused for want of room (`server_full`, 4409), and nothing is loaded."""
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as ws:
        refused(ws, "server_full", 4409)
    assert game["id"] not in hub_of(client).games


def test_an_expired_open_game_loaded_again_counts_against_the_limits(tmp_path: Path) -> None:
    """An open game that expired (`open_game_ttl`) counts no more for anything, and its seat's link still opens
    it: the load was counted against no limit, and once played the game was a running game past every limit.
    So an address that created its quota of games each `open_game_ttl` and brought them back had as many running
    games in memory as it liked, past `max_live_games`, `max_live_bytes` and its own `max_games_per_client`
    (reproduced with `max_live_games` 1: two running games held). Loading an expired open game is now counted as
    loading a game let go is (`503 server_full`, 4409, when there is no room), and against its creator's
    `max_games_per_client`; with room, it opens and plays on as before."""
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        open_game_ttl=TTL, max_live_games=1, max_games_per_client=1)
    with TestClient(create_app(settings)) as client:
        hub = hub_of(client)
        old = create_from(client, "10.0.0.1")
        later = time.time() + TTL + 60
        hub.clock = lambda: later  # (the hub's clock only: the open game expires without waiting)
        assert on_loop(client, hub.expire) == 1 and old["id"] not in hub.games

        other = create_from(client, "10.0.0.2")  # the server's one running game
        _refused_to_load(client, old)
        assert client.get(f"/api/games/{old['id']}").json()["error"]["code"] == "server_full"
        assert client.post(f"/api/games/{other['id']}/abandon",
                           json={"token": other["seats"][0]["token"]}).status_code == 200

        mine = create_from(client, "10.0.0.1")  # its creator's quota is full again
        _refused_to_load(client, old)
        assert client.post(f"/api/games/{mine['id']}/abandon",
                           json={"token": mine["seats"][0]["token"]}).status_code == 200

        with client.websocket_connect(f"/api/games/{old['id']}/ws?token={old['seats'][0]['token']}") as ws:
            player = in_process(ws)  # room again: its link opens it, and it is played
            assert player.next_of("state")["seq"] == 0
            player.act("s1", "wait", ref="first")
            assert player.next_of("update")["seq"] == 1
        assert [g.id for g in hub._held_running()] == [old["id"]]


def _lobby(client: TestClient, query: str = "") -> dict[str, dict[str, Any]]:
    """The lobby's first page (of `query`), by game id; it must answer 200."""
    answer = client.get(f"/api/games{query}")
    assert answer.status_code == 200, answer.text
    return {g["id"]: g for g in answer.json()["games"]}


def test_a_damaged_row_with_an_ill_typed_turn_timer_does_not_take_the_lobby_down(tmp_path: Path) -> None:
    """A damaged game is listed in the lobby from what its row holds, and its stored `turn_seconds` was listed
    as it was: a row the store never wrote holding a string there (`"x"`) failed the lobby's check of its summary,
    and with it the whole listing: every page, every `status`, `500 internal` for everyone for as long as the row
    was there (across restarts). Such a timer is now listed as unknown (null), the game as damaged, the others as
    they are."""
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static")
    with TestClient(create_app(settings)) as client:
        good, bad = create_from(client, "10.0.0.1"), create_from(client, "10.0.0.2")
    with sqlite3.connect(settings.data_dir / "games.sqlite3") as db:
        db.execute("UPDATE games SET meta = ? WHERE id = ?",
                   (json.dumps({"rules": "classic", "turn_seconds": "x"}), bad["id"]))
    with TestClient(create_app(settings)) as client:
        lobby = _lobby(client)
        assert lobby[bad["id"]]["status"] == "damaged" and lobby[bad["id"]]["turn_seconds"] is None
        assert lobby[good["id"]]["status"] == "open"
        assert list(_lobby(client, "?status=damaged")) == [bad["id"]]
        assert list(_lobby(client, "?status=open")) == [good["id"]]
        assert client.get(f"/api/games/{bad['id']}").json()["error"]["code"] == "game_damaged"


def test_a_summary_that_fails_its_model_is_listed_as_damaged_alone(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever else a stored row could make a summary hold that its model refuses, one game's summary no longer
    fails the whole lobby: that game is listed as a damaged one whose row cannot be read, the others as they
    are."""
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static")
    with TestClient(create_app(settings)) as client:
        good = create_from(client, "10.0.0.1")
        summary = LiveGame.summary

        def ill_typed(live: LiveGame) -> dict[str, Any]:
            made = summary(live)
            return made if live.id == good["id"] else {**made, "round": "not a number", "created": "never"}

        odd = create_from(client, "10.0.0.2")
        monkeypatch.setattr(LiveGame, "summary", ill_typed)
        lobby = _lobby(client)
        assert lobby[good["id"]]["status"] == "open"
        assert lobby[odd["id"]]["status"] == "damaged" and lobby[odd["id"]]["seats"] == []
