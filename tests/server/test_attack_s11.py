"""What the second fresh attack on the server found, each held by a test at the level it was found (HTTP)."""

from __future__ import annotations

import contextlib
import gzip
import itertools
import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.middleware import gzip as gzip_middleware

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.live import LiveGame
from asteroid_mining.server.schemas import GameDetail
from asteroid_mining.server.transport import CLOSE_TOO_BIG, MAX_FRAGMENTS, MAX_TARGET_BYTES

from .helpers import running_server, websocket_handshake


def _count_calls(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Count the calls of `owner.name` (the count is the list's one item)."""
    calls = [0]
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


# ----- a game's view: encoded and gzipped once per change, not for every request -----
def test_the_view_of_a_game_in_play_is_encoded_once_until_it_changes(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """`GET /api/games/{id}` of a game in play validated and encoded the whole view for every request, and the
    middleware gzipped it again: 30 ms and 20 ms of CPU on the `large` belt's 565 KB, on the event loop, with no
    limit (eight clients in a loop held `/api/health` up to 0.7 s). The answer is kept, text and gzipped, until
    the game's seq, status or connections change."""
    game = client.post("/api/games", json={"seats": 1, "belt": "tutorial", "seed": 5}).json()
    views = _count_calls(monkeypatch, LiveGame, "detail")
    gzipped = _count_calls(monkeypatch, gzip_middleware.GZipResponder, "_compress_body")
    answers = [client.get(f"/api/games/{game['id']}", headers={"accept-encoding": encoding})
               for encoding in ("gzip", "gzip", "identity", "gzip, deflate")]
    assert {a.status_code for a in answers} == {200}
    assert views[0] == 1 and gzipped[0] == 0
    assert [a.headers.get("content-encoding") for a in answers] == ["gzip", "gzip", None, "gzip"]
    document = answers[0].json()
    assert all(a.json() == document for a in answers)
    assert GameDetail.model_validate(document).model_dump(mode="json") == document  # the documented shape
    live = client.app.state.hub.games[game["id"]]  # type: ignore[attr-defined]
    assert document == json.loads(json.dumps(live.detail()))  # (the view's lists may be tuples)
    views[0] -= 1  # (that call)

    token = game["seats"][0]["token"]
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={token}") as seat:
        assert seat.receive_json()["type"] == "state"
        connected = client.get(f"/api/games/{game['id']}").json()
        assert views[0] == 2  # who is connected changed the answer: it is built again
        assert connected["seats"][0]["connected"] == 1
        assert client.get(f"/api/games/{game['id']}").json() == connected and views[0] == 2


def test_a_finished_games_kept_view_is_not_gzipped_again(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished game's view was kept as text and gzipped by the middleware for every request (20 ms of CPU
    for a large belt's): it is kept gzipped too."""
    game = client.post("/api/games", json={"seats": 1, "belt": "tutorial", "seed": 5}).json()
    token = game["seats"][0]["token"]
    assert client.post(f"/api/games/{game['id']}/abandon", json={"token": token}).status_code == 200
    first = client.get(f"/api/games/{game['id']}")
    gzipped = _count_calls(monkeypatch, gzip_middleware.GZipResponder, "_compress_body")
    compressed = _count_calls(monkeypatch, gzip, "compress")
    again = [client.get(f"/api/games/{game['id']}") for _ in range(3)]
    assert gzipped[0] == 0 and compressed[0] == 0
    assert all(a.headers["content-encoding"] == "gzip" and a.json() == first.json() for a in again)
    assert first.json()["status"] == "abandoned"


# ----- games stay in the store for good: what one address creates is bounded in bytes -----
def test_the_bytes_of_new_games_are_charged_to_their_creators_address(tmp_path: Path) -> None:
    """Creating games had no limit but `max_games_per_client`, which finished games do not count: one client
    creating `large` games and abandoning each at once grew the database by 1.6 MB a second (5 games a second,
    a third of a core), for ever. Each new game's belt, in bytes as stored, is charged to its creator's address
    (`create_bytes_per_second`, `create_bytes_burst`): while in debt, `429 rate_limited`, and nothing is
    stored."""
    settings = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static", bot_delay=0.0,
                        create_bytes_per_second=0.001, create_bytes_burst=1)
    with TestClient(create_app(settings)) as client:
        first = client.post("/api/games", json={"belt": "tutorial", "seed": 5})
        assert first.status_code == 201, first.text
        hub = client.app.state.hub  # type: ignore[attr-defined]
        assert hub.games[first.json()["id"]].belt_bytes > 1000  # the belt document, as stored
        for refused in (client.post("/api/games", json={"belt": "tutorial", "seed": 5}),
                        client.post("/api/lessons/fly/games")):
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"]["code"] == "rate_limited"
            assert "belts" in refused.json()["error"]["message"] and int(refused.headers["retry-after"]) >= 1
        assert len(hub.games) == 1
        assert [g["id"] for g in client.get("/api/games").json()["games"]] == [first.json()["id"]]
    with TestClient(create_app(settings)) as other:  # the store holds the one game
        assert [g["id"] for g in other.get("/api/games").json()["games"]] == [first.json()["id"]]


def test_the_default_creation_budget_lets_a_player_start_many_large_games() -> None:
    """The bucket is sized for people: fifty `large` games (280 KB each) at once, then five tutorial games (4 KB)
    a second."""
    defaults = Settings()
    assert defaults.create_bytes_burst >= 50 * 290_000
    assert defaults.create_bytes_per_second >= 5 * 4_100


# ----- a request's target is bounded on its own -----
def _answer_to(port: int, request: bytes) -> bytes:
    """What the server answers `request`, read until it closes or the answer's body is whole."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        with contextlib.suppress(OSError):  # the server answers and closes before it has all of it
            sock.sendall(request)
        answer = b""
        with contextlib.suppress(OSError):
            while chunk := sock.recv(65536):
                answer += chunk
                if b"\r\n\r\n" in answer:
                    head, _, body = answer.partition(b"\r\n\r\n")
                    length = re.search(rb"content-length: (\d+)", head, re.IGNORECASE)
                    if length is not None and len(body) >= int(length.group(1)):
                        break
        return answer


def test_a_target_past_its_bound_is_414_and_closed_before_the_log(tmp_path: Path) -> None:
    """A request's target was bounded only with its headers (64 KiB): a 60 KB query of 15,000 parameters cost 27 ms
    of CPU a request, 50 times a short one's (parsed for the endpoint, and read again by the log's filter for
    tokens), and wrote 31 KB to the log. Past `MAX_TARGET_BYTES` the request is answered `414 uri_too_long` and its
    connection closed, before the application or the log sees it; a WebSocket's handshake too."""
    long_query = "/api/games/nothing/summary?" + "a=1&" * (MAX_TARGET_BYTES // 4)
    just_under = "/api/games/nothing/summary?" + "b" * (MAX_TARGET_BYTES - 40)
    with running_server(tmp_path) as server:
        for request in (f"GET {long_query} HTTP/1.1\r\nHost: x\r\n\r\n",
                        f"GET /{'x' * MAX_TARGET_BYTES} HTTP/1.1\r\nHost: x\r\n\r\n",
                        f"GET /api/games/nothing/ws?{'a=1&' * 3000} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                        "Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"):
            answer = _answer_to(server.port, request.encode())
            assert answer.startswith(b"HTTP/1.1 414 "), answer[:200]
            assert json.loads(answer.partition(b"\r\n\r\n")[2])["error"]["code"] == "uri_too_long"
        under = _answer_to(server.port, f"GET {just_under} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        assert under.startswith(b"HTTP/1.1 404 "), under[:200]
        assert _answer_to(server.port, b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 200 ")
        log = server.log.read_bytes()
        assert b"a=1&a=1&" not in log and b"Traceback" not in log


# ----- a WebSocket message comes in a bounded number of frames -----
def _frame(opcode: int, payload: bytes, fin: bool) -> bytes:
    """A client's frame (masked with a zero mask, which leaves the payload as it is), payload under 126 bytes."""
    return bytes([(0x80 if fin else 0) | opcode, 0x80 | len(payload)]) + b"\0\0\0\0" + payload


def _fragments(message: bytes, count: int) -> bytes:
    """`message` as a text message in `count` frames."""
    cuts = [len(message) * i // count for i in range(count + 1)]
    parts = [message[start:end] for start, end in itertools.pairwise(cuts)]
    assert len(parts) == count and all(0 < len(part) < 126 for part in parts)
    return b"".join(_frame(1 if i == 0 else 0, part, i == count - 1) for i, part in enumerate(parts))


def _server_frames(sock: socket.socket) -> Iterator[tuple[int, bytes]]:
    """The server's frames (opcode, payload), until it closes the socket."""
    buffer = b""

    def take(n: int) -> bytes:
        nonlocal buffer
        while len(buffer) < n:
            chunk = sock.recv(65536)
            if not chunk:
                raise EOFError
            buffer += chunk
        out, buffer = buffer[:n], buffer[n:]
        return out

    with contextlib.suppress(EOFError):
        while True:
            first, second = take(2)
            length = second & 0x7F
            if length == 126:
                length = int.from_bytes(take(2), "big")
            elif length == 127:
                length = int.from_bytes(take(8), "big")
            yield first & 0x0F, take(length)


def test_a_message_in_too_many_fragments_closes_the_connection(tmp_path: Path) -> None:
    """A WebSocket message may come in any number of frames, and each costs the server about 5 µs however short:
    a 60 KB message sent a byte a frame cost 290 ms of CPU, twenty a second within the rate limit (which counts
    whole messages), and one never finished was never counted. Past `MAX_FRAGMENTS` frames the connection is
    closed with 1009; a message in fewer is read as any other."""
    message = json.dumps({"type": "no-such-type", "pad": "x" * (2 * MAX_FRAGMENTS)}).encode()
    with running_server(tmp_path) as server:
        game = json.loads(_answer_to(server.port, b"POST /api/games HTTP/1.1\r\nHost: x\r\ncontent-type: "
                                     b"application/json\r\ncontent-length: 2\r\n\r\n{}").partition(b"\r\n\r\n")[2])
        for count, closed in ((MAX_FRAGMENTS, False), (MAX_FRAGMENTS + 1, True)):
            with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
                websocket_handshake(sock, f"/api/games/{game['id']}/ws")
                frames = _server_frames(sock)
                assert json.loads(next(frames)[1])["type"] == "state"
                sock.sendall(_fragments(message, count))
                opcode, payload = next(frames)
                if closed:
                    assert opcode == 8 and int.from_bytes(payload[:2], "big") == CLOSE_TOO_BIG
                else:
                    assert opcode == 1 and json.loads(payload)["code"] == "unknown_type"
        assert b"Traceback" not in server.log.read_bytes()
