"""`LobbyCache`: the lobby's listing kept as its games' JSON texts for a moment, each page sliced from it (and kept
gzipped); `FinishedAnswers`: the summaries and views of games kept as JSON text (and gzipped), within a budget of
bytes.

Listing the lobby encodes every open and running game (21 ms of CPU and 300 KB with 400 games, about a quarter
of a second at the 5,000-game cap), and loading a finished game rebuilds it from its log (about 50 ms): a client
asking in a loop kept the event loop busy for everyone. The lobby's answer is built again only when what it
lists has changed (or at the latest after `lobby_cache_seconds`), whoever asks; a finished game never changes,
so what its summary and view say is kept once it has been loaded, and asking again loads nothing. A lobby of
many games is not even checked for a moment after each check (`LOBBY_HOLD_PER_GAME`): while games are played,
what it lists changes with every command, and it was built again for every request (70 ms of CPU with 2,000
games). A game in play
changes, but only with its seq and who is connected: its view is kept with those, so that asking again before the
next command encodes nothing (validating and encoding the view of a large belt was 30 ms of CPU, gzipping it 20 ms
more, for every request).
"""

from __future__ import annotations

import bisect
import gzip
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any

import orjson

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
        """`text` and its gzipped form (at the level of the server's other answers), none when it is shorter than
        `GZIP_MINIMUM` (the GZip middleware leaves an answer that short alone too)."""
        return cls(text, gzip.compress(text, LOBBY_GZIP_LEVEL, mtime=0) if len(text) >= GZIP_MINIMUM else None)

    @property
    def size(self) -> int:
        """The bytes it holds."""
        return len(self.text) + len(self.gzipped or b"")


LOBBY_HOLD_MIN_GAMES = 100
"""A lobby listing fewer games is checked (and built again when it has changed) at every request: it is cheap."""
LOBBY_HOLD_PER_GAME = 0.0005
"""Seconds the lobby's answer is given as it is, not even checked, after each check, for each game it lists (from
`LOBBY_HOLD_MIN_GAMES` on; never past `lobby_cache_seconds` of its age): a check costs about 7 µs a game and a
build about 35 µs more, so the lobby takes at most a tenth of the event loop however many ask, and 2,000 games
or more are checked once a second (as a lobby where nothing changes is built again). Games in play change what
it lists with every command: it was built for every request, 70 ms of CPU each with 2,000 games, and eight
addresses asking at their rate kept a core busy."""


LOBBY_ORDER = {"open": 0, "running": 1}
"""The lobby's groups, in the order it lists them: open games to join first (what a player comes for), then games
in play to watch; anything else (a damaged game) after them. Within a group, newest first."""
LobbyKey = tuple[int, float, str]
"""Where a game stands in the lobby: its group (`LOBBY_ORDER`), minus its `created`, its id (a unique tie-break)."""
PAGES_KEPT = 64
"""Pages of one listing kept encoded (the first page of each filter is what nearly every request asks for)."""


def lobby_key(summary: dict[str, Any]) -> LobbyKey:
    """`summary`'s place in the lobby (`LobbyKey`)."""
    return (LOBBY_ORDER.get(summary["status"], len(LOBBY_ORDER)), -float(summary["created"]), str(summary["id"]))


class Listing:
    """The lobby's listing: every listed game's summary as JSON text, in the lobby's order (`LobbyKey`), from
    which a page is sliced (a bisection and a join), never built again per page; the pages asked for are kept
    encoded (and gzipped) with it, `PAGES_KEPT` at most."""

    def __init__(self, summaries: list[tuple[LobbyKey, bytes]]) -> None:
        summaries.sort(key=lambda pair: pair[0])
        self.keys = [key for key, _ in summaries]
        self.texts = [text for _, text in summaries]
        self._pages: dict[tuple[int | None, LobbyKey | None, int], Encoded] = {}

    def __len__(self) -> int:
        return len(self.keys)

    def page(self, group: int | None, after: LobbyKey | None, limit: int,
             cursor: Callable[[LobbyKey], str]) -> Encoded:
        """The page of `limit` games of `group` (None: all) that follow `after` (None: from the first), as the
        answer's JSON text: the games, how many the listing (or the group) holds, and the next page's `cursor`
        (null on the last). A cursor is a place, not a position: games created or gone meanwhile shift no page."""
        asked = (group, after, limit)
        kept = self._pages.get(asked)
        if kept is not None:
            return kept
        low, high = 0, len(self.keys)
        if group is not None:
            low = bisect.bisect_left(self.keys, (group,))
            high = bisect.bisect_left(self.keys, (group + 1,))
        start = low if after is None else max(low, bisect.bisect_right(self.keys, after))
        end = min(start + limit, high)
        following = cursor(self.keys[end - 1]) if end < high else None
        text = b"".join((b'{"games":[', b",".join(self.texts[start:end]), b'],"total":',
                         str(high - low).encode(), b',"next":', orjson.dumps(following), b"}"))
        kept = Encoded.of(text)
        if len(self._pages) >= PAGES_KEPT:
            self._pages.clear()
        self._pages[asked] = kept
        return kept


class LobbyCache:
    """The lobby's answer, built again only when what it lists has changed (the hub's `lobby_version`) or it is
    older than `seconds` (a cluster node's lobby lists other nodes' games too: they are seen within `seconds`). A
    hub that cannot tell its version (None) builds it for every request: the address's bucket bounds those. A
    listing of many games is given as it is for a moment after each check (`LOBBY_HOLD_PER_GAME`)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.clock: Callable[[], float] = time.monotonic
        """Seconds, monotonic (replaced in tests)."""
        self.builds = 0
        """How many times the listing was built (the rest were answered from the cache)."""
        self.checks = 0
        """How many times the hub's version was asked for (`builds` included)."""
        self._kept: Listing | None = None
        self._version: Hashable = None
        self._built_at = 0.0
        self._held_until = 0.0
        self._listed = 0
        self.listed: dict[int, tuple[dict[str, Any], tuple[LobbyKey, bytes]]] = {}
        """The summaries the last listing was built from, by their id(), each with its place and checked text
        (`lobby._listing`): a summary that is the same object at the next building is not checked again."""

    async def get(self, version: Callable[[], Hashable], build: Callable[[], Awaitable[Listing]]) -> Listing:
        """The listing: the kept one while it is held after the last check, or while `version()` (None: unknown)
        is the one it was built at and it is younger than `seconds`, else `build()` run again."""
        now = self.clock()
        if self._kept is not None and now < self._held_until:
            return self._kept
        self.checks += 1
        current = version()
        if (self._kept is None or current is None or current != self._version
                or now - self._built_at >= self.seconds):
            self.builds += 1
            self._kept, self._version, self._built_at = await build(), current, now
            self._listed = len(self._kept)
        if self._listed >= LOBBY_HOLD_MIN_GAMES:
            self._held_until = min(now + self._listed * LOBBY_HOLD_PER_GAME, self._built_at + self.seconds)
        return self._kept


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
