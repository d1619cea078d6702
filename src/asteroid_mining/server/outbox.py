"""`Outbox`: sending to one WebSocket client, so that a slow client never holds a game up.

A game's owner hands every update to the outbox of each of its connections. When nothing is waiting to go to
that client, the outbox sends the update at once, in the owner's own step: the ASGI `send` coroutine is stepped
by hand, and it finishes there and then unless the connection's transport is backed up (uvicorn then waits for
it to drain). Only when it has to wait does the send go on in the connection's sending task (`run`), and the
messages after it queue up behind it, in order. A queue that reaches its limit means the client is too slow:
the outbox closes, and the connection is closed for the client to reconnect and sync.

Sending at once matters on the server's hottest path: every update goes to several connections, and waking a
sending task for each of them cost about as much as everything else an update needs but the diff. (Python 3.12's
eager tasks start a coroutine the same way.) Where uvicorn would write a message at once, the outbox writes its
frame to the socket itself, the frame made once for every connection the message goes to
(`direct.frame_writer`); the ASGI `send` is stepped only when that cannot be done.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Coroutine, Generator
from typing import Any

from .direct import frame_writer
from .messages import frame

Message = dict[str, Any]
"""An ASGI `websocket.send` message (`messages.frame`)."""
Send = Callable[[Message], Awaitable[None]]
"""What sends a message over the WebSocket (Starlette's `WebSocket.send`)."""

log = logging.getLogger(__name__)


class _Rest:
    """Awaiting this finishes a coroutine that was stepped by hand and is waiting on `future`."""

    __slots__ = ("_coro", "_future")

    def __init__(self, coro: Coroutine[Any, Any, Any], future: Any) -> None:
        self._coro = coro
        self._future = future

    def __await__(self) -> Generator[Any, None, None]:
        coro, future = self._coro, self._future
        while True:
            try:
                yield future  # the task waits on what the coroutine waits on
            except BaseException as thrown:  # cancelled while waiting: the coroutine gets it too
                try:
                    future = coro.throw(thrown)
                except StopIteration:
                    return
            else:
                try:
                    future = coro.send(None)
                except StopIteration:
                    return


class Outbox:
    """The messages for one connection: sent at once when possible, else queued in order up to `limit`.

    `run` is the connection's sending task; `put` and `put_message` never wait.
    """

    __slots__ = ("_busy", "_items", "_limit", "_rest", "_send", "_waiter", "_write", "closed", "overflowed")

    def __init__(self, limit: int, send: Send) -> None:
        self._write = frame_writer(send)
        """Writes a message's frame straight to the socket when uvicorn would write it at once (`direct`)."""
        self._items: deque[Message] = deque()
        self._limit = limit
        self._send = send
        self._rest: _Rest | None = None  # a send that had to wait, for `run` to finish
        self._busy = False  # `run` has something to send: new messages go behind it
        self._waiter: asyncio.Future[None] | None = None
        self.closed = False
        self.overflowed = False

    @property
    def direct(self) -> bool:
        """Whether messages are written straight to the socket when they can be (`direct.frame_writer`)."""
        return self._write is not None

    def put(self, text: str) -> None:
        """Send a text (a message of this connection's own)."""
        self.put_message(frame(text))

    def put_message(self, message: Message) -> None:
        """Send a message (maybe shared with other outboxes): at once, or after those waiting before it; when
        `limit` messages are already waiting, the outbox closes as overflowed instead."""
        if self.closed:
            return
        if not self._busy:
            write = self._write
            if write is not None and write(message):
                return  # written
            coroutine = self._send(message)
            assert isinstance(coroutine, Coroutine)
            try:
                waiting_on = coroutine.send(None)
            except StopIteration:
                return  # sent
            except Exception as failure:  # the client has gone; its connection's receiving side cleans up
                log.debug("a send failed: %r", failure)
                self.close()
                return
            self._rest = _Rest(coroutine, waiting_on)
            self._busy = True
            self._wake()
            return
        if len(self._items) >= self._limit:
            self.overflowed = True
            self.close()
            return
        self._items.append(message)

    def close(self) -> None:
        """Send no more: `run` returns once what is queued has gone (at once when overflowed)."""
        self.closed = True
        if self.overflowed:
            self._items.clear()
        self._wake()

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def run(self) -> None:
        """Finish the sends that had to wait and send what queued up behind them, in order, until closed.

        Raises what the WebSocket raises when the client has gone.
        """
        while True:
            rest, self._rest = self._rest, None
            if rest is not None:
                await rest
            if self._items and not (self.closed and self.overflowed):
                await self._send(self._items.popleft())
                continue
            if self._rest is not None:
                continue
            self._busy = False
            if self.closed:
                return
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
