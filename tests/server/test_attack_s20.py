"""What the eleventh fresh attack found on a single server's transport: pings and pongs never reach the
application, whose rate limit counts messages, so one WebSocket sending empty pings as fast as it could had every
one answered and was never closed (1.9 million in 10 s, 13 s of the server's CPU, `/api/health` answered in 7.3 s
at the median). A connection now has `transport.CONTROL_BURST` of them at once, refilled at
`transport.CONTROL_PER_SECOND`, and is closed with 4429 past them, as a flood of messages is."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from websockets.frames import Frame, Opcode

from asteroid_mining.server import Settings, transport
from asteroid_mining.server.transport import CLOSE_FLOOD, CONTROL_BURST

from .helpers import free_port, served_in_thread, websocket_handshake
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
