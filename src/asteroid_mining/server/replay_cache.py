"""`ReplayCache`: a game's history (its replay and its events) kept encoded, by game and seq, within a budget of
bytes; `ReadLimiter`: a token bucket per address for the reads that replay a whole game.

Building a replay replays the whole game (most of a second of CPU for a long one); clients that poll a replay or
a game's events would otherwise keep a core busy. A game's history changes only when its seq does, so the key is
(game, seq). Concurrent requests for the same key share one build. A game whose log no longer replays is
`DamagedGame`.

What is kept is the answers' JSON text, not the documents: the text is several times smaller than the objects it
was written from (sixteen replays of a 20,000-command game once held 616 MB as objects), it is what every request
sends anyway (encoding the document again for each request cost as much as building it), and its size is known
exactly, so the cache is bounded in bytes (`replay_cache_bytes`), not in documents. A history larger than the
whole budget is answered but not kept.
"""

from __future__ import annotations

import asyncio
import bisect
import math
import struct
import zlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from .errors import ServerError
from .lru import BytesLRU
from .read_cache import LOBBY_GZIP_LEVEL, Encoded
from .rebuild import DamagedGame
from .security import TokenBucket

Key = tuple[str, int]

EVENTS_BLOCK_BYTES = 32 * 1024
"""The events' steps are gzipped in blocks of about this many bytes of text, each on its own (`History.events_gzip`):
an answer from any `after` is the blocks after it as kept, and at most one block's part gzipped for the request."""
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
"""A gzip member's header: deflate, no name, no time (as `gzip.compress(…, mtime=0)`), unknown system."""


def _deflated(text: bytes, last: bool) -> bytes:
    """`text` as raw deflate blocks of their own (no reference to what comes before), ending byte-aligned: the
    final block when `last`, else an empty stored one (a sync flush), after which more such pieces may follow."""
    squeezer = zlib.compressobj(LOBBY_GZIP_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
    return squeezer.compress(text) + squeezer.flush(zlib.Z_FINISH if last else zlib.Z_SYNC_FLUSH)


@dataclass(frozen=True, slots=True)
class History:
    """A game's history at one seq, as JSON text: the replay document and each step's events."""

    replay: bytes
    """The answer of `GET /api/games/{id}/replay`."""
    head: bytes
    """The events answer before its steps: `{"id": …, "status": …, "seq": …, "steps": [`."""
    seqs: tuple[int, ...]
    """The seq of each step, in order."""
    steps: tuple[bytes, ...]
    """Each step's `{"seq", "by", "events"}`, in order."""
    replay_gzipped: bytes | None = None
    """`replay` gzipped (None when it is too short to be worth it, `GZIP_MINIMUM`): a long game's replay is
    megabytes, and the GZip middleware compressed it again at every request, on the event loop (13.7 MB, 6,041
    commands on `large`: 97 ms of CPU a request in one piece); made once, off the event loop, with the rest."""
    blocks: tuple[int, ...] = ()
    """The index of the first step of each block of the events (`EVENTS_BLOCK_BYTES`), in order."""
    blocks_deflated: tuple[bytes, ...] = ()
    """Each block's text (its steps joined, then `,`, or `]}` for the last) deflated on its own (`_deflated`)."""

    @classmethod
    def of(cls, replay: dict[str, Any]) -> History:
        """The history of a replay document (`replay.build_replay`)."""
        steps = tuple(orjson.dumps({"seq": s["seq"], "by": s["by"], "events": s["events"]}) for s in replay["steps"])
        head = orjson.dumps({"id": replay["id"], "status": replay["status"], "seq": replay["seq"]})[:-1]
        text = orjson.dumps(replay)
        gzipped = Encoded.of(text).gzipped
        blocks: list[int] = []
        size = EVENTS_BLOCK_BYTES
        for index, step in enumerate(steps):
            if size >= EVENTS_BLOCK_BYTES:
                blocks.append(index)
                size = 0
            size += len(step) + 1
        ends = [*blocks[1:], len(steps)][:len(blocks)]  # (no block without steps)
        deflated = tuple(_deflated(b",".join(steps[start:end]) + (b"]}" if end == len(steps) else b","),
                                   end == len(steps)) for start, end in zip(blocks, ends, strict=True))
        return cls(text, head + b',"steps":[', tuple(s["seq"] for s in replay["steps"]), steps, gzipped,
                   tuple(blocks), deflated)

    @property
    def size(self) -> int:
        """The bytes it holds (its texts; the tuples' own few bytes a step aside)."""
        return (len(self.replay) + len(self.replay_gzipped or b"") + len(self.head) + sum(map(len, self.steps))
                + sum(map(len, self.blocks_deflated)) + 16 * len(self.steps) + 16 * len(self.blocks))

    def events(self, after: int) -> bytes:
        """The answer of `GET /api/games/{id}/events?after=AFTER`: the steps after seq `after`."""
        first = bisect.bisect_right(self.seqs, after)
        return self.head + b",".join(self.steps[first:]) + b"]}"

    def events_gzip(self, after: int, text: bytes) -> bytes:
        """`text`, the answer `events(after)`, gzipped from the blocks kept: the head and the part of the block
        `after` falls in are deflated for the request (one block's text at most), the blocks after it are sent as
        kept, in one gzip member whose checksum is of `text`. The GZip middleware compressed the whole answer at
        every request on the event loop: 30-40 ms of CPU for a long game's 832 KB, whatever `after`."""
        first = bisect.bisect_right(self.seqs, after)
        if first == len(self.steps):
            pieces = [_deflated(self.head + b"]}", True)]
        else:
            block = bisect.bisect_right(self.blocks, first) - 1
            end = self.blocks[block + 1] if block + 1 < len(self.blocks) else len(self.steps)
            if first == self.blocks[block]:
                pieces = [_deflated(self.head, False), *self.blocks_deflated[block:]]
            else:  # (the part of the block after `after`, and its end as the kept block's text has it)
                part = b",".join(self.steps[first:end]) + (b"]}" if end == len(self.steps) else b",")
                pieces = [_deflated(self.head + part, end == len(self.steps)), *self.blocks_deflated[block + 1:]]
        trailer = struct.pack("<II", zlib.crc32(text), len(text) & 0xFFFFFFFF)
        return b"".join([_GZIP_HEADER, *pieces, trailer])


class ReplayCache:
    """The histories built, least recently used dropped first, holding at most `max_bytes` in all."""

    def __init__(self, max_bytes: int) -> None:
        self._done: BytesLRU[Key, History] = BytesLRU(max_bytes, lambda history: history.size)
        self._building: dict[Key, asyncio.Future[History]] = {}
        self.builds = 0
        """How many histories were built (the rest were served from the cache)."""

    def __len__(self) -> int:
        return len(self._done)

    @property
    def max_bytes(self) -> int:
        """The budget of bytes."""
        return self._done.max_bytes

    @property
    def bytes(self) -> int:
        """The bytes held now."""
        return self._done.bytes

    def peek(self, game_id: str, seq: int) -> History | None:
        """The history of `game_id` at `seq` when it is kept (counted as a use), else None."""
        return self._done.get((game_id, seq))

    async def get(self, game_id: str, seq: int, build: Callable[[], dict[str, Any]]) -> History:
        """The history of `game_id` at `seq`: from the cache, or `build()` (a replay document) run and encoded off
        the event loop."""
        key = (game_id, seq)
        done = self._done.get(key)
        if done is not None:
            return done
        pending = self._building.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[History] = asyncio.get_running_loop().create_future()
        self._building[key] = future
        try:
            self.builds += 1
            try:
                history = await asyncio.to_thread(lambda: History.of(build()))
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
        future.set_result(history)
        self._done.put(key, history)  # not kept when larger than the whole budget: answered all the same
        return history


class ReadLimiter:
    """A token bucket per client address for the reads that may replay a whole game (`/log`, `/replay`,
    `/events`): `rate` a second on average, `burst` at once. Past it, `429 rate_limited` with `Retry-After`.

    The cache makes asking for the same history again cheap, but every game not yet cached is a build: the
    bucket bounds what one address can make the server build. At most `addresses` buckets are kept (the least
    recently used forgotten: a forgotten address starts with a full bucket, which is what an idle one has)."""

    def __init__(self, rate: float, burst: int, addresses: int = 4096,
                 what: str = "replays, events and logs asked for") -> None:
        self.what = what
        """What is counted, as the refusal names it."""
        self.rate = rate
        self.burst = burst
        self.addresses = addresses
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def check(self, client: str, what: str | None = None) -> None:
        """Take one token for `client`; ServerError 429 `rate_limited` (with Retry-After) when it has none, naming
        `what` was asked for too often (by default the limiter's `what`)."""
        bucket = self._buckets.get(client)
        if bucket is None:
            bucket = self._buckets[client] = TokenBucket(self.rate, self.burst)
            if len(self._buckets) > self.addresses:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(client)
        if not bucket.take():
            wait = max(1, math.ceil(bucket.wait())) if self.rate > 0 else 60
            raise ServerError(429, "rate_limited", f"too many {what or self.what}: at most "
                              f"{self.rate:g} a second from one address; try again in {wait} s",
                              headers={"retry-after": str(wait)})

    def level(self, client: str) -> float:
        """The tokens `client`'s bucket holds now (below 0: its debt); a full bucket for an address without one."""
        bucket = self._buckets.get(client)
        return bucket.level() if bucket is not None else float(self.burst)

    def charge(self, client: str, tokens: float) -> None:
        """Take `tokens` more from `client`'s bucket for a read that turned out costly (a history built), into
        debt if need be: it asks again once its bucket has refilled past the debt. An address without a bucket
        (not seen since the start, or forgotten) is given a full one first."""
        bucket = self._buckets.get(client)
        if bucket is None:
            bucket = self._buckets[client] = TokenBucket(self.rate, self.burst)
            if len(self._buckets) > self.addresses:
                self._buckets.popitem(last=False)
        bucket.owe(tokens)
