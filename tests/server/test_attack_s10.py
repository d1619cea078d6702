"""What a fresh attack on the server found, each held by a test at the level it was found (HTTP, WebSocket)."""

from __future__ import annotations

import contextlib
import gc
import json
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from asteroid_mining.bodies import MAX_MEMBERS
from asteroid_mining.server import Settings, create_app
from asteroid_mining.server import replay as replay_module
from asteroid_mining.server.live import LiveGame
from asteroid_mining.server.messages import MAX_PARTS
from asteroid_mining.server.transport import MAX_HEADER_BYTES

from .helpers import running_server


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


# ----- a request's headers are bounded in bytes -----
def _answer_to(port: int, head: bytes, filler: bytes) -> bytes:
    """What the server answers a request that starts with `head` and has headers `filler` (then ends), read until
    the server closes; sending stops early when the server has closed already."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        with contextlib.suppress(OSError):  # the server answers and closes before it has all of it
            sock.sendall(head + filler + b"\r\n")
        answer = b""
        with contextlib.suppress(OSError):
            while chunk := sock.recv(65536):
                answer += chunk
                if b"\r\n\r\n" in answer and not answer.startswith(b"HTTP/1.1 101"):
                    head_end = answer.index(b"\r\n\r\n") + 4
                    length = int(re.search(rb"content-length: (\d+)", answer, re.IGNORECASE).group(1))  # type: ignore[union-attr]
                    if len(answer) >= head_end + length:
                        break
        return answer


def test_request_headers_past_the_bound_are_431_and_closed(tmp_path: Path) -> None:
    """uvicorn's httptools protocol keeps every header it is sent: 50 MB of headers sent within the header deadline
    were held whole, 50 MB of memory for one socket (and a few hundred sockets per address). Past
    `MAX_HEADER_BYTES` the request is answered `431` and its connection closed, a WebSocket's handshake too."""
    many = b"".join(b"X-Filler-%d: %s\r\n" % (i, b"a" * 1000) for i in range(2_000))  # 2 MB
    just_under = b"X-Filler: " + b"a" * (MAX_HEADER_BYTES - 200) + b"\r\n"
    with running_server(tmp_path) as server:
        for head in (b"GET /api/health HTTP/1.1\r\nHost: x\r\n",
                     b"GET /api/games/nothing/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     b"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"):
            answer = _answer_to(server.port, head, many)
            assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
            body = json.loads(answer.split(b"\r\n\r\n", 1)[1])
            assert body["error"]["code"] == "headers_too_large"
        assert _answer_to(server.port, b"GET /api/health HTTP/1.1\r\nHost: x\r\n", just_under).startswith(
            b"HTTP/1.1 200 ")
        assert b"Traceback" not in server.log.read_bytes()


# ----- the history rate limit counts the work of a build, not only the request -----
def test_a_history_built_costs_its_reader_by_its_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A running game's history is built again at each new seq: asking for a 20,000-command game's replay after
    each command cost 0.6 s of CPU a request, 1.2 s a second from one address within the rate limit. A build now
    costs its address a token for every `BUILD_COMMANDS_PER_TOKEN` commands besides the request's own; an answer
    from the cache costs the request alone."""
    monkeypatch.setattr(replay_module, "BUILD_COMMANDS_PER_TOKEN", 1)  # (a short game stands for a long one)
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        history_rate_per_second=0.001, history_rate_burst=6)
    with TestClient(create_app(settings)) as client:
        game = client.post("/api/games", json={"belt": "tutorial", "settlers_per_seat": 1}).json()
        with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as session:
            assert session.receive_json()["type"] == "state"
            for ref in range(4):
                session.send_text(json.dumps({"type": "act", "settler": "s1", "action": "wait", "ref": ref}))
                while (update := session.receive_json())["type"] != "update":
                    assert update["type"] != "error", update
        assert client.get(f"/api/games/{game['id']}/replay").status_code == 200  # built: 1 + 4 tokens of 6
        assert client.get(f"/api/games/{game['id']}/events").status_code == 200  # from the cache: 1 token
        answer = client.get(f"/api/games/{game['id']}/replay")
        assert answer.status_code == 429, answer.text
        assert answer.json()["error"]["code"] == "rate_limited" and int(answer.headers["retry-after"]) >= 1


# ----- the lobby: built again only when it changes, and rate-limited per address -----
def test_the_lobby_is_built_once_while_nothing_changes_and_is_rate_limited(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Listing the lobby encoded every game for every request (21 ms of CPU with 400 games, a quarter of a second
    at the cap) and no limit held it: one client asking in a loop kept the event loop. The listing is now built
    again only when what it lists changes, and each address has a bucket of lobby listings."""
    from asteroid_mining.server.hub import GameHub

    builds = 0
    listing = GameHub.lobby

    def counted(hub: GameHub) -> list[dict[str, Any]]:
        nonlocal builds
        builds += 1
        return listing(hub)

    monkeypatch.setattr(GameHub, "lobby", counted)
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        lobby_rate_per_second=0.001, lobby_rate_burst=7)
    with TestClient(create_app(settings)) as client:
        first = client.post("/api/games", json={"belt": "tutorial", "seed": 1}).json()
        answers = [client.get("/api/games") for _ in range(4)]
        assert [a.status_code for a in answers] == [200] * 4
        assert builds == 1
        assert [g["id"] for g in answers[-1].json()["games"]] == [first["id"]]
        # gzipped as the server's other large answers are, and the same document either way
        plain = client.get("/api/games", headers={"accept-encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.json() == answers[0].json()
        assert builds == 1
        second = client.post("/api/games", json={"belt": "tutorial", "seed": 2}).json()  # a change: built again
        listed = client.get("/api/games").json()["games"]
        assert {g["id"] for g in listed} == {first["id"], second["id"]} and builds == 2
        with client.websocket_connect(f"/api/games/{first['id']}/ws?token={first['seats'][0]['token']}") as seat:
            assert seat.receive_json()["type"] == "state"
            mine = next(g for g in client.get("/api/games").json()["games"] if g["id"] == first["id"])
            assert mine["seats"][0]["connected"] == 1 and builds == 3
        refused = client.get("/api/games")  # the eighth from this address, whose bucket holds 7
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"]["code"] == "rate_limited" and int(refused.headers["retry-after"]) >= 1
        assert builds == 3


def test_the_browser_lobby_polls_well_within_the_lobby_rate_limit() -> None:
    """The browser's lobby asks for the listing every few seconds: a player never meets the limit."""
    source = (Path(__file__).parents[2] / "web" / "src" / "ui" / "lobby.ts").read_text()
    interval = int(re.search(r"setInterval\(\(\) => void this\.refresh\(\), (\d+)\)", source).group(1))  # type: ignore[union-attr]
    defaults = Settings()
    assert 1000 / interval * 10 < defaults.lobby_rate_per_second * 10 + defaults.lobby_rate_burst


# ----- a finished game: loaded once for its summary and view, and each load charged to the address -----
def test_a_finished_game_read_again_is_not_loaded_again(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each read of a finished game's summary or view loaded it from the store again (about 50 ms of CPU on a
    large belt), with no limit. A finished game never changes: its answers are kept, within a budget of bytes."""
    from asteroid_mining.server.hub import GameHub

    loads = 0
    load = GameHub._load

    async def counted(hub: GameHub, game_id: str) -> LiveGame | None:
        nonlocal loads
        loads += 1
        return await load(hub, game_id)

    monkeypatch.setattr(GameHub, "_load", counted)
    game = _finished_game(client)
    summaries = [client.get(f"/api/games/{game['id']}/summary") for _ in range(6)]
    details = [client.get(f"/api/games/{game['id']}") for _ in range(6)]
    assert {a.status_code for a in summaries + details} == {200}
    assert loads == 2  # once for each
    assert all(a.json() == summaries[0].json() for a in summaries)
    assert all(a.json() == details[0].json() for a in details)
    assert summaries[0].json()["status"] == "abandoned" and details[0].json()["state"]
    assert 0 < client.app.state.finished.bytes <= client.app.state.settings.finished_cache_bytes  # type: ignore[attr-defined]


def test_loading_finished_games_is_charged_to_the_address(tmp_path: Path) -> None:
    """Every read that loads a finished game (its goals, a spectator watching it, a summary not yet kept) takes a
    token of the address's history bucket: past it, `429 rate_limited` (close code 4429 for a WebSocket)."""
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        history_rate_per_second=0.001, history_rate_burst=3)
    with TestClient(create_app(settings)) as client:
        game = _finished_game(client)
        assert client.get(f"/api/games/{game['id']}/goals?lesson=fly").status_code == 200
        assert client.get(f"/api/games/{game['id']}/summary").status_code == 200  # loaded, then kept
        assert client.get(f"/api/games/{game['id']}/summary").status_code == 200  # kept: no token taken
        with client.websocket_connect(f"/api/games/{game['id']}/ws") as spectator:
            assert spectator.receive_json()["type"] == "state"
        refused = client.get(f"/api/games/{game['id']}/goals?lesson=fly")
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"]["code"] == "rate_limited" and int(refused.headers["retry-after"]) >= 1
        with client.websocket_connect(f"/api/games/{game['id']}/ws") as late:
            assert late.receive_json()["code"] == "rate_limited"
            with pytest.raises(WebSocketDisconnect) as closed:
                late.receive_json()
            assert closed.value.code == 4429
        assert client.get(f"/api/games/{game['id']}/summary").status_code == 200  # what is kept costs nothing
