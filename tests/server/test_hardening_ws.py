"""Regression tests of the WebSocket side's hardening (in process): games acquired and released on every path,
one ref one effect, bounded answers to `sync`. Each failed before its fix."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from starlette.websockets import WebSocketDisconnect

from asteroid_mining.server import Settings, create_app

from .helpers import in_process, two_loops_belt

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


def ws_path(game: dict[str, Any], seat: int | None = None, token: str | None = None) -> str:
    path = f"/api/games/{game['id']}/ws"
    if token is not None:
        return f"{path}?token={token}"
    return f"{path}?token={game['seats'][seat - 1]['token']}" if seat else path


def app_client(settings: Settings) -> TestClient:
    from fastapi.testclient import TestClient

    return TestClient(create_app(settings))


def new_game(client: TestClient, seats: int = 1) -> dict[str, Any]:
    answer = client.post("/api/games", json={"seats": seats, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                             "seed": 3})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


# ----- a wrong token for a finished game: the game is let go again -----
def test_bad_tokens_for_finished_games_leave_nothing_held(client: TestClient) -> None:
    hub = client.app.state.hub  # type: ignore[attr-defined]
    games = [new_game(client) for _ in range(4)]
    for game in games:  # finished: abandoned by their seat, then let go by the hub (nobody is connected)
        token = game["seats"][0]["token"]
        assert client.post(f"/api/games/{game['id']}/abandon", json={"token": token}).status_code == 200
    held = len(hub.games)
    assert not any(game["id"] in hub.games for game in games)
    for game in games:
        for _ in range(3):
            with client.websocket_connect(ws_path(game, token="not-a-token")) as session:
                answer = session.receive_json()
                assert answer["code"] == "bad_token"
                with pytest.raises(WebSocketDisconnect) as closed:
                    session.receive_json()
                assert closed.value.code == 4401
    assert len(hub.games) == held
    assert not any(game["id"] in hub.games for game in games)


def test_every_refusal_after_loading_lets_the_game_go(settings: Settings) -> None:
    """The other paths that load a game and refuse the connection: a game full of connections."""
    with app_client(settings.with_changes(max_connections_per_game=1)) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        game = new_game(client)
        token = game["seats"][0]["token"]
        assert client.post(f"/api/games/{game['id']}/abandon", json={"token": token}).status_code == 200
        with client.websocket_connect(ws_path(game)) as watcher:
            assert watcher.receive_json()["type"] == "state"
            with client.websocket_connect(ws_path(game)) as second:
                assert second.receive_json()["code"] == "too_many_connections"
        assert game["id"] not in hub.games


# ----- one ref, one effect -----
def test_an_act_sent_again_with_its_ref_is_played_once(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect(ws_path(game, 1)) as session:
        me = in_process(session)
        me.next_of("state")
        me.act("s1", "wait", ref="r-1")
        first = me.next_of("update")
        assert first["seq"] == 1 and first["ref"] == "r-1"
        me.act("s1", "wait", ref="r-1")  # the answer was lost: the client sends it again, as the docs tell it to
        again = me.next()
        assert again == {"type": "ack", "ref": "r-1", "seq": 1}
        me.act("s1", "wait", ref="r-2")  # a new ref is a new command
        assert me.next_of("update")["seq"] == 2
    log = client.get(f"/api/games/{game['id']}/log").json()
    assert [c["seq"] for c in log["commands"]] == [1, 2]
    assert [c["by"].get("ref") for c in log["commands"]] == ["r-1", "r-2"]  # stored with the command


def test_a_ref_is_recognised_after_a_restart(settings: Settings) -> None:
    with app_client(settings) as client:
        game = new_game(client)
        with client.websocket_connect(ws_path(game, 1)) as session:
            me = in_process(session)
            me.next_of("state")
            me.act("s1", "wait", ref=41)
            assert me.next_of("update")["seq"] == 1
    with app_client(settings) as client, client.websocket_connect(ws_path(game, 1)) as session:
        me = in_process(session)
        me.next_of("state")
        me.act("s1", "wait", ref=41)
        assert me.next() == {"type": "ack", "ref": 41, "seq": 1}
        assert client.get(f"/api/games/{game['id']}").json()["seq"] == 1


def test_a_ref_belongs_to_its_seat(client: TestClient) -> None:
    game = new_game(client, seats=2)
    with client.websocket_connect(ws_path(game, 1)) as s1, client.websocket_connect(ws_path(game, 2)) as s2:
        one, two = in_process(s1), in_process(s2)
        one.next_of("state")
        two.next_of("state")
        one.act("s1", "wait", ref=7)
        assert one.next_of("update")["seq"] == 1
        assert two.next_of("update")["seq"] == 1
        two.act("s2", "wait", ref=7)  # the same ref from another seat: another command
        assert two.next_of("update")["seq"] == 2
        one.act("s1", "wait", ref=7)
        assert one.next_of("ack") == {"type": "ack", "ref": 7, "seq": 1}
        s1.send_text(json.dumps({"type": "act", "settler": "s1", "action": "wait", "ref": 8}))
        assert one.next_of("update")["seq"] == 3
