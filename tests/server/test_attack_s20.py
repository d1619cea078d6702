"""What the eleventh fresh attack found on a single server's transport: pings and pongs never reach the
application, whose rate limit counts messages, so one WebSocket sending empty pings as fast as it could had every
one answered and was never closed (1.9 million in 10 s, 13 s of the server's CPU, `/api/health` answered in 7.3 s
at the median). A connection now has `transport.CONTROL_BURST` of them at once, refilled at
`transport.CONTROL_PER_SECOND`, and is closed with 4429 past them, as a flood of messages is. And a chunked
body's framing (chunk-size lines: leading zeros, extensions) was bounded by nothing but the body's deadline: one
socket sent a chunk extension of 1.5 GB in 5 s."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.frames import Frame, Opcode

from asteroid_mining.server import Settings, transport
from asteroid_mining.server.transport import (
    CLOSE_FLOOD,
    CONTROL_BURST,
    MAX_BODY_FRAMING_BYTES,
    MAX_BODY_FRAMING_SHARE,
    MAX_HEAD_WIRE_BYTES,
    MAX_HEADER_BYTES,
)

from .helpers import free_port, served_in_thread, websocket_handshake
from .test_attack_s18 import _protocol
from .test_hardening_ws_process import DEADLINE, close_code, read_frames

CLOSE = Frame(Opcode.CLOSE, (1000).to_bytes(2, "big")).serialize(mask=True)
"""A client's close frame."""


def _frames_until(sock: socket.socket, pongs: int) -> list[tuple[int, bytes]]:
    """The frames (opcode, payload) the server sends on `sock` until a close frame or the `pongs`th pong."""
    data, frames, at = bytearray(), [], 0
    sock.settimeout(DEADLINE)
    while True:
        while at + 2 <= len(data):  # (the server sends no frame of 126 bytes or more here but the `state`)
            size, head = data[at + 1] & 0x7F, 2
            if size >= 126:
                head = 4 if size == 126 else 10
                size = int.from_bytes(data[at + 2:at + head], "big") if at + head <= len(data) else 1 << 62
            if at + head + size > len(data):
                break
            frames.append((data[at] & 0x0F, bytes(data[at + head:at + head + size])))
            at += head + size
            if frames[-1][0] == Opcode.CLOSE.value or sum(kind == Opcode.PONG.value for kind, _ in frames) == pongs:
                return frames
        chunk = sock.recv(1 << 16)
        assert chunk, f"closed without a close frame after {frames[1:]}"
        data += chunk


def _spectator(tmp_path: Any) -> Iterator[socket.socket]:
    """A spectator's WebSocket (after its first `state`) on a server of its own, no ping or pong allowance
    refilled meanwhile (the burst alone: counts, not time)."""
    settings = Settings(data_dir=tmp_path, static_dir=tmp_path / "static", port=free_port())
    with served_in_thread(settings, DEADLINE):
        url = f"http://127.0.0.1:{settings.port}"
        game = httpx.post(f"{url}/api/games", json={"seats": 1}, timeout=DEADLINE).json()
        with socket.create_connection(("127.0.0.1", settings.port), timeout=DEADLINE) as sock:
            websocket_handshake(sock, f"/api/games/{game['id']}/ws")
            yield sock


@pytest.fixture
def spectator(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    monkeypatch.setattr(transport, "CONTROL_PER_SECOND", 0.0)
    yield from _spectator(tmp_path)


def test_pings_past_the_burst_close_the_connection_with_4429(spectator: socket.socket) -> None:
    spectator.sendall(Frame(Opcode.PING, b"").serialize(mask=True) * (CONTROL_BURST + 1))
    sent = _frames_until(spectator, CONTROL_BURST + 1)  # (before: every ping answered, the connection kept)
    assert sum(kind == Opcode.PONG.value for kind, _ in sent) == CONTROL_BURST
    assert close_code(sent) == CLOSE_FLOOD


def test_pongs_past_the_burst_close_the_connection_with_4429(spectator: socket.socket) -> None:
    pong = Frame(Opcode.PONG, b"").serialize(mask=True)
    spectator.sendall(pong * (CONTROL_BURST + 1) + Frame(Opcode.PING, b"").serialize(mask=True))
    sent = _frames_until(spectator, 1)  # (before: the ping after them answered)
    assert close_code(sent) == CLOSE_FLOOD
    assert not [kind for kind, _ in sent if kind == Opcode.PONG.value]


def test_pings_within_the_burst_are_answered_and_the_connection_kept(spectator: socket.socket) -> None:
    spectator.sendall(Frame(Opcode.PING, b"x" * 125).serialize(mask=True) * CONTROL_BURST)
    sent = _frames_until(spectator, CONTROL_BURST)
    assert [payload for kind, payload in sent if kind == Opcode.PONG.value] == [b"x" * 125] * CONTROL_BURST
    spectator.sendall(CLOSE)
    assert close_code(read_frames(spectator)) == 1000  # the client's close answered: it was open until then


POST = b"POST /api/games HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
PIECE = 1024
"""The bytes of each read handed to the protocol here."""


async def _read_body(scope: Any, receive: Any, send: Any) -> None:
    """An application that reads the whole body, then answers with its length."""
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return
        size += len(message.get("body", b""))
        if not message.get("more_body", False):
            break
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"%d" % size})


async def _fed(wire: bytes) -> tuple[int, bytes, bool]:
    """`wire` handed to a new connection's protocol `PIECE` bytes a read, the application reading the body: the
    bytes handed over before it closed (all of them when it did not), what it wrote, whether it closed."""
    protocol, transport = _protocol(_read_body)
    fed = 0
    while fed < len(wire) and not transport.closed:
        protocol.data_received(wire[fed:fed + PIECE])
        fed += PIECE
        for _ in range(5):  # the application's task takes what was read
            await asyncio.sleep(0)
    for _ in range(5):
        await asyncio.sleep(0)
    closed = transport.closed
    protocol.connection_lost(None)
    return min(fed, len(wire)), bytes(transport.written), closed


@pytest.mark.parametrize("size_line", [b"1;" + b"e" * (4 * MAX_BODY_FRAMING_BYTES),  # an endless extension
                                       b"0" * (4 * MAX_BODY_FRAMING_BYTES) + b"1"])  # endless leading zeros
def test_a_chunked_bodys_framing_past_its_bound_is_400_and_closed(size_line: bytes) -> None:
    fed, written, closed = asyncio.run(_fed(POST + size_line + b"\r\nx\r\n0\r\n\r\n"))
    assert closed  # (before: read whole, to the end of the body)
    assert fed <= len(POST) + MAX_BODY_FRAMING_BYTES + 2 * PIECE
    assert written.startswith(b"HTTP/1.1 400 ") and b"framing" in written


def test_chunked_bodies_of_ordinary_chunks_are_read_whole() -> None:
    data = 8 * MAX_BODY_FRAMING_BYTES
    for chunk in (100, 4096):  # (chunks of 100 bytes: 5 bytes of framing each, under an eighth of their data)
        body = (b"%x\r\n" % chunk + b"d" * chunk + b"\r\n") * (data // chunk) + b"0\r\n\r\n"
        fed, written, closed = asyncio.run(_fed(POST + body))
        assert fed == len(POST + body) and not closed
        assert written.startswith(b"HTTP/1.1 200 ") and b"\r\n%d\r\n" % (data // chunk * chunk) in written
    # chunks of one byte (5 bytes of framing each) pass the bound once their framing is past it
    fed, written, closed = asyncio.run(_fed(POST + b"1\r\nd\r\n" * MAX_BODY_FRAMING_BYTES))
    assert closed and written.startswith(b"HTTP/1.1 400 ")
    assert fed <= len(POST) + (MAX_BODY_FRAMING_BYTES + 2 * PIECE) * MAX_BODY_FRAMING_SHARE


SPACES = b" " * 2 * MAX_HEAD_WIRE_BYTES


@pytest.mark.parametrize("head", [b"GET" + SPACES,  # a request line of endless spaces, before or after its target
                                  b"GET /api/health" + SPACES,
                                  b"GET /api/health HTTP/1.1\r\nX-A:" + SPACES])  # before a header's value
def test_a_head_past_its_bound_on_the_wire_is_431_and_closed(head: bytes) -> None:
    fed, written, closed = asyncio.run(_fed(head + b"/ HTTP/1.1\r\nHost: x\r\n\r\n"))
    assert closed  # (before: read until the header deadline, the spaces skipped unseen)
    assert fed <= MAX_HEAD_WIRE_BYTES + 2 * PIECE
    assert written.startswith(b"HTTP/1.1 431 ") and b"whitespace included" in written


def test_heads_within_the_bounds_are_served_one_after_another() -> None:
    # a head whose target and headers are just within `MAX_HEADER_BYTES`, its whitespace within the wire's bound;
    # then another on the same connection (each head is counted on its own)
    value = b"v" * (MAX_HEADER_BYTES - 2000)
    head = b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-A:" + b" " * 30_000 + value + b"\r\n\r\n"
    assert len(head) < MAX_HEAD_WIRE_BYTES
    _, written, closed = asyncio.run(_fed(head * 2))
    assert not closed and written.count(b"HTTP/1.1 200 ") == 2
