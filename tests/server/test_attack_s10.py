"""What a fresh attack on the server found, each held by a test at the level it was found (HTTP, WebSocket)."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient

from asteroid_mining.bodies import MAX_MEMBERS
from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.live import LiveGame
from asteroid_mining.server.messages import MAX_PARTS


def _finished_game(client: TestClient) -> dict[str, Any]:
    """A new game, abandoned by its seat: finished, and let go by the hub (nobody is connected)."""
    game: dict[str, Any] = client.post("/api/games", json={"belt": "tutorial", "seed": 5}).json()
    token = game["seats"][0]["token"]
    assert client.post(f"/api/games/{game['id']}/abandon", json={"token": token}).status_code == 200
    assert game["id"] not in client.app.state.hub.games  # type: ignore[attr-defined]
    return game


@contextmanager
def _no_cyclic_collector() -> Iterator[None]:
    """The cyclic collector off, as good as the server's rare full collections (`main.GC_THRESHOLDS`): what is
    not freed by reference counting alone stays until one."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _games_in_memory() -> int:
    """Live games anywhere in the process, garbage not yet collected included."""
    return sum(1 for thing in gc.get_objects() if isinstance(thing, LiveGame))


# ----- a finished game loaded for a request is freed once it is let go -----
def test_a_finished_game_read_again_and_again_is_freed_each_time(client: TestClient) -> None:
    """A finished game is loaded for each request that reads it and let go after it. The game and its replication
    referred to each other, so every one of those loads stayed in memory until a full collection, which the
    server's thresholds make rare: 3.7 MB a request on a large belt (720 MiB after 120 reads of its summary)."""
    game = _finished_game(client)
    hub = client.app.state.hub  # type: ignore[attr-defined]
    with _no_cyclic_collector():
        held = _games_in_memory()
        assert held == len(hub.games)
        for path in ("/summary", "", "/goals?lesson=fly"):
            for _ in range(5):
                assert client.get(f"/api/games/{game['id']}{path}").status_code == 200
        with client.websocket_connect(f"/api/games/{game['id']}/ws") as spectator:
            assert spectator.receive_json()["type"] == "state"
        client.get("/api/health")  # the last release's stop task has run by now
        assert game["id"] not in hub.games
        assert _games_in_memory() == held


# ----- validation that costs a few microseconds a member: wide objects are refused before it -----
def test_a_body_with_an_object_of_too_many_members_is_refused_before_validation(client: TestClient) -> None:
    """The schemas' validation runs on the event loop and builds an error for each member it does not know: a
    4 MB body of 200,000 seat numbers under `bots` held every game's loop for half a second (a second under
    load). An object is refused past `MAX_MEMBERS` members when the body is read, naming where it is."""
    wide = {str(i): "random" for i in range(MAX_MEMBERS + 1)}
    for body, where in (({"bots": wide}, "bots"), ({"seats": 1, **wide}, "the body"),
                        ({"stand_in": {"bot": "greedy", "after": 5, **wide}}, "stand_in"),
                        ({"belt": {"asteroids": [{}, wide]}}, "belt.asteroids[1]")):
        answer = client.post("/api/games", json=body)
        assert answer.status_code == 422, answer.text
        error = answer.json()["error"]
        assert error["code"] == "invalid"
        assert error["message"].startswith(f"{where}: an object has at most {MAX_MEMBERS} members"), error
    game = client.post("/api/games", json={"belt": "tutorial"}).json()
    for action in ("abandon", "hint"):
        answer = client.post(f"/api/games/{game['id']}/{action}", json={"token": "x", **wide})
        assert answer.status_code == 422 and "at most 256 members" in answer.json()["error"]["message"]
    assert game["id"] in client.app.state.hub.games  # type: ignore[attr-defined]  # (nothing was ended)
    just_so = client.post("/api/games", json={"bots": {}, **{f"x{i}": 1 for i in range(MAX_MEMBERS - 1)}})
    assert just_so.status_code == 422 and "unknown field" in just_so.json()["error"]["message"]  # read as before


def test_a_websocket_message_of_too_many_members_is_refused_before_validation(client: TestClient) -> None:
    """A `sync` of 64 KB with 6,500 members cost 124 ms to refuse, so one spectator's burst of forty held the
    event loop for five seconds; a message of more than `MAX_PARTS` members and items is refused at a glance."""
    game = client.post("/api/games", json={"belt": "tutorial"}).json()
    wide = '{"type":"sync",' + ",".join(f'"k{i}":1' for i in range(6_500)) + "}"
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as session:
        assert session.receive_json()["type"] == "state"
        session.send_text(wide)
        answer = session.receive_json()
        assert answer["type"] == "error" and answer["code"] == "invalid", answer
        assert answer["message"] == f"a message has at most {MAX_PARTS} members and items in all"
        session.send_text(json.dumps({"type": "act", "settler": "s1", "action": "wait", "ref": 1}))
        while (update := session.receive_json())["type"] != "update":  # an act is read as before
            assert update["type"] != "error", update
        assert update["seq"] == 1


# ----- the client's files: a name too long for the file system is not found -----
@pytest.mark.parametrize("path", ["/" + "a" * 300, "/a" * 3_000, "/assets/" + "b" * 256 + ".js"])
def test_a_name_too_long_for_the_file_system_is_not_found(settings: Settings, path: str) -> None:
    """The file system refuses such a name (ENAMETOOLONG), which `Path.is_file` raises rather than answers: it
    was a `500 internal` and a traceback in the log."""
    (settings.static_dir / "assets").mkdir(parents=True)
    (settings.static_dir / "index.html").write_text("<!doctype html><title>x</title>")
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        answer = client.get(path)
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"
        assert client.get("/index.html").status_code == 200
