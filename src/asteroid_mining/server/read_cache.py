"""`LobbyCache`: the lobby's answer kept as bytes (and gzipped) for a moment; `FinishedAnswers`: the summaries and
views of finished games kept as JSON text, within a budget of bytes.

Listing the lobby encodes every open and running game (21 ms of CPU and 300 KB with 400 games, about a quarter
of a second at the 5,000-game cap), and loading a finished game rebuilds it from its log (about 50 ms): a client
asking in a loop kept the event loop busy for everyone. The lobby's answer is built again only when what it
lists has changed (or at the latest after `lobby_cache_seconds`), whoever asks; a finished game never changes,
so what its summary and view say is kept once it has been loaded, and asking again loads nothing.
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass

from .lru import BytesLRU

LOBBY_GZIP_LEVEL = 6
"""The level the server gzips its other answers at (`app.GZipMiddleware`)."""


@dataclass(frozen=True, slots=True)
class Encoded:
    """An answer's JSON text, and the same gzipped (for a client that accepts gzip)."""

    text: bytes
    gzipped: bytes

    @classmethod
    def of(cls, text: bytes) -> Encoded:
        """`text` and its gzipped form (at the level of the server's other answers)."""
        return cls(text, gzip.compress(text, LOBBY_GZIP_LEVEL, mtime=0))


class LobbyCache:
    """The lobby's answer, built again only when what it lists has changed (the hub's `lobby_version`) or it is
    older than `seconds`. A hub that cannot tell its version cheaply (a cluster node, whose lobby is every node's)
    builds it for every request: the address's bucket bounds those."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.clock: Callable[[], float] = time.monotonic
        """Seconds, monotonic (replaced in tests)."""
        self.builds = 0
        """How many times the listing was built (the rest were answered from the cache)."""
        self._kept: Encoded | None = None
        self._version: Hashable = None
        self._built_at = 0.0

    async def get(self, version: Hashable, build: Callable[[], Awaitable[bytes]]) -> Encoded:
        """The answer: the kept one while `version` (None: unknown) is the one it was built at and it is younger
        than `seconds`, else `build()` (the listing's JSON text) run again."""
        now = self.clock()
        if (self._kept is not None and version is not None and version == self._version
                and now - self._built_at < self.seconds):
            return self._kept
        self.builds += 1
        answer = Encoded.of(await build())
        self._kept, self._version, self._built_at = answer, version, now
        return answer


class FinishedAnswers(BytesLRU[tuple[str, str], bytes]):
    """Finished games' answers (their summary, their view), by game and part, least recently used dropped first,
    holding at most `max_bytes` in all. Only what a finished game nobody is connected to answers is kept: exactly
    what loading it again would answer."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(max_bytes, len)

    def answer(self, game_id: str, part: str) -> bytes | None:
        """The answer kept for `part` of `game_id` (counted as a use), or None."""
        return self.get((game_id, part))

    def keep(self, game_id: str, part: str, text: bytes) -> None:
        """Keep an answer (one larger than the whole budget is not kept)."""
        self.put((game_id, part), text)
