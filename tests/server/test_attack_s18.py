"""What the ninth fresh attack found on a single server: uvicorn queued every HTTP/1.1 request pipelined on a
connection and read on after each answer, so one socket sending requests in a loop (and reading the answers) had
thousands parsed and queued for each one answered: 1.8 GB of the server's memory in 10 s, the event loop's core
busy parsing."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import uvicorn
from uvicorn.server import ServerState

from asteroid_mining.server.transport import MAX_PIPELINED, SocketCounter, guarded_protocol

from .helpers import running_server

REQUEST = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


class Transport(asyncio.Transport):
    """A socket's transport as the protocol sees it: what it wrote, whether it reads, whether it closed."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.reading = True
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 40000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def get_write_buffer_size(self) -> int:
        return 0


def _protocol(app: Any) -> tuple[Any, Transport]:
    """The server's HTTP protocol serving `app` on a connection of its own (`Transport`)."""
    config = uvicorn.Config(app, log_config=None, lifespan="off")
    config.load()
    kind: Any = guarded_protocol(10.0, SocketCounter(8))  # (typed as asyncio's Protocol, built as uvicorn's)
    protocol = kind(config=config, server_state=ServerState(), app_state={})
    transport = Transport()
    protocol.connection_made(transport)
    return protocol, transport


def test_a_connection_pipelining_past_the_bound_is_closed_and_no_more_is_queued() -> None:
    """Two hundred requests arriving at once behind one the application has not answered yet: at most
    `MAX_PIPELINED` are queued, and the connection is closed without an answer out of turn (uvicorn queued all
    199, and as many as every read brought after)."""

    async def scenario() -> None:
        answer = asyncio.Event()

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await answer.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        protocol, transport = _protocol(app)
        protocol.data_received(REQUEST * 200)
        assert transport.closed
        assert len(protocol.pipeline) == MAX_PIPELINED
        assert transport.written == b""  # nothing answered ahead of the requests queued
        protocol.connection_lost(None)
        answer.set()

    asyncio.run(scenario())


def test_reading_stays_paused_while_pipelined_requests_wait() -> None:
    """Five requests pipelined at once are answered one after another, in order, and the connection reads nothing
    more while any of them waits (uvicorn resumed reading after each answer: each read then queued all it
    brought); it reads again once the last is answered."""

    async def scenario() -> None:
        seen: list[tuple[str, bool, int]] = []
        done = asyncio.Event()
        protocol: Any = None

        async def app(scope: Any, receive: Any, send: Any) -> None:
            seen.append((scope["path"], transport.reading, len(protocol.pipeline)))
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": scope["path"].encode()})
            if len(seen) == 5:
                done.set()

        protocol, transport = _protocol(app)
        protocol.data_received(b"".join(b"GET /%d HTTP/1.1\r\nHost: x\r\n\r\n" % i for i in range(5)))
        await done.wait()
        for _ in range(3):  # the last answer's completion runs after the application returns
            await asyncio.sleep(0)
        assert [path for path, _, _ in seen] == [f"/{i}" for i in range(5)]
        assert all(not reading for _, reading, waiting in seen if waiting), seen
        assert transport.reading and not transport.closed
        assert transport.written.count(b"HTTP/1.1 200 OK") == 5
        protocol.connection_lost(None)

    asyncio.run(scenario())


def test_a_short_pipeline_is_answered_in_full(tmp_path: Path) -> None:
    """A client that pipelines a few requests (as some HTTP libraries may) gets every answer, in order, on a real
    server: the bound stops a flood only."""
    with running_server(tmp_path / "data") as server, socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(REQUEST * 8)
        sock.settimeout(30)
        answers = b""
        while answers.count(b'{"status":"ok"}') < 8:
            chunk = sock.recv(65536)
            assert chunk, answers
            answers += chunk
        assert answers.count(b"HTTP/1.1 200 OK") == 8
