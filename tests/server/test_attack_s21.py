"""What the twelfth fresh attack found on a single server's endpoints: a request for a file of the client naming
100 ranges was sent as 100 parts, each read from the file in a thread of its own (26.8 ms of CPU a request,
fourteen times the whole file's, at no rate), and a WebSocket message holding integers of thousands of digits was
read digit by digit by parsers whose time grows with an integer's digits squared (2.3 ms of CPU a message,
fourteen times a refused `act`'s). A file is now sent in one range at most, the whole of it for a header naming
several, and a message with many digits is read by a parser that reads at most `MAX_INTEGER_CHARS` of an
integer."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from websockets.frames import Frame, Opcode

from asteroid_mining.server import Settings, messages, transport
from asteroid_mining.server.messages import MessageError, parse
from asteroid_mining.server.schemas import CLIENT_MESSAGE, SyncMessage
from asteroid_mining.server.transport import CLOSE_POLICY, MAX_NEGOTIATION_BYTES

from .helpers import free_port, served_in_thread, websocket_handshake
from .test_attack_s18 import WS_MAX_SIZE, _accepted_websocket, _waiting
from .test_attack_s20 import CLOSE
from .test_hardening_ws_process import DEADLINE, close_code, read_frames

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

FILE = bytes(range(256)) * 64
"""A file of the client (16 KB)."""


@pytest.fixture
def asset(settings: Settings) -> str:
    """A built client holding one hashed file; its path."""
    static = settings.static_dir
    (static / "assets").mkdir(parents=True)
    (static / "index.html").write_bytes(b"<!doctype html><title>Asteroid Mining</title>")
    (static / "assets" / "main-ABCD1234.js").write_bytes(FILE)
    (static / ".built").write_text("")
    return "/assets/main-ABCD1234.js"


def test_a_file_asked_for_in_many_ranges_is_sent_whole(client: TestClient, asset: str) -> None:
    many = "bytes=" + ",".join(f"{at}-{at}" for at in range(0, 100 * 100, 100))
    answer = client.get(asset, headers={"range": many})
    # (before: 206, multipart/byteranges of 100 parts, each read from the file in a thread of its own)
    assert answer.status_code == 200 and answer.content == FILE
    assert answer.headers["content-length"] == str(len(FILE))
    assert not answer.headers["content-type"].startswith("multipart/")


def test_a_file_asked_for_in_one_range_is_sent_in_it(client: TestClient, asset: str) -> None:
    answer = client.get(asset, headers={"range": "bytes=100-199"})
    assert answer.status_code == 206 and answer.content == FILE[100:200]
    assert answer.headers["content-range"] == f"bytes 100-199/{len(FILE)}"
    overlapping = client.get(asset, headers={"range": "bytes=0-9, 5-19"})  # several, however they overlap
    assert overlapping.status_code == 200 and overlapping.content == FILE


@pytest.fixture
def parsed_digits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The digits of each integer `messages.parse` reads, by either of its parsers (a text with as many digits as
    pydantic-core's parser is handed: it reads each)."""
    seen: list[int] = []
    fast, slow = CLIENT_MESSAGE, json.loads

    class Watched:
        def validate_json(self, text: str) -> Any:
            seen.append(sum(char.isdigit() for char in text))
            return fast.validate_json(text)

        def validate_python(self, data: Any) -> Any:
            return fast.validate_python(data)

    def loads(text: str, **options: Any) -> Any:
        read = options.get("parse_int", int)

        def counted(digits: str) -> Any:
            value = read(digits)
            seen.append(len(str(abs(value))))
            return value

        return slow(text, **{**options, "parse_int": counted})

    monkeypatch.setattr("asteroid_mining.server.messages.CLIENT_MESSAGE", Watched())
    monkeypatch.setattr(json, "loads", loads)  # (the module `messages` reads it from)
    return seen


HUGE = "9" * 4299
"""Python's longest integer (4,300 digits) less one: read in time that grows with its digits squared."""


def test_a_message_of_huge_integers_has_none_read_whole(parsed_digits: list[int]) -> None:
    text = '{"type":"act","action":"move","settler":"s1","target":"a1","x":[' + ",".join([HUGE] * 14) + "]}"
    with pytest.raises(MessageError) as refused:
        parse(text, 64 * 1024)
    assert (refused.value.code, refused.value.field) == ("invalid", "x")
    assert parsed_digits and max(parsed_digits) <= messages.MAX_DIGITS  # (before: 60,188, then 4,299)
    parsed_digits.clear()

    with pytest.raises(MessageError) as refused:  # a field's huge integer: out of its range, named
        parse('{"type":"sync","after":' + HUGE + "}", 64 * 1024)
    assert (refused.value.code, refused.value.field) == ("invalid", "after")
    assert "less than or equal to" in refused.value.message
    assert max(parsed_digits) <= messages.MAX_INTEGER_CHARS  # (before: 4,299)
    parsed_digits.clear()

    with pytest.raises(MessageError) as refused:
        parse('{"type":"sync","after":-' + HUGE + "}", 64 * 1024)
    assert refused.value.field == "after" and "greater than or equal to" in refused.value.message


def test_messages_with_few_digits_are_read_as_they_were(parsed_digits: list[int]) -> None:
    sync = parse('{"type":"sync","after":9223372036854775807}', 64 * 1024)
    assert isinstance(sync, SyncMessage) and sync.after == 2**63 - 1
    digits = "1" * 64  # a settler named by its digits, the longest name: still the usual path
    usual = {"type": "act", "action": "move", "settler": digits, "target": digits, "ref": digits}
    assert parse(json.dumps(usual), 64 * 1024).ref == digits
    assert parsed_digits[-1] == 3 * 64
    more = json.dumps({**usual, "x": digits + "1"})  # past MAX_DIGITS: the slower path, which says the same
    assert sum(char.isdigit() for char in more) > messages.MAX_DIGITS
    with pytest.raises(MessageError) as refused:
        parse(more, 64 * 1024)
    assert (refused.value.code, refused.value.field) == ("invalid", "x")


def test_a_file_the_build_did_not_compress_is_sent_as_it_is(client: TestClient, asset: str) -> None:
    answer = client.get(asset, headers={"accept-encoding": "gzip"})  # (a source map: no .gz nor .br beside it)
    assert answer.status_code == 200 and answer.content == FILE
    assert "content-encoding" not in answer.headers  # (before: gzipped again at every request)
    assert answer.headers["content-length"] == str(len(FILE))


def _handshake_answer(port: int, path: str, headers: str) -> tuple[bytes, bytes]:
    """The head of the answer to a WebSocket handshake carrying `headers`, and what follows until the server
    closes the connection (read within `DEADLINE`)."""
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection(("127.0.0.1", port), timeout=DEADLINE) as sock:
        sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{headers}\r\n").encode())
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(1 << 16)
            assert chunk, f"closed unanswered after {answer!r}"
            answer += chunk
        head, _, rest = answer.partition(b"\r\n\r\n")
        if head.startswith(b"HTTP/1.1 101"):
            return head, rest
        while chunk := sock.recv(1 << 16):  # (a refusal: read until the server closes)
            rest += chunk
        return head, rest


def test_a_handshake_offering_many_extensions_or_subprotocols_is_431_and_closed(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, static_dir=tmp_path / "static", port=free_port())
    with served_in_thread(settings, DEADLINE):
        game = httpx.post(f"http://127.0.0.1:{settings.port}/api/games", json={"seats": 1}, timeout=DEADLINE).json()
        path = f"/api/games/{game['id']}/ws"
        names = ", ".join(["x"] * 2600)  # (8 KB a line: `websockets`' bound on one; seven of them cost 30 ms)
        for header in ("Sec-WebSocket-Extensions", "Sec-WebSocket-Protocol"):
            head, body = _handshake_answer(settings.port, path, f"{header}: {names}\r\n" * 7)
            assert head.startswith(b"HTTP/1.1 431"), head  # (before: 101, each name parsed)
            assert json.loads(body)["error"]["code"] == "headers_too_large"
        within = "x, " * ((MAX_NEGOTIATION_BYTES - len("permessage-deflate")) // 3) + "permessage-deflate"
        assert len(within) <= MAX_NEGOTIATION_BYTES
        head, _ = _handshake_answer(settings.port, path, f"Sec-WebSocket-Extensions: {within}\r\n")
        assert head.startswith(b"HTTP/1.1 101") and b"permessage-deflate" in head
        browser = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
        assert _handshake_answer(settings.port, path, browser)[0].startswith(b"HTTP/1.1 101")


def _spectator_socket(settings: Settings) -> socket.socket:
    """A spectator's WebSocket on the server of `settings` (a game of its own), its handshake read."""
    game = httpx.post(f"http://127.0.0.1:{settings.port}/api/games", json={"seats": 1}, timeout=DEADLINE).json()
    sock = socket.create_connection(("127.0.0.1", settings.port), timeout=DEADLINE)
    websocket_handshake(sock, f"/api/games/{game['id']}/ws")
    return sock


def test_a_message_whose_fragments_come_too_slowly_closes_the_connection(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "MESSAGE_SECONDS", 0.0)  # (its first fragment is late as soon as it is read)
    settings = Settings(data_dir=tmp_path, static_dir=tmp_path / "static", port=free_port())
    with served_in_thread(settings, DEADLINE), _spectator_socket(settings) as sock:
        sock.sendall(Frame(Opcode.TEXT, b'{"type":"sync",', fin=False).serialize(mask=True))
        assert close_code(read_frames(sock)) == CLOSE_POLICY  # (before: kept for as long as it answered pings)


def test_a_message_in_fragments_within_its_deadline_is_served(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, static_dir=tmp_path / "static", port=free_port())
    with served_in_thread(settings, DEADLINE), _spectator_socket(settings) as sock:
        act = b'{"type":"act","action":"wait","settler":"s1"}'
        sock.sendall(Frame(Opcode.TEXT, act[:20], fin=False).serialize(mask=True))
        sock.sendall(Frame(Opcode.CONT, act[20:]).serialize(mask=True))
        read = b""
        while b'"read_only"' not in read:  # (a spectator's act, whole, answered)
            chunk = sock.recv(1 << 16)
            assert chunk, f"closed before the act was answered: {read[-300:]!r}"
            read += chunk
        sock.sendall(CLOSE)
        assert close_code(read_frames(sock)) == 1000


def test_one_message_of_the_largest_frame_waits_alone() -> None:
    """A message as large as a frame may be (`ws_max_size` less a few bytes), alone, waits for the application,
    which answers it `too_large`: it is no flood (it was closed 4429, its client told it sent too fast)."""

    async def scenario() -> None:
        websocket, transport, hold = await _accepted_websocket(compressed=False)
        text = b'"' + b"a" * (WS_MAX_SIZE - 100) + b'"'
        websocket.data_received(Frame(Opcode.TEXT, text).serialize(mask=True))
        assert not transport.closed  # (before: closed with 4429)
        assert _waiting(websocket) == [text.decode()]
        websocket.connection_lost(None)
        hold.set()

    asyncio.run(scenario())
