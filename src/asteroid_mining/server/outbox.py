"""`Outbox`: sending to one WebSocket client, so that a slow client never holds a game up.

A game's owner hands every update to the outbox of each of its connections. When nothing is waiting to go to
that client, the outbox sends the update at once, in the owner's own step: the ASGI `send` coroutine is stepped
by hand, and it finishes there and then unless the connection's transport is backed up (uvicorn then waits for
it to drain). Only when it has to wait does the send go on in the connection's sending task (`run`), and the
messages after it queue up behind it, in order. A queue that reaches its limit means the client is too slow:
the outbox closes, and the connection is closed for the client to reconnect and sync.

The limits are in messages and in bytes: the bytes of the messages waiting and of the socket's write buffer (what
was written but the client has not taken), for each connection (`limit_bytes`), and the bytes waiting for every
connection of the process together (`SendBudget`): past that, the connection with the most waiting is cut off, so
that no client's backlog grows the process. (A message's size is its text's length, and a little for the
message itself; a message shared by several connections counts for each.)

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

from .direct import frame_writer, write_buffer
from .messages import frame

Message = dict[str, Any]
"""An ASGI `websocket.send` message (`messages.frame`)."""
Send = Callable[[Message], Awaitable[None]]
"""What sends a message over the WebSocket (Starlette's `WebSocket.send`)."""

log = logging.getLogger(__name__)

MESSAGE_OVERHEAD = 64
"""Bytes counted for a waiting message besides its text (so that a flood of tiny messages counts too)."""


def message_size(message: Message) -> int:
    """The bytes a waiting message is counted for."""
    text = message.get("text")
    return MESSAGE_OVERHEAD + (len(text) if isinstance(text, str) else 0)


class SendBudget:
    """The bytes waiting to be sent to every connection of the process (their outboxes' queues), at most `limit`:
    when a message would take the total past it, the outbox with the most waiting is cut off (as too slow) until
    the message fits."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.waiting = 0
        self._owing: set[Outbox] = set()  # the outboxes with bytes waiting
        self.cut_off = 0
        """How many outboxes were cut off to keep the total within the limit."""

    def reserve(self, box: Outbox, size: int) -> bool:
        """Count `size` more bytes waiting for `box`; False (nothing counted) when `box` itself is cut off."""
        while self.waiting + size > self.limit:
            largest = max((b for b in self._owing if not b.overflowed), key=lambda b: b.waiting, default=None)
            if largest is None or largest.waiting < box.waiting + size:
                largest = box  # `box` would hold the most: it is the one cut off
            self.cut_off += 1
            largest.overflow()
            if largest is box:
                return False
        self.waiting += size
        self._owing.add(box)
        return True

    def free(self, box: Outbox, size: int) -> None:
        """`size` bytes of `box` have gone (sent or dropped)."""
        self.waiting -= size
        if box.waiting <= 0:
            self._owing.discard(box)


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
    """The messages for one connection: sent at once when possible, else queued in order up to `limit` messages
    and `limit_bytes` bytes (with the socket's write buffer), within the process's `budget`.

    `run` is the connection's sending task; `put` and `put_message` never wait.
    """

    # `__weakref__`: its cut-off callback refers back to it weakly (`play._attend`), so they make no cycle
    __slots__ = ("__weakref__", "_budget", "_buffered", "_busy", "_cut_off", "_items", "_limit", "_limit_bytes",
                 "_rest", "_rest_size", "_send", "_waiter", "_write", "closed", "overflowed", "waiting")

    def __init__(self, limit: int, send: Send, limit_bytes: int | None = None, budget: SendBudget | None = None,
                 cut_off: Callable[[], object] | None = None) -> None:
        self._write = frame_writer(send)
        """Writes a message's frame straight to the socket when uvicorn would write it at once (`direct`)."""
        self._buffered = write_buffer(send)
        """The bytes the socket holds, written but not taken by the client (None: unknown, counted as 0)."""
        self._items: deque[tuple[Message, int]] = deque()  # with each message's size
        self._limit = limit
        self._limit_bytes = limit_bytes
        self._budget = budget
        self._cut_off = cut_off
        """Called when the outbox overflows: closes the connection at once (a send waiting for a client that does
        not read would wait for ever)."""
        self._send = send
        self._rest: _Rest | None = None  # a send that had to wait, for `run` to finish
        self._rest_size = 0
        self._busy = False  # `run` has something to send: new messages go behind it
        self._waiter: asyncio.Future[None] | None = None
        self.closed = False
        self.overflowed = False
        self.waiting = 0
        """The bytes of the messages waiting (the queue's and the send that had to wait)."""

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
            size = message_size(message)  # its text is held by the send until the socket takes it
            if self._take(size):
                self._rest_size = size
            else:
                self.overflow()
            return
        size = message_size(message)
        if len(self._items) >= self._limit or not self._take(size):
            self.overflow()
            return
        self._items.append((message, size))

    def _take(self, size: int) -> bool:
        """Count `size` more bytes waiting; False when that is past this connection's or the process's limit."""
        limit = self._limit_bytes
        if limit is not None:
            buffered = self._buffered() if self._buffered is not None else 0
            if self.waiting + size + buffered > limit:
                return False
        if self._budget is not None and not self._budget.reserve(self, size):
            return False
        self.waiting += size
        return True

    def _give(self, size: int) -> None:
        """`size` bytes waiting have gone."""
        if size:
            self.waiting -= size
            if self._budget is not None:
                self._budget.free(self, size)

    def overflow(self) -> None:
        """The client is too slow: drop what waits, and close (the connection is closed for it to sync)."""
        if not self.closed or not self.overflowed:
            self.overflowed = True
            if self._cut_off is not None:  # first: it may say how much was waiting
                self._cut_off()
            self.close()
            # nor does the message on its way count any more: a connection cut off holds at most that one (and its
            # socket's buffer) until its socket closes, and the process's budget is for the clients still served
            self._give(self._rest_size)
            self._rest_size = 0

    def close(self) -> None:
        """Send no more: `run` returns once what is queued has gone (at once when overflowed)."""
        self.closed = True
        if self.overflowed:
            self._drop()
        self._wake()

    def _drop(self) -> None:
        """Forget the queued messages (their bytes no longer wait)."""
        dropped = sum(size for _, size in self._items)
        self._items.clear()
        self._give(dropped)

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def run(self) -> None:
        """Finish the sends that had to wait and send what queued up behind them, in order, until closed.

        Raises what the WebSocket raises when the client has gone.
        """
        try:
            while True:
                rest, self._rest = self._rest, None
                if rest is not None:
                    await rest
                    self._give(self._rest_size)
                    self._rest_size = 0
                if self._items and not (self.closed and self.overflowed):
                    message, self._rest_size = self._items.popleft()  # counted until the socket takes it
                    await self._send(message)
                    self._give(self._rest_size)
                    self._rest_size = 0
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
        finally:  # gone, failed or cancelled: nothing of this connection waits any more
            self._drop()
            self._give(self._rest_size)
            self._rest_size = 0
