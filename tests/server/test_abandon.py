"""`POST /api/games/{id}/abandon`: a human seat's token ends a running game as `abandoned`, for good."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from starlette.websockets import WebSocketDisconnect

from asteroid_mining.server import Settings, create_app

from .helpers import PLANS, in_process, play_plan

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


def _abandon(client: TestClient, game: dict[str, Any], token: str | None) -> Any:
    return client.post(f"/api/games/{game['id']}/abandon", json={"token": token})


def _token(game: dict[str, Any], seat: int = 1) -> str:
    return str(game["seats"][seat - 1]["token"])


def test_a_seat_abandons_and_its_clients_are_told(client: TestClient, two_seats: dict[str, Any]) -> None:
    game_id = two_seats["id"]
    with client.websocket_connect(f"/api/games/{game_id}/ws?token={_token(two_seats, 2)}") as ws, \
            client.websocket_connect(f"/api/games/{game_id}/ws") as watcher:
        player, spectator = in_process(ws), in_process(watcher)
        assert player.next()["type"] == "state" and spectator.next()["type"] == "state"
        player.act("s1" if player.you and "s1" in player.you["settlers"] else "s2", "wait")
        answer = _abandon(client, two_seats, _token(two_seats, 1))
        assert answer.status_code == 200, answer.text
        assert answer.json()["status"] == "abandoned" and answer.json()["id"] == game_id
        for session in (player, spectator):
            last = session.next_of("ended")
            assert last == {"type": "ended", "seq": last["seq"], "status": "abandoned", "by": {"seat": 1}}
            with pytest.raises(WebSocketDisconnect) as closed:
                session.next(timeout=30)
            assert closed.value.code == 1000
    assert client.get(f"/api/games/{game_id}/summary").json()["status"] == "abandoned"
    assert client.get(f"/api/games/{game_id}").json()["status"] == "abandoned"
    assert game_id not in [g["id"] for g in client.get("/api/games").json()["games"]]


def test_a_token_in_the_authorization_header(client: TestClient, two_seats: dict[str, Any],
                                             caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    answer = client.post(f"/api/games/{two_seats['id']}/abandon",
                         headers={"Authorization": f"Bearer {_token(two_seats, 2)}"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "abandoned"
    assert "abandoned by seat 2" in caplog.text
    assert all(seat["token"] not in caplog.text for seat in two_seats["seats"])  # a token is never logged


@pytest.mark.parametrize(("token", "status", "code"), [
    (None, 401, "token_required"), ("not-a-token", 403, "bad_token"), ("", 403, "bad_token")])
def test_a_wrong_token_changes_nothing(client: TestClient, two_seats: dict[str, Any], token: str | None,
                                       status: int, code: str) -> None:
    answer = _abandon(client, two_seats, token)
    assert answer.status_code == status
    assert answer.json() == {"error": {"code": code, "message": answer.json()["error"]["message"], "field": "token"}}
    assert client.get(f"/api/games/{two_seats['id']}/summary").json()["status"] == "open"
    assert two_seats["id"] in [g["id"] for g in client.get("/api/games").json()["games"]]


def test_another_games_token_is_refused(client: TestClient, two_seats: dict[str, Any]) -> None:
    other = client.post("/api/games", json={}).json()
    assert _abandon(client, two_seats, _token(other)).status_code == 403
    assert client.get(f"/api/games/{two_seats['id']}/summary").json()["status"] == "open"


def test_a_bot_seat_cannot_abandon(client: TestClient) -> None:
    """A bot seat has no token: its empty stored digest matches nothing, the empty token included."""
    game = client.post("/api/games", json={"seats": 2, "bots": {"2": "greedy"}}).json()
    assert game["seats"][1]["kind"] == "bot" and game["seats"][1]["token"] is None
    for token in ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"):
        answer = _abandon(client, game, token)
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "bad_token"
    assert _abandon(client, game, _token(game)).status_code == 200


def test_an_abandoned_game_cannot_be_abandoned_again(client: TestClient, two_seats: dict[str, Any]) -> None:
    assert _abandon(client, two_seats, _token(two_seats)).status_code == 200
    again = _abandon(client, two_seats, _token(two_seats, 2))
    assert again.status_code == 409 and again.json()["error"]["code"] == "game_over"
    assert _abandon(client, {"id": "nope"}, "x").status_code == 404


def test_a_won_game_cannot_be_abandoned(client: TestClient, two_seats: dict[str, Any]) -> None:
    game_id = two_seats["id"]
    with client.websocket_connect(f"/api/games/{game_id}/ws?token={_token(two_seats, 1)}") as one, \
            client.websocket_connect(f"/api/games/{game_id}/ws?token={_token(two_seats, 2)}") as two:
        players = {"s1": in_process(one), "s2": in_process(two)}
        for player in players.values():
            player.next()
        assert play_plan(players, PLANS)["diff"]["status"] == "won"
    answer = _abandon(client, two_seats, _token(two_seats))
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "game_over"
    assert client.get(f"/api/games/{game_id}/summary").json()["status"] == "won"


def test_no_clock_and_no_bots_after_the_end(client: TestClient) -> None:
    game = client.post("/api/games", json={"seats": 2, "bots": {"2": "greedy"}, "turn_seconds": 60}).json()
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={_token(game)}") as ws:
        player = in_process(ws)
        assert player.next()["deadline"] is not None
        assert _abandon(client, game, _token(game)).status_code == 200
        player.next_of("ended")
    hub = client.app.state.hub  # type: ignore[attr-defined]
    live = client.portal.call(hub.get, game["id"])  # type: ignore[union-attr]
    assert not live.running and live.deadline is None and live._delay() is None
    seq = live.seq
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={_token(game)}") as ws:
        player = in_process(ws)
        state = player.next()
        assert state["status"] == "abandoned" and state["deadline"] is None and state["seq"] == seq
        player.act(game["seats"][0]["settlers"][0], "wait")
        refused = player.next_of("error")
        assert refused["code"] == "game_abandoned"
    assert client.get(f"/api/games/{game['id']}/summary").json()["seq"] == seq


def test_the_end_survives_a_restart_and_the_replay_works(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static")
    with TestClient(create_app(settings)) as client:
        game = client.post("/api/games", json={"seats": 2, "settlers_per_seat": 1}).json()
        with client.websocket_connect(f"/api/games/{game['id']}/ws?token={_token(game)}") as ws:
            player = in_process(ws)
            player.next()
            player.act(game["seats"][0]["settlers"][0], "wait")
            assert player.next_of("update")["seq"] == 1
        assert _abandon(client, game, _token(game)).status_code == 200
        before = client.get(f"/api/games/{game['id']}/replay").json()
    with TestClient(create_app(settings)) as client:
        assert client.app.state.hub.games == {}  # type: ignore[attr-defined]  # not resumed as a running game
        summary = client.get(f"/api/games/{game['id']}/summary").json()
        assert summary["status"] == "abandoned" and summary["seq"] == 1
        assert game["id"] not in [g["id"] for g in client.get("/api/games").json()["games"]]
        replay = client.get(f"/api/games/{game['id']}/replay").json()
        assert replay["status"] == "abandoned" and replay == before and len(replay["steps"]) == 1
        log = client.get(f"/api/games/{game['id']}/log").json()
        assert log["status"] == "abandoned" and log["seq"] == 1 and len(log["commands"]) == 1
        again = _abandon(client, game, _token(game, 2))
        assert again.status_code == 409


def test_an_abandoned_game_leaves_the_quota(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    with TestClient(create_app(Settings(data_dir=tmp_path, max_games_per_client=2))) as client:
        games = [client.post("/api/games", json={}).json() for _ in range(2)]
        assert client.post("/api/games", json={}).status_code == 429
        assert _abandon(client, games[0], _token(games[0])).status_code == 200
        assert client.post("/api/games", json={}).status_code == 201
        assert client.post("/api/games", json={}).status_code == 429
