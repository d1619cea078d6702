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
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from .errors import ServerError
from .lru import BytesLRU
from .read_cache import GZIP_MINIMUM, Encoded
from .rebuild import DamagedGame
from .security import TokenBucket

Key = tuple[str, int]


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

    @classmethod
    def of(cls, replay: dict[str, Any]) -> History:
        """The history of a replay document (`replay.build_replay`)."""
        steps = tuple(orjson.dumps({"seq": s["seq"], "by": s["by"], "events": s["events"]}) for s in replay["steps"])
        head = orjson.dumps({"id": replay["id"], "status": replay["status"], "seq": replay["seq"]})[:-1]
        text = orjson.dumps(replay)
        gzipped = Encoded.of(text).gzipped if len(text) >= GZIP_MINIMUM else None
        return cls(text, head + b',"steps":[', tuple(s["seq"] for s in replay["steps"]), steps, gzipped)

    @property
    def size(self) -> int:
        """The bytes it holds (its texts; the tuples' own few bytes a step aside)."""
        return (len(self.replay) + len(self.replay_gzipped or b"") + len(self.head) + sum(map(len, self.steps))
                + 16 * len(self.steps))

    def events(self, after: int) -> bytes:
        """The answer of `GET /api/games/{id}/events?after=AFTER`: the steps after seq `after`."""
        first = bisect.bisect_right(self.seqs, after)
        return self.head + b",".join(self.steps[first:]) + b"]}"


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
