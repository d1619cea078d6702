"""`LobbyCache`: the lobby's answer kept as bytes (and gzipped) for a moment; `FinishedAnswers`: the summaries and
views of games kept as JSON text (and gzipped), within a budget of bytes.

Listing the lobby encodes every open and running game (21 ms of CPU and 300 KB with 400 games, about a quarter
of a second at the 5,000-game cap), and loading a finished game rebuilds it from its log (about 50 ms): a client
asking in a loop kept the event loop busy for everyone. The lobby's answer is built again only when what it
lists has changed (or at the latest after `lobby_cache_seconds`), whoever asks; a finished game never changes,
so what its summary and view say is kept once it has been loaded, and asking again loads nothing. A game in play
changes, but only with its seq and who is connected: its view is kept with those, so that asking again before the
next command encodes nothing (validating and encoding the view of a large belt was 30 ms of CPU, gzipping it 20 ms
more, for every request).
"""

from __future__ import annotations

import gzip
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass

from .lru import BytesLRU

GZIP_MINIMUM = 1024
"""Answers smaller than this go uncompressed: below about one packet gzip saves no round trip, only CPU."""
LOBBY_GZIP_LEVEL = 6
"""The level the server gzips its other answers at (`app.GZipMiddleware`)."""


@dataclass(frozen=True, slots=True)
class Encoded:
    """An answer's JSON text, and the same gzipped (for a client that accepts gzip) unless it is short."""

    text: bytes
    gzipped: bytes | None
    """None: the text is too short to be worth gzipping (`GZIP_MINIMUM`)."""

    @classmethod
    def of(cls, text: bytes) -> Encoded:
        """`text` and its gzipped form (at the level of the server's other answers)."""
        return cls(text, gzip.compress(text, LOBBY_GZIP_LEVEL, mtime=0))

    @property
    def size(self) -> int:
        """The bytes it holds."""
        return len(self.text) + len(self.gzipped or b"")


class LobbyCache:
    """The lobby's answer, built again only when what it lists has changed (the hub's `lobby_version`) or it is
    older than `seconds` (a cluster node's lobby lists other nodes' games too: they are seen within `seconds`). A
    hub that cannot tell its version (None) builds it for every request: the address's bucket bounds those."""

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


class FinishedAnswers(BytesLRU[tuple[str, str], tuple[bytes, Encoded]]):
    """Games' answers (their summary, their view), by game and part, each with the version it was built at, least
    recently used dropped first, holding at most `max_bytes` in all. A finished game nobody is connected to has
    the version `FINAL`: exactly what loading it again would answer. A game in play has one answer kept per part,
    replaced when its version (seq, status, connections) changes."""

    FINAL = b""
    """The version of a finished game's answers (they never change)."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(max_bytes, lambda kept: len(kept[0]) + kept[1].size)

    def answer(self, game_id: str, part: str, version: bytes = FINAL) -> Encoded | None:
        """The answer kept for `part` of `game_id` at `version` (counted as a use), or None."""
        kept = self.get((game_id, part))
        return kept[1] if kept is not None and kept[0] == version else None

    def keep(self, game_id: str, part: str, answer: Encoded, version: bytes = FINAL) -> None:
        """Keep an answer in place of any other of `part` (one larger than the whole budget is not kept)."""
        self.discard((game_id, part))
        self.put((game_id, part), (version, answer))
