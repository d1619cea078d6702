"""Large messages compressed, small ones not (`transport.LargeMessageDeflate`), against a real server: a game's
first `state` on the shipped `large` belt (2,000 asteroids, over half a megabyte of JSON) arrives deflated,
within 150 KB on the wire, to a client that offers permessage-deflate as browsers do; the updates after it come
as they are; a client that offers nothing gets everything uncompressed, as before.

Read over a plain socket, byte for byte, so that what is checked is what crosses the network."""

from __future__ import annotations

import json
import os
import socket
import struct
import zlib
from pathlib import Path
from typing import Any

import httpx

from asteroid_mining.server.transport import DEFLATE_MIN_BYTES

from .helpers import ServerProcess, running_server, websocket_handshake

TARGET_BYTES = 150_000
"""Issue 28's target for the large belt's first state on the wire."""
OFFER = "permessage-deflate; client_max_window_bits"
"""What Chromium offers."""


def exactly(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        assert chunk, "the server closed the connection"
        data += chunk
    return data


def read_frame(sock: socket.socket) -> tuple[int, int, bytes]:
    """One frame from the server: its first byte (FIN, RSV1-3, opcode), its length on the wire, its payload."""
    first, second = exactly(sock, 2)
    assert not second & 0x80, "a server's frames are not masked"
    size, head = second & 0x7F, 2
    if size == 126:
        (size,), head = struct.unpack("!H", exactly(sock, 2)), 4
    elif size == 127:
        (size,), head = struct.unpack("!Q", exactly(sock, 8)), 10
    return first, head + size, exactly(sock, size)


def send_text(sock: socket.socket, text: str) -> None:
    """One masked, uncompressed text frame (a client may send any message uncompressed)."""
    payload = text.encode()
    mask = os.urandom(4)
    assert len(payload) < 126
    sock.sendall(bytes((0x81, 0x80 | len(payload))) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))


def inflate(payload: bytes) -> Any:
    """The JSON of a compressed message (RFC 7692: the deflated bytes lack the empty block's tail)."""
    return json.loads(zlib.decompressobj(wbits=-15).decompress(payload + b"\x00\x00\xff\xff"))


def large_game(server: ServerProcess) -> tuple[str, str]:
    answer = httpx.post(f"{server.url}/api/games", json={"belt": "large", "seats": 1, "settlers_per_seat": 1,
                                                          "seed": 3}, timeout=120)
    assert answer.status_code == 201, answer.text
    game = answer.json()
    return game["id"], game["seats"][0]["token"]


def test_a_large_first_state_is_compressed_and_the_updates_are_not(tmp_path: Path) -> None:
    with running_server(tmp_path / "data") as server:
        game, token = large_game(server)
        with socket.create_connection(("127.0.0.1", server.port), timeout=120) as sock:
            headers = websocket_handshake(sock, f"/api/games/{game}/ws?token={token}", OFFER)
            agreed = headers.get("sec-websocket-extensions", "")
            assert agreed.startswith("permessage-deflate"), headers
            assert "server_no_context_takeover" in agreed and "client_no_context_takeover" in agreed

            first, wire, payload = read_frame(sock)
            assert first == 0xC1, hex(first)  # FIN, RSV1 (compressed), text
            assert wire <= TARGET_BYTES, f"the first state took {wire} bytes on the wire"
            state = inflate(payload)
            assert state["type"] == "state" and len(state["state"]["asteroids"]) == 2000
            raw = len(json.dumps(state, separators=(",", ":"), ensure_ascii=False).encode())
            assert raw > 3 * wire  # it is large, and compresses well
            settler = state["you"]["settlers"][0]

            send_text(sock, json.dumps({"type": "act", "settler": settler, "action": "wait", "ref": 1}))
            first, wire, payload = read_frame(sock)
            assert first == 0x81, hex(first)  # FIN, no RSV1: sent as it is
            update = json.loads(payload)
            assert update["type"] == "update" and update["ref"] == 1
            assert len(payload) < DEFLATE_MIN_BYTES


def test_a_client_that_offers_no_compression_gets_none(tmp_path: Path) -> None:
    with running_server(tmp_path / "data") as server:
        game, token = large_game(server)
        with socket.create_connection(("127.0.0.1", server.port), timeout=120) as sock:
            headers = websocket_handshake(sock, f"/api/games/{game}/ws?token={token}", None)
            assert "sec-websocket-extensions" not in headers
            first, wire, payload = read_frame(sock)
            assert first == 0x81, hex(first)
            assert json.loads(payload)["type"] == "state" and wire > 500_000


def test_a_compressed_message_is_held_to_the_limits_once_inflated(tmp_path: Path) -> None:
    """A client's message is measured as it inflates: a megabyte of zeros in a kilobyte (far over the 256 KiB a
    frame may take) closes the connection with 1009 before it is inflated whole, as the same message sent as it is
    would."""
    with running_server(tmp_path / "data") as server:
        answer = httpx.post(f"{server.url}/api/games", json={"seats": 1, "settlers_per_seat": 1}, timeout=60)
        assert answer.status_code == 201, answer.text
        with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
            websocket_handshake(sock, f"/api/games/{answer.json()['id']}/ws", OFFER)
            first, _, payload = read_frame(sock)  # the (small) state, as it is
            assert first == 0x81 and json.loads(payload)["type"] == "state"
            packer = zlib.compressobj(wbits=-15)
            bomb = (packer.compress(b"0" * 1_000_000) + packer.flush(zlib.Z_SYNC_FLUSH))[:-4]
            assert len(bomb) < 2_000
            mask = os.urandom(4)
            sock.sendall(bytes((0xC1, 0x80 | 126)) + struct.pack("!H", len(bomb)) + mask
                         + bytes(b ^ mask[i % 4] for i, b in enumerate(bomb)))
            while True:
                first, _, payload = read_frame(sock)
                if first & 0x0F == 0x8:  # the close frame
                    assert struct.unpack("!H", payload[:2])[0] == 1009
                    break
