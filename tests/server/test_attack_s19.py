"""What the tenth fresh attack found on a single server: a new game's body was read whole before its address's
bucket of new games' bytes was looked at, so an address in debt still had every body it sent read (4 MB sent a
byte a chunk cost 1 s of CPU to read, refused `429` only then, at no rate), and an address with a full bucket had
as many bodies read at once as it opened connections, each passing the bucket before any was charged. And a
request answered without its body being read went on being parsed for as long as its body came: a `GET` with an
endless body of one-byte chunks held the event loop's core whole."""

from __future__ import annotations

import asyncio
from collections.abc import MutableMapping
from types import SimpleNamespace
from typing import Any

import orjson

from asteroid_mining.server.limits import PARSE_INLINE, BodyLimit
from asteroid_mining.server.replay_cache import ReadLimiter
from asteroid_mining.server.transport import MAX_HEADER_COUNT

from .test_attack_s18 import _protocol

CHUNK = 1024
"""The bytes of each part of a body sent in chunks here."""


def _new_game(limiter: ReadLimiter, address: str) -> dict[str, Any]:
    """The scope of `POST /api/games` from `address`, on an app whose bucket of new games' bytes is `limiter`."""
    app = SimpleNamespace(state=SimpleNamespace(create_limiter=limiter))
    return {"type": "http", "method": "POST", "path": "/api/games", "headers": [], "client": (address, 1),
            "app": app}


class _Body:
    """A body of `parts` chunks of `CHUNK` spaces, counting those the server took; with `gate`, its first part
    waits for the event (`asked` is set once it is asked for); with `held`, its end (the last, empty part)
    does."""

    def __init__(self, parts: int, held: asyncio.Event | None = None, gate: asyncio.Event | None = None) -> None:
        self.parts = parts
        self.held = held
        self.gate = gate
        self.asked = asyncio.Event()
        self.taken = 0

    async def receive(self) -> dict[str, Any]:
        self.asked.set()
        if self.gate is not None:
            await self.gate.wait()
        if self.taken < self.parts:
            self.taken += 1
            return {"type": "http.request", "body": b" " * CHUNK, "more_body": True}
        if self.held is not None:
            await self.held.wait()
        return {"type": "http.request", "body": b"", "more_body": False}


async def _serve(middleware: BodyLimit, scope: dict[str, Any], body: _Body) -> tuple[int, dict[str, Any]]:
    """The status and JSON answer of `middleware` to a request of `scope` with `body`."""
    sent: list[MutableMapping[str, Any]] = []

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    await middleware(scope, body.receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    answer = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, orjson.loads(answer)


async def _created(scope: Any, receive: Any, send: Any) -> None:
    """The endpoint behind the middleware: reached, it answers 201."""
    await send({"type": "http.response.start", "status": 201, "headers": []})
    await send({"type": "http.response.body", "body": b"{}"})


def test_an_address_in_debt_is_refused_before_its_new_games_body_is_read() -> None:
    """An address whose bucket of new games' bytes is in debt is answered `429 rate_limited` before a byte of its
    body is read (it was read whole, 64 parts here, then refused: 4 MB sent a byte a chunk cost 1 s of CPU a
    request, at no rate, the event loop held up to 0.12 s)."""
    limiter = ReadLimiter(0.0, 100_000)
    limiter.charge("192.0.2.7", 200_000)
    body = _Body(64)
    status, answer = asyncio.run(_serve(BodyLimit(_created, limit=4 * 1024 * 1024), _new_game(limiter, "192.0.2.7"),
                                        body))
    assert (status, answer["error"]["code"]) == (429, "rate_limited")
    assert body.taken == 0
    assert limiter.level("192.0.2.7") == -100_000  # a refusal costs nothing more


def test_new_games_bodies_read_at_once_stop_once_their_address_owes_a_body_past_its_bucket() -> None:
    """Two bodies of an address read at the same time, both past the bucket's look before either was charged:
    each is charged as it is read, and the second is refused `429` as soon as the address owes more than the
    largest body beyond its bucket (100 KB bucket, 400 KB bodies: at 110 of its 390 parts), the rest unread;
    the first, read whole and charged 390 KB, goes on (each was read whole, one per connection the address
    opened, and charged only after)."""
    limiter = ReadLimiter(0.0, 100_000)
    middleware = BodyLimit(_created, limit=400 * 1024)

    async def scenario() -> None:
        finish, go_first, go_second = asyncio.Event(), asyncio.Event(), asyncio.Event()
        first, second = _Body(390, finish, go_first), _Body(390, gate=go_second)
        one = asyncio.create_task(_serve(middleware, _new_game(limiter, "192.0.2.8"), first))
        two = asyncio.create_task(_serve(middleware, _new_game(limiter, "192.0.2.8"), second))
        await first.asked.wait()
        await second.asked.wait()  # both past the bucket's look, neither charged yet
        go_first.set()
        while first.taken < first.parts:
            await asyncio.sleep(0)
        go_second.set()
        status, answer = await two
        assert (status, answer["error"]["code"]) == (429, "rate_limited")
        owed = 100_000 + 400 * 1024 - 390 * CHUNK  # what the second may be charged before it is refused
        assert second.taken == owed // CHUNK + 1 < second.parts
        finish.set()
        status, answer = await one
        assert (status, answer["error"]["code"]) == (422, "invalid")  # spaces only: read whole, parsed, refused

    asyncio.run(scenario())
    assert limiter.level("192.0.2.8") < -400 * 1024


def test_a_new_games_body_of_the_inline_size_is_not_charged_while_read() -> None:
    """A body of at most `PARSE_INLINE` bytes is not charged as it is read (the game's belt is charged once it is
    stored), nor the look at the bucket before it."""
    limiter = ReadLimiter(0.0, 100_000)
    body = _Body(PARSE_INLINE // CHUNK)
    status, _ = asyncio.run(_serve(BodyLimit(_created, limit=400 * 1024), _new_game(limiter, "192.0.2.9"), body))
    assert status == 422  # spaces only
    assert body.taken == body.parts
    assert limiter.level("192.0.2.9") == 100_000


def test_a_body_going_on_after_its_request_was_answered_closes_the_connection() -> None:
    """A `GET` answered without its body being read, whose body goes on in chunks of one byte: the connection is
    closed, the rest unparsed (uvicorn parsed every chunk to drop it until the header deadline: one socket
    sending 496 MB of them in 10 s cost 10 s of CPU, the event loop's core whole, and again on every connection)."""

    async def scenario() -> None:
        async def app(scope: Any, receive: Any, send: Any) -> None:
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        protocol, transport = _protocol(app)
        protocol.data_received(b"GET /api/health HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n \r\n")
        for _ in range(5):  # the answer is sent by the application's task
            await asyncio.sleep(0)
        assert transport.written.startswith(b"HTTP/1.1 200 OK")
        assert not transport.closed
        protocol.data_received(b"1\r\n \r\n" * 1000)
        assert transport.closed
        assert transport.written.count(b"HTTP/1.1") == 1  # nothing more answered
        protocol.connection_lost(None)

    asyncio.run(scenario())


def test_a_request_of_too_many_header_lines_is_431_and_closed() -> None:
    """A request of `MAX_HEADER_COUNT` header lines is served; one more is answered `431 headers_too_large` and
    its connection closed before the application sees it (16,000 empty headers, 64 KB, cost 15.4 ms of CPU a
    request, 26 times a short one's)."""

    async def scenario() -> None:
        served: list[int] = []

        async def app(scope: Any, receive: Any, send: Any) -> None:
            served.append(len(scope["headers"]))
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        for lines, closed in ((MAX_HEADER_COUNT, False), (MAX_HEADER_COUNT + 1, True), (16_000, True)):
            protocol, transport = _protocol(app)
            head = b"GET /api/health HTTP/1.1\r\nHost: x\r\n" + b"a:\r\n" * (lines - 1) + b"\r\n"
            protocol.data_received(head)
            for _ in range(5):  # an answer is sent by the application's task
                await asyncio.sleep(0)
            assert transport.closed is closed
            if closed:
                assert transport.written.startswith(b"HTTP/1.1 431 ")
                assert orjson.loads(transport.written.split(b"\r\n\r\n", 1)[1])["error"]["code"] == "headers_too_large"
            else:
                assert transport.written.startswith(b"HTTP/1.1 200 OK")
            protocol.connection_lost(None)
        assert served == [MAX_HEADER_COUNT]

    asyncio.run(scenario())
