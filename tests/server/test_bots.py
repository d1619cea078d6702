"""Bot seats: the server plays them with `asteroid_mining.ai` (imported lazily), or refuses them clearly."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pytest

from .helpers import in_process

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


def test_a_bot_seat_plays_its_settlers(client: TestClient) -> None:
    game = client.post("/api/games", json={"seats": 2, "settlers_per_seat": 1, "bots": {"2": "planner"},
                                           "seed": 4}).json()
    human, bot = game["seats"]
    assert human["kind"] == "human" and human["token"]
    assert bot == {"seat": 2, "kind": "bot", "bot": "planner", "token": None, "settlers": ["s2"], "invite": None}
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={human['token']}") as session:
        me = in_process(session)
        me.next_of("state")
        for _ in range(3):
            me.act("s1", "wait")
            assert me.next_of("update")["by"] == {"seat": 1}
            answer = me.next_of("update")
            assert answer["by"] == {"seat": 2, "auto": "bot"} and answer["action"]["actor"] == "s2"
    lobby = client.get("/api/games").json()["games"][0]
    assert lobby["seats"][1] == {"seat": 2, "kind": "bot", "bot": "planner", "settlers": ["s2"], "connected": 0}


def test_only_bots_play_while_someone_watches(client: TestClient) -> None:
    game = client.post("/api/games", json={"seats": 2, "settlers_per_seat": 1, "seed": 2,
                                           "bots": {"1": "random", "2": "greedy"}}).json()
    with client.websocket_connect(f"/api/games/{game['id']}/ws") as session:
        watcher = in_process(session)
        watcher.next_of("state")
        seen = [watcher.next_of("update")["by"]["seat"] for _ in range(6)]
    assert seen == [1, 2, 1, 2, 1, 2]


def test_an_unknown_bot_is_refused(client: TestClient) -> None:
    answer = client.post("/api/games", json={"seats": 2, "bots": {"2": "genius"}})
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "bots_unavailable" and error["field"] == "bots.2" and "genius" in error["message"]


def test_without_the_ai_package_bot_seats_are_refused(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "asteroid_mining.ai", None)  # `import` now fails as if it were missing
    answer = client.post("/api/games", json={"seats": 2, "bots": {"2": "planner"}})
    assert answer.status_code == 422
    error = answer.json()["error"]
    assert error["code"] == "bots_unavailable" and error["field"] == "bots.2"
    assert "not available" in error["message"]
    assert client.post("/api/games", json={"seats": 2}).status_code == 201
