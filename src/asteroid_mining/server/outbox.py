"""`Outbox`: the messages waiting to be sent to one WebSocket client, so that a slow client never holds a game."""

from __future__ import annotations

import asyncio
from collections import deque


class Outbox:
    """A bounded queue of texts for one connection; full means the client is too slow and must resync."""

    __slots__ = ("_items", "_limit", "_ready", "closed", "overflowed")

    def __init__(self, limit: int) -> None:
        self._items: deque[str] = deque()
        self._limit = limit
        self._ready = asyncio.Event()
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
        self._ready.set()

    def close(self) -> None:
        """No more texts: `get` returns None once the queue is drained (at once when overflowed)."""
        self.closed = True
        if self.overflowed:
            self._items.clear()
        self._ready.set()

    async def get(self) -> str | None:
        """The next text, waiting for one; None once closed and drained."""
        while not self._items:
            if self.closed:
                return None
            self._ready.clear()
            await self._ready.wait()
        return self._items.popleft()
