"""Regression tests of the WebSocket side against a real server process, over plain sockets that behave as the
attacks did: a client that never reads while it asks for long answers, a ping flood from a client that never
reads, a text message that is not UTF-8. Each failed before its fix."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import os
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.frames import Frame, Opcode

from asteroid_mining.server import Settings, transport

from .helpers import ServerProcess, free_port, running_server, served_in_thread, websocket_handshake

DEADLINE = 30.0
"""The most any condition below is waited for."""


def client_frame(opcode: int, payload: bytes) -> bytes:
    """A client's frame (masked, FIN set) as it goes on the wire; text frames are not checked for UTF-8."""
    return Frame(Opcode(opcode), payload).serialize(mask=True)


@contextlib.contextmanager
def raw_websocket(server: ServerProcess, path: str) -> Iterator[socket.socket]:
    """A WebSocket over a plain socket; the caller reads nothing after the handshake until it says so."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=DEADLINE)
    try:
        websocket_handshake(sock, path)
        yield sock
    finally:
        sock.close()


def read_frames(sock: socket.socket) -> list[tuple[int, bytes]]:
    """Every frame (opcode, payload) the server sends until it closes the connection."""
    data = bytearray()
    sock.settimeout(DEADLINE)
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(1 << 20):
            data += chunk
    frames, at = [], 0
    while at + 2 <= len(data):
        opcode, size = data[at] & 0x0F, data[at + 1] & 0x7F
        at += 2
        if size == 126:
            (size,) = struct.unpack_from("!H", data, at)
            at += 2
        elif size == 127:
            (size,) = struct.unpack_from("!Q", data, at)
            at += 8
        frames.append((opcode, bytes(data[at:at + size])))
        at += size
    return frames


def close_code(frames: list[tuple[int, bytes]]) -> int | None:
    """The code of the close frame among `frames`, if any."""
    closes = [payload for opcode, payload in frames if opcode == 0x8]
    return struct.unpack("!H", closes[0][:2])[0] if closes else None


def wait_for_log(server: ServerProcess, text: str) -> None:
    deadline = time.monotonic() + DEADLINE
    while text not in server.log.read_text():
        assert time.monotonic() < deadline, f"{text!r} never logged:\n{server.log.read_text()[-3000:]}"
        time.sleep(0.05)


def spectated_game(server: ServerProcess, belt: str) -> str:
    game = httpx.post(f"{server.url}/api/games", json={"seats": 1, "belt": belt}, timeout=60)
    assert game.status_code == 201, game.text
    return f"/api/games/{game.json()['id']}/ws"


def test_a_client_that_never_reads_is_closed_with_4408(tmp_path: Path) -> None:
    """Each `sync` from far ahead is answered with the whole state (half a megabyte on the `large` belt): the
    client reads none of them. It is closed once a megabyte waits for it, not after 1,024 states (580 MB)."""
    # syncs unlimited: the state is made once per seq (`LiveGame.state_frame`), so the 40 are answered faster than
    # any finite rate would refill their bucket (`SYNC_BURST`) and most would be refused as `rate_limited`
    args = ("--send-buffer-bytes", "1000000", "--sync-per-second", "1000000000")
    with running_server(tmp_path, *args) as server:
        path = spectated_game(server, "large")
        with raw_websocket(server, path) as sock:
            sync = client_frame(0x1, json.dumps({"type": "sync", "after": 10**9}).encode())
            for _ in range(40):  # 22 MB of answers, more than the sockets' buffers take
                sock.sendall(sync)
            wait_for_log(server, "does not keep up")
            frames = read_frames(sock)  # what it had not read yet, then the close frame: it knows why
        assert close_code(frames) == 4408
        states = [payload for opcode, payload in frames if opcode == 0x1]
        assert len(states) < 40
        assert "Traceback" not in server.log.read_text()
        assert httpx.get(f"{server.url}/api/health", timeout=10).status_code == 200


def test_pings_from_a_client_that_never_reads_are_not_buffered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    """100,000 pings (13 MB) from a client that reads nothing: the server answers those it can write at once
    and buffers no more; it used to keep every pong, 13 MB, until the client read them. (Pings past
    `transport.CONTROL_BURST` now close the connection with 4429: the burst is raised here, in a server in this
    process, so that what is tested is the bound on the pongs.)"""
    monkeypatch.setattr(transport, "CONTROL_BURST", 1_000_000)
    caplog.set_level(logging.INFO)
    settings = Settings(data_dir=tmp_path, static_dir=tmp_path / "static", port=free_port())
    with served_in_thread(settings, DEADLINE):
        game = httpx.post(f"http://127.0.0.1:{settings.port}/api/games", json={"seats": 1, "belt": "tutorial"},
                          timeout=DEADLINE).json()
        with socket.create_connection(("127.0.0.1", settings.port), timeout=DEADLINE) as sock:
            websocket_handshake(sock, f"/api/games/{game['id']}/ws")
            pings = client_frame(0x9, b"p" * 125) * 1_000
            for _ in range(100):
                sock.sendall(pings)
            sock.sendall(client_frame(0x1, b"\xff\xfe"))  # a sentinel: logged once every ping before it is read
            deadline = time.monotonic() + DEADLINE
            while "not UTF-8" not in caplog.text:
                assert time.monotonic() < deadline, "the sentinel was never read"
                time.sleep(0.05)
            frames = read_frames(sock)
        pongs = sum(opcode == 0xA for opcode, _ in frames)
        assert pongs < 50_000, f"{pongs} pongs for 100,000 pings: they were buffered"
        assert close_code(frames) == 1007


def test_text_that_is_not_utf8_is_closed_with_1007_and_no_traceback(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        path = spectated_game(server, "tutorial")
        for bad in (b"\xc3\x28", b'{"type": "sync", "after": 1}\xed\xa0\x80'):  # a broken pair; a surrogate
            with raw_websocket(server, path) as sock:
                sock.sendall(client_frame(0x1, bad))
                frames = read_frames(sock)
            assert close_code(frames) == 1007
        log = server.log.read_text()
        assert "not UTF-8" in log and "Traceback" not in log
        assert httpx.get(f"{server.url}/api/health", timeout=10).status_code == 200


def test_a_closing_connection_whose_client_takes_nothing_is_aborted(tmp_path: Path) -> None:
    """A spectator with megabytes of states it has not read does not answer a ping: uvicorn closes its connection
    the polite way, which waits until the socket's buffer is written — for ever, as the client reads nothing — and
    the connection stayed in its game for good. (On a real server in a thread; the ping's deadline is made to pass
    once the socket's buffer holds what the client has not taken.)"""
    settings = Settings(data_dir=tmp_path, static_dir=tmp_path / "static", port=free_port(),
                        send_buffer_bytes=256 * 1024 * 1024, send_buffer_total_bytes=512 * 1024 * 1024,
                        sync_per_second=100_000.0)
    with served_in_thread(settings, DEADLINE) as server:
        deadline = time.monotonic() + DEADLINE
        url = f"http://127.0.0.1:{settings.port}"
        game = httpx.post(f"{url}/api/games", json={"seats": 1, "belt": "large"}, timeout=DEADLINE).json()
        app: Any = server.config.loaded_app
        live = app.state.hub.games[game["id"]]

        def on_loop(work: Any) -> Any:
            async def run() -> Any:
                return work()

            assert live._task is not None
            return asyncio.run_coroutine_threadsafe(run(), live._task.get_loop()).result(DEADLINE)

        def connections() -> int:
            return len(live.connections)

        def buffered() -> int:
            return sum(conn.outbox._buffered() for conn in live.connections if conn.outbox._buffered)

        def ping_unanswered() -> None:
            for conn in live.connections:
                conn.outbox._send.__self__.keepalive_timeout()  # as uvicorn does when a pong is late

        sock = socket.create_connection(("127.0.0.1", settings.port), timeout=DEADLINE)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        with sock:
            key = base64.b64encode(os.urandom(16)).decode()
            sock.sendall((f"GET /api/games/{game['id']}/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                          f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                         .encode())
            sync = client_frame(0x1, json.dumps({"type": "sync", "after": 10**9}).encode())
            for _ in range(30):  # 17 MB of states: more than the sockets' buffers take
                sock.sendall(sync)
            while on_loop(buffered) == 0:  # the client has not taken everything written to it
                assert time.monotonic() < deadline, "the socket's buffer never filled"
                time.sleep(0.05)
            on_loop(ping_unanswered)
            deadline = time.monotonic() + DEADLINE
            while on_loop(connections) != 0:  # it answers no ping: closed, and its socket aborted as it takes nothing
                assert time.monotonic() < deadline, "a connection whose client takes nothing is held for ever"
                time.sleep(0.1)
