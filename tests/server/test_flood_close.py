"""A connection closed for flooding (`4429`) is no longer read: uvicorn waited 10 s for the client's close frame,
reading and parsing every frame that came meanwhile (160,000–180,000 a second held `/api/health` 1.5–5 s and cost
a core). Its frames are now dropped unparsed, its socket shut and then closed (`transport.SHUT_OUT_SECONDS`)."""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
from typing import Any

import httpx
import pytest
from websockets.frames import Frame, Opcode

from asteroid_mining.server import Settings, transport
from asteroid_mining.server.transport import GuardedWebSocket

from .helpers import free_port, served_in_thread, websocket_handshake

DEADLINE = 60.0
"""The most any condition below is waited for."""


def test_a_client_flooding_past_4429_is_no_longer_read_and_its_socket_is_closed(
        tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed_after_close = [0]
    real = GuardedWebSocket.handle_text

    def counted(self: GuardedWebSocket, event: Frame) -> None:
        if self.close_sent:
            parsed_after_close[0] += 1
        real(self, event)

    monkeypatch.setattr(GuardedWebSocket, "handle_text", counted)
    # the socket is aborted only after the test has read the close frame and the end: an abort (a reset) while the
    # frames the flood sent wait unread on the server's side discards, on Linux, what the client has not read yet,
    # and a reader starved for a second by a busy machine then missed the close frame
    monkeypatch.setattr(transport, "SHUT_OUT_SECONDS", DEADLINE)
    settings = Settings(data_dir=tmp_path, static_dir=tmp_path / "static", port=free_port(), rate_burst=5,
                        rate_violations=20)
    flooder: threading.Thread | None = None
    with served_in_thread(settings, DEADLINE) as server:
        try:
            url = f"http://127.0.0.1:{settings.port}"
            game = httpx.post(f"{url}/api/games", json={"seats": 1}, timeout=DEADLINE).json()
            sock = socket.create_connection(("127.0.0.1", settings.port), timeout=DEADLINE)
            websocket_handshake(sock, f"/api/games/{game['id']}/ws")  # a spectator: every act refused
            act = Frame(Opcode.TEXT, json.dumps({"type": "act", "settler": "s1", "action": "wait"}).encode())
            burst = act.serialize(mask=True) * 500
            stop = threading.Event()

            def flood() -> None:
                with contextlib.suppress(OSError):
                    while not stop.is_set():
                        sock.sendall(burst)

            flooder = threading.Thread(target=flood, daemon=True)
            flooder.start()
            received = bytearray()
            with contextlib.suppress(ConnectionResetError):  # (a reset once the close frame is in: the end too)
                while chunk := sock.recv(1 << 16):  # until the server's end: its EOF (or reset), within DEADLINE
                    received += chunk
            stop.set()
            closes = [at for at in range(len(received) - 3) if received[at] == 0x88]
            assert closes, "no close frame"
            assert struct.unpack_from("!H", received, closes[-1] + 2)[0] == 4429
            assert parsed_after_close[0] == 0, f"{parsed_after_close[0]} frames parsed after the close"
            app: Any = server.config.loaded_app
            hub = app.state.hub
            deadline = time.monotonic() + DEADLINE
            while hub._connected:  # the server's side of the connection is gone
                assert time.monotonic() < deadline, hub._connected
                time.sleep(0.01)
            assert httpx.get(f"{url}/api/health", timeout=DEADLINE).status_code == 200
            sock.close()
        finally:
            if flooder is not None:
                flooder.join(DEADLINE)
