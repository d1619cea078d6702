"""What the thirteenth fresh attack found on a single server holding many games: the running games nobody finished
stay running, let go (`Resting`) and listed, for good, and a server that had run for long held tens of thousands
of them. Each building of the lobby (once a second at most, whoever asks) checked and encoded every one of them
again on the event loop, 0.56 s of CPU with 50,000; each create, refused ones too (at no rate), and each check of
the lobby's version read every one of them to find the open games that expired and to count its address's
games. A game let go's checked text is now kept with its summary, the open ones are the only ones looked at for
expiry, and each address's games let go are counted as they are let go. Besides: a long game's replay (13.7 MB)
was gzipped again at every request on the event loop (97 ms in one piece), a `HEAD` of the API answered `404`, a
message's member named with a lone surrogate was refused naming no field, and a WebSocket handshake sent after a
request in the same write was upgraded before that request was answered (its answer then inside the WebSocket's
stream) and closed by uvicorn's keep-alive timer 5 s after its 101."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import gzip
import json
import os
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.middleware import gzip as gzip_middleware
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from asteroid_mining.server import lobby as lobby_module
from asteroid_mining.server.app import create_app
from asteroid_mining.server.config import Settings
from asteroid_mining.server.hub import GameHub, Resting
from asteroid_mining.storage.sqlite import DATABASE_NAME

from .helpers import free_port, served_in_thread, two_loops_belt, winning_seed
from .hubs import hub_of, on_loop
from .test_attack_s11 import _count_calls
from .test_hardening_ws_process import DEADLINE

LET_GO = 300
"""Games acted in once and left, let go at start-up: listed from their summaries."""
MINE = 19
"""Of them, the games of the test client's address (with the game it created: `max_games_per_client`, 20)."""


def _settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static")


@contextlib.contextmanager
def _request_then_handshake(tmp_path: Path, path: str) -> Iterator[socket.socket]:
    """A server in a thread with a game of one seat, and a socket to it that has sent `GET path` and that game's
    WebSocket handshake in one write (`_send_request_then_handshake`)."""
    settings = Settings(data_dir=tmp_path, static_dir=tmp_path / "static", port=free_port())
    with served_in_thread(settings, DEADLINE):
        game = httpx.post(f"http://127.0.0.1:{settings.port}/api/games", json={"seats": 1}, timeout=DEADLINE).json()
        with socket.create_connection(("127.0.0.1", settings.port), timeout=DEADLINE) as sock:
            _send_request_then_handshake(sock, path, game["id"])
            yield sock

def _send_request_then_handshake(sock: socket.socket, path: str, game: str) -> None:
    """Send `GET path` and a WebSocket handshake to `game`'s seat-less connection in one write."""
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                  f"GET /api/games/{game}/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())


def _read_to_state(sock: socket.socket) -> bytes:
    """What `sock` receives up to and including the start of the WebSocket's first `state` message."""
    got = b""
    while b'"type":"state"' not in got:
        chunk = sock.recv(65536)
        assert chunk, got
        got += chunk
    return got


def _many_games_stored(tmp_path: Path) -> str:
    """A store holding one open game created by the test client and `LET_GO` games acted in once a quarter of an
    hour ago (their stored rows copied from it: `MINE` of them the test client's, the others each another
    address's); the open game's id."""
    with TestClient(create_app(_settings(tmp_path))) as client:
        answer = client.post("/api/games", json={"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                                 "seed": winning_seed()})
        assert answer.status_code == 201, answer.text
        template: str = answer.json()["id"]
    db = sqlite3.connect(tmp_path / "data" / DATABASE_NAME)
    row = db.execute("SELECT * FROM games WHERE id = ?", (template,)).fetchone()
    played = time.time() - 1_000  # (past `idle_game_seconds`, 600: let go at start-up, not loaded)
    with db:
        for n in range(LET_GO):
            copy = list(row)
            meta: dict[str, Any] = json.loads(copy[6])
            if n >= MINE:
                meta["client"] = f"10.1.{n // 250}.{n % 250}"
            copy[0], copy[1], copy[6] = f"played{n:05d}", played - n, json.dumps(meta)
            db.execute(f"INSERT INTO games VALUES ({', '.join('?' * len(copy))})", copy)
            db.execute("INSERT INTO commands (game, seq, action, author, at, status, round, turn) "
                       "VALUES (?, 1, '{}', '{}', ?, 'running', 1, '1')", (copy[0], played))
    db.close()
    return template


def test_a_lobby_building_checks_again_no_game_let_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lobby is built again (its listing's second second): the summaries of the games let go, unchanged, are
    not checked against their model and encoded again, only the games held (the open one); the pages list every
    game as before."""
    _many_games_stored(tmp_path)
    with TestClient(create_app(_settings(tmp_path))) as client:
        hub = hub_of(client)
        assert len(hub.resting) == LET_GO and len(hub.games) == 1
        cache = client.app.state.lobby_cache  # type: ignore[attr-defined]
        now = [0.0]
        cache.clock = lambda: now[0]
        first = client.get("/api/games", params={"limit": 200}).json()
        checked: list[str] = []
        listed = lobby_module._listed

        def counted(game: dict[str, Any]) -> Any:
            checked.append(str(game["id"]))
            return listed(game)

        monkeypatch.setattr(lobby_module, "_listed", counted)
        builds = cache.builds
        now[0] += 2 * client.app.state.settings.lobby_cache_seconds  # type: ignore[attr-defined]
        again = client.get("/api/games", params={"limit": 200}).json()
        assert cache.builds == builds + 1
        assert len(checked) == 1 and checked[0] not in hub.resting  # 301 before
        assert again == first and again["total"] == LET_GO + 1


def test_expiry_and_an_address_s_count_read_no_game_let_go_that_was_acted_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A check of the lobby's version and a create refused at the quota look at no game let go that was acted in
    (only open games expire); the address's games let go are counted all the same, as often as one is loaded and
    let go again."""
    template = _many_games_stored(tmp_path)
    with TestClient(create_app(_settings(tmp_path))) as client:
        hub: GameHub = hub_of(client)
        looked: list[Resting] = []
        expired = hub._expired_resting

        def counted(resting: Resting) -> bool:
            looked.append(resting)
            return expired(resting)

        monkeypatch.setattr(hub, "_expired_resting", counted)
        on_loop(client, lambda: hub._rest(hub.games[template]))  # the open game let go too
        on_loop(client, hub.lobby_version)
        body = {"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": 1}
        refused = client.post("/api/games", json=body)
        assert refused.status_code == 429 and "20 running games" in refused.json()["error"]["message"]
        assert [r.summary["id"] for r in looked] == [template] * 2  # 301 a time before
        assert client.get(f"/api/games/{template}").status_code == 200  # loaded for the read, let go after it
        assert template in hub.resting and template not in hub.games
        again = client.post("/api/games", json=body)
        assert again.status_code == 429 and "20 running games" in again.json()["error"]["message"]


def test_a_head_of_an_api_path_is_answered_as_its_get_without_the_body(client: TestClient) -> None:
    """`HEAD /api/health` and of the lobby: the status and headers of their `GET`, no body (a `404` before); a
    path of the API that is none is `404` to both."""
    for path in ("/api/health", "/api/games"):
        got, head = client.get(path), client.head(path)
        assert (head.status_code, got.status_code) == (200, 200), head.text
        assert head.content == b"" and got.content
        assert head.headers["content-type"] == got.headers["content-type"] == "application/json"
        assert head.headers["content-length"] == str(len(got.content))
    assert client.head("/api/nothing").status_code == client.get("/api/nothing").status_code == 404


@pytest.mark.parametrize("text", [r'{"type":"sync","after":0,"\ud800":1}',
                                  r'{"type":"act","settler":"s1","action":"wait","ref":1,"x\udfffy":1}'])
def test_a_message_member_named_with_a_lone_surrogate_is_refused_naming_it(client: TestClient, text: str) -> None:
    """A member's name of valid JSON escapes that is no text (a lone surrogate) is `error invalid` naming it,
    escaped (the name as it is cannot be sent back): pydantic says it of the whole message, and no field was
    named; the connection reads on."""
    game = client.post("/api/games", json={"belt": "tutorial"}).json()
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as session:
        assert session.receive_json()["type"] == "state"
        session.send_text(text)
        answer = session.receive_json()
        name = "\\ud800" if "ud800" in text else "x\\udfffy"
        assert (answer["type"], answer["code"], answer.get("field")) == ("error", "invalid", name), answer
        assert answer["message"].startswith(f"unknown field '{name}'")
        session.send_text(json.dumps({"type": "act", "settler": "s1", "action": "wait", "ref": 1}))
        while (update := session.receive_json())["type"] != "update":
            assert update["type"] != "error", update
        assert update["seq"] == 1


def test_a_websocket_whose_handshake_follows_a_request_in_the_same_read_is_not_timed_out_as_idle_http(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A request and a WebSocket handshake sent in one write: the request is answered, the connection upgraded,
    and once the request's answer is complete neither uvicorn's keep-alive timer nor the header deadline is
    armed on the connection (the keep-alive timer closed the WebSocket `keep_alive_seconds`, 5 s, after its
    101)."""
    upgraded: list[HttpToolsProtocol] = []
    upgrade = HttpToolsProtocol.handle_websocket_upgrade

    def recorded(self: HttpToolsProtocol) -> None:
        upgraded.append(self)
        upgrade(self)

    monkeypatch.setattr(HttpToolsProtocol, "handle_websocket_upgrade", recorded)
    with _request_then_handshake(tmp_path, "/api/health") as sock:
        got = _read_to_state(sock)  # (sent after the request's answer is complete, on the same loop)
        assert got.startswith(b"HTTP/1.1 200") and b"HTTP/1.1 101" in got
        assert len(upgraded) == 1
        protocol: Any = upgraded[0]
        assert protocol.timeout_keep_alive_task is None  # (armed before: it closed the WebSocket)
        assert protocol._deadline is None


def test_a_kept_replay_is_sent_gzipped_as_kept_not_compressed_again(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay kept (`ReplayCache`) is sent gzipped as it was kept, to a client that takes gzip: neither the
    middleware nor anything else compresses it again for each request (a long game's, 13.7 MB, was 97 ms of the
    event loop's CPU a request in one piece); a client that does not take gzip gets the text."""
    game = client.post("/api/games", json={"seats": 1, "belt": "tutorial", "seed": 5}).json()
    assert client.post(f"/api/games/{game['id']}/abandon", json={"token": game["seats"][0]["token"]}).status_code == 200
    path = f"/api/games/{game['id']}/replay"
    plain = client.get(path, headers={"accept-encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers and len(plain.content) > 1024
    gzipped = _count_calls(monkeypatch, gzip_middleware.GZipResponder, "_compress_body")
    compressed = _count_calls(monkeypatch, gzip, "compress")
    again = [client.get(path, headers={"accept-encoding": "gzip"}) for _ in range(3)]
    assert gzipped[0] == 0 and compressed[0] == 0  # (3 and 0 before: the middleware's, once a request)
    assert all(a.headers["content-encoding"] == "gzip" and a.content == plain.content for a in again)


def test_a_websocket_handshake_waits_for_the_answer_of_the_request_sent_before_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lobby request and a WebSocket handshake in one write, the lobby held until the test lets it go: the
    handshake reaches no application meanwhile, and the 101 follows the lobby's whole answer (it came before, and
    the answer then inside the WebSocket's stream)."""
    started, release, arrived = threading.Event(), threading.Event(), threading.Event()

    async def held(self: GameHub) -> list[dict[str, Any]]:
        started.set()
        await asyncio.to_thread(release.wait, DEADLINE)
        return []

    connect = GameHub.connect

    def counted(self: GameHub, client: str) -> bool:
        arrived.set()
        return connect(self, client)

    monkeypatch.setattr(GameHub, "lobby_games", held)
    monkeypatch.setattr(GameHub, "connect", counted)
    with _request_then_handshake(tmp_path, "/api/games") as sock:
        assert started.wait(DEADLINE)
        # (the handshake was read with the request: the WebSocket, were it let through, reaches the
        # application within this second; before, it did at once)
        assert not arrived.wait(1.0)
        release.set()
        got = _read_to_state(sock)
    head_end = got.index(b"\r\n\r\n") + 4
    length = int(got[:head_end].lower().split(b"content-length: ")[1].split(b"\r\n")[0])
    assert got.startswith(b"HTTP/1.1 200") and got[head_end + length:].startswith(b"HTTP/1.1 101"), got[:400]
    assert json.loads(got[head_end:head_end + length])["games"] == []
