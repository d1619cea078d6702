"""`DirectSend`: hands the WebSocket endpoint the server's own `send` for the messages it sends most.

Every update goes to every connection of its game, thousands of times a second on a busy server. Sent through
Starlette's `WebSocket.send`, each passes two exception-handling layers and a state check on its way to
uvicorn, which cost about a tenth of the server's time per action. This middleware stands outermost among the
application's own and records, for WebSocket connections, the `send` it is called with (the server's) in the
connection's scope; the endpoint sends updates with it once the connection is accepted, and everything else
(accepting, closing, errors) through Starlette as usual.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

SCOPE_KEY = "asteroid_mining.send"
"""Where a WebSocket connection's scope keeps the server's `send`."""


class DirectSend:
    """ASGI middleware: keep the server's `send` of each WebSocket connection in its scope (`SCOPE_KEY`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the connection on, remembering its `send`."""
        if scope["type"] == "websocket":
            scope[SCOPE_KEY] = send
        await self.app(scope, receive, send)
