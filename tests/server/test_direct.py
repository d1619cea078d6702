"""`direct.frame_writer`: over a real uvicorn server, an outbox writes each message's frame straight to the socket
when uvicorn would write it at once, and the client reads exactly what was sent, in order; a paused socket, a
closed connection or a negotiated extension send through uvicorn instead."""

from __future__ import annotations

import asyncio
import contextlib
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import ConnectionClosed
from websockets.frames import Frame, Opcode
from websockets.sync.client import connect

from asteroid_mining.server.direct import (
    FRAME_KEY,
    SCOPE_KEY,
    UVICORN_VERSION,
    DirectSend,
    UvicornMismatch,
    check_uvicorn,
    frame_writer,
    wire_frame,
)
from asteroid_mining.server.main import serve
from asteroid_mining.server.messages import frame
from asteroid_mining.server.outbox import Outbox

from .helpers import in_thread

TEXTS = ["{}", "x" * 125, "y" * 126, "z" * 65_535, "w" * 65_536, '{"name":"Ödön 🚀 ∑"}', "é" * 40_000]
"""Texts whose frames take each length form (7 bits, 16 bits, 64 bits), and characters beyond ASCII."""


class Recording:
    """A transport that records what is written to it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(data)
        self.inner.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class EchoPlan:
    """A WebSocket endpoint that sends through an `Outbox` what the path names, and reports what it saw."""

    def __init__(self) -> None:
        self.report: dict[str, Any] = {}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        server_send = scope[SCOPE_KEY]
        protocol = server_send.__self__
        wire = protocol.transport = Recording(protocol.transport)  # before the outbox: it writes there too
        box = Outbox(16, server_send)
        runner = asyncio.create_task(box.run())
        self.report["direct"] = box.direct
        if scope["path"] == "/frames":
            shared = frame(TEXTS[0])
            box.put_message(shared)
            self.report["kept"] = FRAME_KEY in shared
            for text in TEXTS[1:]:
                box.put(text)
        elif scope["path"] == "/paused":
            protocol.writable.clear()  # what uvicorn does when the socket's buffer is over its high-water mark
            box.put("first")
            box.put("second")
            for _ in range(10):  # the sending task takes "first" up and waits with it (loop turns, not time)
                await asyncio.sleep(0)
            self.report["written while paused"] = len(wire.writes)
            protocol.writable.set()
            box.put("third")  # behind the two, whether or not the task has sent them yet
        elif scope["path"] == "/closed":
            await send({"type": "websocket.close", "code": 1000})
            write = frame_writer(server_send)
            self.report["written"] = write is not None and write(frame("late"))
            runner.cancel()
            return
        box.close()
        await runner
        self.report["frames"] = sum(data[:1] == b"\x81" for data in wire.writes)
        await send({"type": "websocket.close", "code": 1000})


@contextlib.contextmanager
def serving(app: Any, deflate: bool = False) -> Iterator[str]:
    """`app` behind `DirectSend` on a real uvicorn server (in a thread), as the game server configures it."""
    # port 0: the system's free port at once (one picked ahead could be taken by another process meanwhile)
    config = uvicorn.Config(DirectSend(app), host="127.0.0.1", port=0, lifespan="off", log_config=None,
                            ws_per_message_deflate=deflate)
    with in_thread(uvicorn.Server(config)) as server:
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"ws://127.0.0.1:{port}"


def received(url: str) -> list[str]:
    """Every text message until the server closes the connection."""
    out = []
    with connect(url, open_timeout=10, max_size=None) as client, contextlib.suppress(ConnectionClosed):
        while True:
            message = client.recv(timeout=30)
            assert isinstance(message, str)
            out.append(message)
    return out


def test_frames_written_straight_to_the_socket_arrive_whole_and_in_order() -> None:
    plan = EchoPlan()
    with serving(plan) as url:
        assert received(f"{url}/frames") == TEXTS
    assert plan.report == {"direct": True, "kept": True, "frames": len(TEXTS)}


def test_a_paused_socket_sends_through_uvicorn_and_keeps_the_order() -> None:
    plan = EchoPlan()
    with serving(plan) as url:
        assert received(f"{url}/paused") == ["first", "second", "third"]
    assert plan.report == {"direct": True, "written while paused": 0, "frames": 3}


def test_nothing_is_written_after_the_close() -> None:
    plan = EchoPlan()
    with serving(plan) as url:
        assert received(f"{url}/closed") == []
    assert plan.report == {"direct": True, "written": False}


def test_a_negotiated_extension_sends_through_uvicorn() -> None:
    plan = EchoPlan()
    with serving(plan, deflate=True) as url:  # the client offers permessage-deflate, and this server takes it
        assert received(f"{url}/frames") == TEXTS
    assert plan.report == {"direct": False, "kept": False, "frames": 0}  # compressed frames


def test_another_send_has_no_writer() -> None:
    async def send(message: dict[str, Any]) -> None:
        pass

    assert frame_writer(send) is None
    assert Outbox(4, send).direct is False


@pytest.mark.parametrize(("text", "head"), [
    ("{}", b"\x81\x02"),
    ("x" * 125, b"\x81\x7d"),
    ("y" * 126, b"\x81\x7e\x00\x7e"),
    ("w" * 65_536, b"\x81\x7f\x00\x00\x00\x00\x00\x01\x00\x00"),
    ("é", b"\x81\x02"),
])
def test_a_wire_frame_is_one_unmasked_text_frame(text: str, head: bytes) -> None:
    message = frame(text)
    assert wire_frame(message) == head + text.encode()  # FIN and text, the payload's length, no mask (RFC 6455)
    assert wire_frame(message) is message[FRAME_KEY]  # made once for every connection


@pytest.mark.parametrize("text", TEXTS)
def test_a_wire_frame_is_what_websockets_writes(text: str) -> None:
    assert wire_frame(frame(text)) == Frame(Opcode.TEXT, text.encode()).serialize(mask=False)


def test_the_pinned_uvicorn_has_every_internal_the_server_relies_on() -> None:
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    pins = [pin for pin in pyproject["project"]["dependencies"] if re.match(r"uvicorn\b", pin)]
    assert pins == [f"uvicorn[standard]=={UVICORN_VERSION}"] and uvicorn.__version__ == UVICORN_VERSION
    check_uvicorn()  # no error


def test_a_uvicorn_without_a_method_the_server_overrides_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(WebSocketsSansIOProtocol, "handle_ping")
    with pytest.raises(UvicornMismatch, match=r"lacks what this server relies on \(WebSocketsSansIOProtocol"
                                              r"\.handle_ping\): install uvicorn==0\.54\.0"):
        check_uvicorn()


def test_serve_refuses_to_start_on_a_uvicorn_without_a_state_it_reads(monkeypatch: pytest.MonkeyPatch,
                                                                       capsys: pytest.CaptureFixture[str],
                                                                       tmp_path: Path) -> None:
    made = WebSocketsSansIOProtocol.__init__

    def without_writable(self: WebSocketsSansIOProtocol, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        del self.writable  # as if a new uvicorn kept it elsewhere

    monkeypatch.setattr(WebSocketsSansIOProtocol, "__init__", without_writable)
    assert serve(port=0, data=tmp_path) == 2
    error = capsys.readouterr().err.strip()
    assert error.count("\n") == 0  # one line, no traceback
    assert error.startswith("asteroid-mining serve: error: the installed uvicorn (0.54.0) lacks")
    assert "WebSocketsSansIOProtocol().writable" in error and f"install uvicorn=={UVICORN_VERSION}" in error
    assert not (tmp_path / "games.sqlite3").exists()  # refused before anything was made
