"""`Outbox`: the messages waiting to be sent to one WebSocket client, so that a slow client never holds a game."""

from __future__ import annotations

import asyncio
from collections import deque


class Outbox:
    """A bounded queue of texts for one connection; full means the client is too slow and must resync.

    Its one reader waits on a bare future, made only when the queue is empty and resolved by the next `put` or
    `close`: every update is put into several outboxes, so this is on the server's hottest path (an
    `asyncio.Event` costs about twice as much per message).
    """

    __slots__ = ("_items", "_limit", "_waiter", "closed", "overflowed")

    def __init__(self, limit: int) -> None:
        self._items: deque[str] = deque()
        self._limit = limit
        self._waiter: asyncio.Future[None] | None = None
        self.closed = False
        self.overflowed = False

    def put(self, text: str) -> None:
        """Queue a text; when `limit` texts are already waiting, the outbox closes as overflowed instead."""
        if self.closed:
            return
        if len(self._items) >= self._limit:
            self.overflowed = True
            self.close()
            return
        self._items.append(text)
        self._wake()

    def close(self) -> None:
        """No more texts: `get` returns None once the queue is drained (at once when overflowed)."""
        self.closed = True
        if self.overflowed:
            self._items.clear()
        self._wake()

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> str | None:
        """The next text, waiting for one; None once closed and drained."""
        while not self._items:
            if self.closed:
                return None
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        return self._items.popleft()
