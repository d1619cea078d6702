"""The server's fastest ways to send: `DirectSend` hands the WebSocket endpoint the server's own `send`, and
`frame_writer` writes an update's frame straight to the connection's socket.

Every update goes to every connection of its game, thousands of times a second on a busy server. Sent through
Starlette's `WebSocket.send`, each passes two exception-handling layers and a state check on its way to
uvicorn, which cost about a tenth of the server's time per action. `DirectSend` stands outermost among the
application's own middleware and records, for WebSocket connections, the `send` it is called with (the
server's) in the connection's scope; the endpoint sends with it once the connection is accepted, and
everything else (accepting, closing, errors) through Starlette as usual.

Even uvicorn's own `send` makes each message's frame anew for every connection: it encodes the text, builds and
serializes a frame and steps a coroutine, and for four connections that was about as much as everything the
server adds per action to choose and send their settlers' choices. An update is the same for most of its
connections, so `frame_writer` makes its frame once (`wire_frame`: the bytes `websockets` would write, kept in
the message) and writes them to each connection's transport. It does so only where uvicorn would
write the same bytes at once: uvicorn's `websockets` sans-I/O protocol, no extension negotiated but the server's
own compression of large messages (`transport.LargeMessageDeflate`) for a message it leaves uncompressed, the
connection open and its transport taking data. Anything else (a large message to a client that takes it
compressed, a paused transport, a closing connection, a test client) goes through `send`, which compresses,
waits, raises or writes as uvicorn decides.

All of this (and `transport`'s protocols) relies on internals of uvicorn's `websockets` sans-I/O protocol, which
uvicorn does not promise to keep: the server checks at start-up (`check_uvicorn`) that the installed uvicorn has
each one, and refuses to start with one clear error naming the version it was written for (`UVICORN_VERSION`,
pinned in pyproject.toml) rather than failing on the first message to a client.
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import struct
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from .transport import DEFLATE_MIN_BYTES, GuardedWebSocket, LargeMessageDeflate

SCOPE_KEY = "asteroid_mining.send"
"""Where a WebSocket connection's scope keeps the server's `send`."""

FRAME_KEY = "asteroid_mining.frame"
"""Where a `websocket.send` message keeps its text's WebSocket frame, once made (`wire_frame`)."""

_HEAD_16 = struct.Struct("!BBH").pack
_HEAD_64 = struct.Struct("!BBQ").pack

Writer = Callable[[dict[str, Any]], bool]
"""Writes a `websocket.send` message's frame to one connection; False when it must go through `send` instead."""

PROTOCOLS = (WebSocketsSansIOProtocol, GuardedWebSocket)
"""uvicorn's protocols whose `send` writes what `wire_frame` makes (the server's own sends no differently)."""

UVICORN_VERSION = "0.54.0"
"""The uvicorn whose internals this module and `transport` were written for (pyproject.toml pins it)."""

PROTOCOL_METHODS = ("send", "handle_ping", "keepalive_timeout", "run_asgi", "send_receive_event_to_app",
                    "data_received")
"""Methods of uvicorn's `WebSocketsSansIOProtocol` that the server calls or overrides (`transport`)."""
PROTOCOL_STATE = ("conn", "transport", "writable", "queue", "close_sent", "disconnected", "initial_response",
                  "read_paused", "loop", "logger", "client", "handshake_complete")
"""What each connection's protocol object keeps that the server reads or sets (`frame_writer`, `close_now`,
`transport`)."""
CONNECTION_STATE = ("extensions", "available_extensions", "state", "send_close", "data_to_send", "handshake_exc")
"""What the protocol's `websockets` connection (`conn`) has that the server reads or calls."""


class UvicornMismatch(RuntimeError):
    """The installed uvicorn lacks an internal the server relies on."""


def check_uvicorn() -> None:
    """Check that the installed uvicorn has every internal the server relies on; UvicornMismatch naming what is
    missing and the version expected when it has not. Makes one protocol object as uvicorn would for a
    connection (without a socket), which takes a few milliseconds, once, at start-up."""
    missing = [f"WebSocketsSansIOProtocol.{name}" for name in PROTOCOL_METHODS
               if not callable(getattr(WebSocketsSansIOProtocol, name, None))]
    try:
        protocol = _probe()
    except Exception as failure:
        missing.append(f"WebSocketsSansIOProtocol(config, server_state, app_state) ({type(failure).__name__}: "
                       f"{failure})")
    else:
        missing += [f"WebSocketsSansIOProtocol().{name}" for name in PROTOCOL_STATE if not hasattr(protocol, name)]
        conn = getattr(protocol, "conn", None)
        if conn is not None:
            missing += [f"WebSocketsSansIOProtocol().conn.{name}" for name in CONNECTION_STATE
                        if not hasattr(conn, name)]
    if missing:
        try:
            installed = importlib.metadata.version("uvicorn")
        except importlib.metadata.PackageNotFoundError:  # pragma: no cover - it is imported above
            installed = "unknown"
        raise UvicornMismatch(f"the installed uvicorn ({installed}) lacks what this server relies on "
                              f"({', '.join(missing)}): install uvicorn=={UVICORN_VERSION}, the version it was "
                              "written for")


def _probe() -> WebSocketsSansIOProtocol:
    """A protocol object as uvicorn makes one for each WebSocket connection, for no connection."""
    import uvicorn
    from uvicorn.server import ServerState

    async def app(scope: Scope, receive: Receive, send: Send) -> None:  # pragma: no cover - never called
        return None

    config = uvicorn.Config(app, ws="websockets-sansio", log_config=None, lifespan="off")
    config.load()
    loop = asyncio.new_event_loop()
    try:
        return WebSocketsSansIOProtocol(config, ServerState(), {}, _loop=loop)
    finally:
        loop.close()


class DirectSend:
    """ASGI middleware: keep the server's `send` of each WebSocket connection in its scope (`SCOPE_KEY`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the connection on, remembering its `send`."""
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        scope[SCOPE_KEY] = send
        try:
            await self.app(scope, receive, send)
        finally:
            # the connection's protocol holds its scope: its `send` left there made each connection a cycle, freed
            # only by a full collection (rare in the server: `main.GC_THRESHOLDS`)
            del scope[SCOPE_KEY]


def wire_frame(message: dict[str, Any]) -> bytes:
    """The WebSocket frame of a `websocket.send` message's text, as a server writes it, made once and kept in the
    message for every connection it goes to.

    RFC 6455, section 5.2: FIN and the text opcode, then the payload's length in 7, 16 or 64 bits, no mask (a
    server's frames have none) and no extension. These are the bytes `websockets`' `Frame.serialize` writes
    (`tests/server/test_direct.py` compares them at every length form), made without its frame object and checks,
    which cost three times as much on every update.
    """
    data: bytes | None = message.get(FRAME_KEY)
    if data is None:
        payload = message["text"].encode()
        size = len(payload)
        if size < 126:
            head = bytes((0x81, size))
        elif size < 65536:
            head = _HEAD_16(0x81, 126, size)
        else:
            head = _HEAD_64(0x81, 127, size)
        data = message[FRAME_KEY] = head + payload
    return data


def frame_writer(send: Any) -> Writer | None:
    """A `Writer` for the accepted connection whose ASGI `send` this is, or None when it cannot have one: `send`
    is not uvicorn's `websockets` sans-I/O protocol's, or the connection negotiated an extension."""
    protocol = getattr(send, "__self__", None)
    if type(protocol) not in PROTOCOLS or not isinstance(protocol, WebSocketsSansIOProtocol):
        return None
    extensions = protocol.conn.extensions
    if extensions and not (len(extensions) == 1 and isinstance(extensions[0], LargeMessageDeflate)):
        return None
    # with the server's compression, a frame of DEFLATE_MIN_BYTES or more goes through `send` to be compressed (a
    # frame's head is at most 10 bytes: a payload just under the bound goes there too, and is sent as it is)
    most = DEFLATE_MIN_BYTES if extensions else 1 << 62
    conn, transport, writable = protocol.conn, protocol.transport, protocol.writable

    def write(message: dict[str, Any]) -> bool:
        # what uvicorn's `send` checks before it writes a message at once; when one fails, `send` waits or raises
        if (protocol.close_sent or protocol.disconnected or protocol.initial_response is not None
                or conn.state is not State.OPEN or not writable.is_set()):
            return False
        data = wire_frame(message)
        if len(data) >= most:
            return False
        transport.write(data)
        return True

    return write


def write_buffer(send: Any) -> Callable[[], int] | None:
    """How many bytes the socket of the connection whose ASGI `send` this is holds, written but not yet taken by
    the client (its transport's write buffer), or None when that cannot be known (not uvicorn's protocol)."""
    protocol = getattr(send, "__self__", None)
    if not isinstance(protocol, WebSocketsSansIOProtocol):
        return None

    def size() -> int:
        transport = protocol.transport
        return 0 if transport is None else int(transport.get_write_buffer_size())

    return size



def close_now(send: Any, code: int, reason: str, grace: float) -> bool:
    """Close the connection whose ASGI `send` this is with `code` at once, even when its socket is backed up: the
    close frame is written behind what the client has not taken yet, and the socket closed once it has taken it
    all — or aborted as soon as the client has taken nothing for `grace` seconds (a socket closed the polite way
    waits until its buffer is written, and a client that reads nothing never takes it). The application's receiving
    side is told the connection has gone; a send waiting for the socket fails once it has closed.

    False when `send` is not uvicorn's or the connection is closing already: the caller closes it the usual way.
    """
    protocol = getattr(send, "__self__", None)
    if not isinstance(protocol, WebSocketsSansIOProtocol) or protocol.transport is None:
        return False
    if protocol.close_sent or protocol.disconnected or protocol.conn.state is not State.OPEN:
        return False
    transport = protocol.transport
    protocol.conn.send_close(code, reason)
    transport.write(b"".join(protocol.conn.data_to_send()))
    protocol.close_sent = True
    protocol.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
    if protocol.read_paused:  # as uvicorn's close: read on, to see the client's answer
        protocol.read_paused = False
        transport.resume_reading()
    transport.close()  # once the client has taken what is buffered, the close frame included
    loop = asyncio.get_running_loop()

    def watch(before: int) -> None:  # abort the socket when the client has taken nothing for `grace` seconds
        if protocol.disconnected:
            return
        now = transport.get_write_buffer_size()
        if now >= before:
            transport.abort()
        else:
            loop.call_later(grace, watch, now)

    loop.call_later(grace, watch, transport.get_write_buffer_size())
    return True
