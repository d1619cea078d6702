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
write the same bytes at once: uvicorn's `websockets` sans-I/O protocol, no extension negotiated (the server turns
compression off), the connection open and its transport taking data. Anything else (a paused transport, a closing
connection, a test client) goes through `send`, which waits, raises or writes as uvicorn decides.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

SCOPE_KEY = "asteroid_mining.send"
"""Where a WebSocket connection's scope keeps the server's `send`."""

FRAME_KEY = "asteroid_mining.frame"
"""Where a `websocket.send` message keeps its text's WebSocket frame, once made (`wire_frame`)."""

_HEAD_16 = struct.Struct("!BBH").pack
_HEAD_64 = struct.Struct("!BBQ").pack

Writer = Callable[[dict[str, Any]], bool]
"""Writes a `websocket.send` message's frame to one connection; False when it must go through `send` instead."""


class DirectSend:
    """ASGI middleware: keep the server's `send` of each WebSocket connection in its scope (`SCOPE_KEY`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the connection on, remembering its `send`."""
        if scope["type"] == "websocket":
            scope[SCOPE_KEY] = send
        await self.app(scope, receive, send)


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
    if type(protocol) is not WebSocketsSansIOProtocol or protocol.conn.extensions:
        return None
    conn, transport, writable = protocol.conn, protocol.transport, protocol.writable

    def write(message: dict[str, Any]) -> bool:
        # what uvicorn's `send` checks before it writes a message at once; when one fails, `send` waits or raises
        if (protocol.close_sent or protocol.disconnected or protocol.initial_response is not None
                or conn.state is not State.OPEN or not writable.is_set()):
            return False
        transport.write(wire_frame(message))
        return True

    return write
