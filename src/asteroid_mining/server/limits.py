"""`BodyLimit`: REST request bodies are read whole, at most `limit` bytes (413), and must be strict JSON (422).

The body is read here, before the application sees it, for two reasons:

- A body larger than the limit is refused with `413 too_large` whether it declares its length or arrives in
  chunks: a limit enforced while the framework reads the body would surface as its own `400` instead.
- JSON is checked strictly, by orjson: `NaN`, `Infinity`, numbers too large for a double and nesting deeper than
  1024 levels are refused with `422 invalid` (Python's own parser takes `NaN` and `Infinity`, which no other JSON
  reader does: a belt holding one could be stored and then never encoded again).
"""

from __future__ import annotations

import orjson
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .errors import error_body

_BODILESS = frozenset(("GET", "HEAD", "OPTIONS", "DELETE"))


class BodyLimit:
    """ASGI middleware: at most `limit` bytes of request body (by Content-Length, and as it streams in), and a
    body sent to the API must be strict JSON."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on with its body read, or answer 413 / 422."""
        if scope["type"] != "http" or scope.get("method") in _BODILESS:
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", ())).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await self._too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: nothing to answer
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._too_large(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body and scope.get("path", "").startswith("/api/"):
            problem = _json_problem(body)
            if problem is not None:
                await JSONResponse(error_body("invalid", problem), status_code=422)(scope, receive, send)
                return
        await self.app(scope, _replay(body, receive), send)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = error_body("too_large", f"the request body may be at most {self.limit} bytes")
        await JSONResponse(body, status_code=413, headers={"connection": "close"})(scope, receive, send)


def _json_problem(body: bytes) -> str | None:
    """Why `body` is not strict JSON, as a sentence; None when it is."""
    try:
        orjson.loads(body)
    except orjson.JSONDecodeError as bad:
        return f"malformed JSON: {bad}"
    return None


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that gives the body already read, then waits on the real one (for the disconnect)."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
