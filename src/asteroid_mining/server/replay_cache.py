"""`ReplayCache`: replay documents kept by game and seq, so that asking for a replay again costs nothing.

Building a replay replays the whole game (most of a second of CPU for a long one); clients that poll a replay
would otherwise keep a core busy. A game's replay changes only when its seq does, so the key is (game, seq).
Concurrent requests for the same key share one build. A game whose log no longer replays is `DamagedGame`.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from .rebuild import DamagedGame

Key = tuple[str, int]


class ReplayCache:
    """The latest `size` replay documents built (least recently used dropped first)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._done: OrderedDict[Key, dict[str, Any]] = OrderedDict()
        self._building: dict[Key, asyncio.Future[dict[str, Any]]] = {}
        self.builds = 0
        """How many documents were built (the rest were served from the cache)."""

    async def get(self, game_id: str, seq: int, build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The replay of `game_id` at `seq`: from the cache, or `build()` run off the event loop."""
        key = (game_id, seq)
        done = self._done.get(key)
        if done is not None:
            self._done.move_to_end(key)
            return done
        pending = self._building.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._building[key] = future
        try:
            self.builds += 1
            try:
                document = await asyncio.to_thread(build)
            except DamagedGame:
                raise
            except Exception as failure:  # any other failure to replay the log: the game is damaged all the same
                raise DamagedGame(game_id, f"{type(failure).__name__}: {failure}"[:300]) from failure
        except BaseException as failure:
            future.set_exception(failure)
            future.exception()  # retrieved: the waiters re-raise it
            raise
        finally:
            del self._building[key]
        future.set_result(document)
        if self.size > 0:
            self._done[key] = document
            while len(self._done) > self.size:
                self._done.popitem(last=False)
        return document
