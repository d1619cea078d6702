"""`BodyLimit`: REST request bodies are read whole, at most `limit` bytes (413), within `deadline` seconds (408),
and must be strict JSON (422).

The body is read here, before the application sees it, for three reasons:

- A body larger than the limit is refused with `413 too_large` whether it declares its length or arrives in
  chunks: a limit enforced while the framework reads the body would surface as its own `400` instead.
- A body sent slowly (a byte now and then) holds a connection and a task for as long as the client likes: the
  whole body must arrive within `deadline` seconds of the request's headers, or the request is answered
  `408 request_timeout` and the connection closed (the header deadline is the transport's, `header_timeout`).
- JSON is checked strictly, by orjson: `NaN`, `Infinity`, numbers too large for a double and nesting deeper than
  `MAX_DEPTH` levels are refused with `422 invalid` (Python's own parser takes `NaN` and `Infinity`, which no
  other JSON reader does: a belt holding one could be stored and then never encoded again; and it gives up on
  deep nesting with a `RecursionError` the framework answered 400).

A large body is parsed in a worker thread (4 MB of JSON is tens of milliseconds of CPU, and the event loop
serves every game); the parsed document is handed on in the request's scope (`parsed_body`), so that the
endpoint need not parse it again on the event loop. A large body creating a game is read in another process
first (`offload.BodyChecker`): one the server will refuse is then never parsed here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..bodies import MAX_DEPTH as MAX_DEPTH  # (the limits table names it here)
from ..bodies import parse_strict as parse_strict  # (called through this module's name: a test watches it)
from .errors import ServerError, error_body
from .security import client_key

if TYPE_CHECKING:
    from .offload import BodyChecker

_BODILESS = frozenset(("GET", "HEAD", "OPTIONS", "DELETE"))
PARSE_INLINE = 16 * 1024
"""Bodies up to this many bytes are parsed on the event loop (well under a millisecond); larger ones in a thread."""
OTHER_BODY_BYTES = 4096
"""The largest body of a request other than `POST /api/games` (a new game's belt may be megabytes; the other
bodies, of `…/abandon` and `…/hint`, hold a token): past it `413 too_large`. Any request to the API had the
bound of a new game's, and its body parsed: 4 MB of arrays nested thirty deep cost 2.5 s of CPU to parse and
check (and held the event loop up to 0.33 s), sent to any endpoint, at no rate."""
CHARGED_KEY = "asteroid_mining.charged"
"""Where the bytes of a new game's body charged to its address before it was parsed are kept in its scope
(`BodyLimit`; `lobby.create_charged` charges the game's belt less them)."""
SCOPE_KEY = "asteroid_mining.json"
"""Where the parsed JSON body of an API request is kept in its scope (see `parsed_body`)."""


def parsed_body(scope: Scope) -> tuple[bool, Any]:
    """(True, the document) when `BodyLimit` parsed the request's body already; (False, None) when not."""
    if SCOPE_KEY in scope:
        return True, scope[SCOPE_KEY]
    return False, None


class BodyLimit:
    """ASGI middleware: at most `limit` bytes of request body (by Content-Length, and as it streams in) for a new
    game (`POST /api/games`), `OTHER_BODY_BYTES` for any other request, all of it within `deadline` seconds, and a
    body sent to the API must be strict JSON."""

    def __init__(self, app: ASGIApp, limit: int, deadline: float = 30.0, checker: BodyChecker | None = None) -> None:
        self.app = app
        self.limit = limit
        self.deadline = deadline
        self.checker = checker
        """Reads large create-game bodies in another process first (`offload`), when given."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on with its body read, or answer 408 / 413 / 422."""
        if scope["type"] != "http" or scope.get("method") in _BODILESS:
            await self.app(scope, receive, send)
            return
        new_game = scope.get("method") == "POST" and scope.get("path") == "/api/games"
        limit = self.limit if new_game else min(self.limit, OTHER_BODY_BYTES)
        declared = dict(scope.get("headers", ())).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await self._too_large(scope, receive, send, limit)
            return
        charge = _new_game_charge(scope, limit) if new_game else None
        try:
            if charge is not None:
                charge(0)  # an address in debt is refused before a byte of its body is read
            async with asyncio.timeout(self.deadline):
                body = await self._read(receive, limit, charge)
        except ServerError as refused:  # (the rest of the body is not read: the connection is closed)
            await JSONResponse(refused.body(), status_code=refused.status,
                               headers={**(refused.headers or {}), "connection": "close"})(scope, receive, send)
            return
        except TimeoutError:
            answer = error_body("request_timeout", f"the request body must arrive within {self.deadline:g} seconds")
            await JSONResponse(answer, status_code=408, headers={"connection": "close"})(scope, receive, send)
            return
        if body is None:  # the client went away: nothing to answer
            return
        if isinstance(body, int):
            await self._too_large(scope, receive, send, limit)
            return
        if body and scope.get("path", "").startswith("/api/"):
            if len(body) <= PARSE_INLINE:
                problem, document = parse_strict(body)
            else:
                if charge is not None:  # charged as it was read, before it is parsed (`_new_game_charge`)
                    scope = {**scope, CHARGED_KEY: len(body)}
                verdict = None
                if self.checker is not None and self.checker.wants(scope, len(body)):
                    verdict = await self.checker.check(body)  # a body refused there is never parsed here
                if verdict is None:
                    verdict = await asyncio.to_thread(parse_strict, body)
                problem, document = verdict
            if problem is not None:
                await JSONResponse(error_body("invalid", problem), status_code=422)(scope, receive, send)
                return
            scope = {**scope, SCOPE_KEY: document}
        await self.app(scope, _replay(body, receive), send)

    async def _read(self, receive: Receive, limit: int,
                    charge: Callable[[int], None] | None = None) -> bytes | int | None:
        """The whole body; its size so far once it is past `limit`; None when the client went away. `charge` is
        told the size read so far after each chunk (it raises `ServerError` to stop the reading)."""
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return size
            if charge is not None and chunk:
                charge(size)
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _too_large(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        body = error_body("too_large", f"the request body may be at most {limit} bytes")
        await JSONResponse(body, status_code=413, headers={"connection": "close"})(scope, receive, send)


def _new_game_charge(scope: Scope, limit: int) -> Callable[[int], None] | None:
    """What charges a new game's body to its address's bucket of new games' bytes (the app's `create_limiter`)
    as it is read, once it is past `PARSE_INLINE` bytes, whatever comes of it: told the size read so far, it
    raises the refusal (`429 rate_limited`) when the address was in debt before its body (told 0) or, while it is
    read, owes more than `limit` (one body's worth) beyond its bucket. Parsing and checking 4 MB of arrays nested
    thirty deep costs 1.9 s of CPU, and a body refused (`422`) was charged nothing; the body was then read whole
    before the bucket was looked at: 4 MB sent a byte a chunk cost 1 s of CPU to read, at no rate from an address
    in debt, and as many at once as it opened connections."""
    app: Any = scope.get("app")  # (Starlette's application, which keeps the limiters on its state)
    limiter = getattr(app.state, "create_limiter", None) if app is not None else None
    if limiter is None:
        return None
    client = scope.get("client")
    address = client_key(client[0]) if client else "unknown"
    charged = 0

    def charge(size: int) -> None:
        nonlocal charged
        if size == 0:
            if limiter.level(address) < 1:  # (a look only: the game's creation takes its token)
                limiter.check(address)  # (refused: the refusal names the wait)
            return
        if size <= PARSE_INLINE:
            return
        limiter.charge(address, size - charged)
        charged = size
        if limiter.level(address) < -limit:
            limiter.check(address)

    return charge


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
