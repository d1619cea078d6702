"""What the sixth fresh attack found on a single server: an open game that expired was loaded again by its link
past every limit of running games, and a damaged row whose metadata held a string for a number took the whole lobby
down (`500` on every page)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.hub import GameHub
from asteroid_mining.server.live import LiveGame
from asteroid_mining.server.schemas import CreateGame

from .helpers import in_process, two_loops_belt, winning_seed

TTL = 3600.0
"""The life of an open game in these tests (the default): passed by moving the hub's clock, never by waiting."""


def _hub(client: TestClient) -> GameHub:
    hub: GameHub = client.app.state.hub  # type: ignore[attr-defined]
    return hub


def _in_server(client: TestClient, work: Callable[[], Awaitable[Any]]) -> Any:
    """What `work` (a coroutine function of the server's) answers, run on the server's event loop."""
    portal = client.portal
    assert portal is not None
    return portal.call(work)


def _on_loop(client: TestClient, work: Callable[[], Any]) -> Any:
    """`work()` run on the server's event loop (the hub is used from there only)."""
    async def run() -> Any:
        return work()

    return _in_server(client, run)


def _create_from(client: TestClient, address: str) -> dict[str, Any]:
    """A one-seat game on the two-loops belt created by `address`: its id and tokens."""
    request = CreateGame.model_validate({"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                         "seed": winning_seed()})
    live, seats_made = _in_server(client, lambda: _hub(client).create(request, address))
    return {"id": live.id, "seats": [seat.model_dump() for seat in seats_made]}


def _refused_to_load(client: TestClient, game: dict[str, Any]) -> None:
    """The game's seat connecting is refused for want of room (`server_full`, 4409), and nothing is loaded."""
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as ws:
        refusal = ws.receive_json()
        assert (refusal["type"], refusal["code"]) == ("error", "server_full"), refusal
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4409
    assert game["id"] not in _hub(client).games


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
        hub = _hub(client)
        old = _create_from(client, "10.0.0.1")
        later = time.time() + TTL + 60
        hub.clock = lambda: later  # (the hub's clock only: the open game expires without waiting)
        assert _on_loop(client, hub.expire) == 1 and old["id"] not in hub.games

        other = _create_from(client, "10.0.0.2")  # the server's one running game
        _refused_to_load(client, old)
        assert client.get(f"/api/games/{old['id']}").json()["error"]["code"] == "server_full"
        assert client.post(f"/api/games/{other['id']}/abandon",
                           json={"token": other["seats"][0]["token"]}).status_code == 200

        mine = _create_from(client, "10.0.0.1")  # its creator's quota is full again
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
        good, bad = _create_from(client, "10.0.0.1"), _create_from(client, "10.0.0.2")
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
        good = _create_from(client, "10.0.0.1")
        summary = LiveGame.summary

        def ill_typed(live: LiveGame) -> dict[str, Any]:
            made = summary(live)
            return made if live.id == good["id"] else {**made, "round": "not a number", "created": "never"}

        odd = _create_from(client, "10.0.0.2")
        monkeypatch.setattr(LiveGame, "summary", ill_typed)
        lobby = _lobby(client)
        assert lobby[good["id"]]["status"] == "open"
        assert lobby[odd["id"]]["status"] == "damaged" and lobby[odd["id"]]["seats"] == []
