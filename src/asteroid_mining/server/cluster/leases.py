"""Leases: the one owner of each live game, in Redis.

A game's lease is the key `am:lease:{game}` holding `"{node} {epoch}"`, set only when absent and expiring after
`ttl` unless its holder renews it. Each new lease of a game gets a higher epoch (`am:epoch:{game}`, never lower
than the epoch the store last saw, so that a Redis that lost its data cannot hand out an old one); the node writes
that epoch into the store (`GameStore.claim`), which from then on refuses commands of the game from anyone else.
The lease says who should play a game; the store's fence makes sure nobody else can. A game's epoch counter
expires `EPOCH_SECONDS` after its last lease was taken: the store's epoch is its floor, as after Redis lost it.
"""

from __future__ import annotations

from typing import Any

_ACQUIRE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return nil end
local epoch = redis.call('INCR', KEYS[2])
if epoch <= tonumber(ARGV[3]) then
  epoch = tonumber(ARGV[3]) + 1
  redis.call('SET', KEYS[2], epoch)
end
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. epoch, 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return epoch
"""
"""KEYS: lease, epoch counter; ARGV: node, ttl in ms, the lowest epoch allowed minus one, the counter's life in ms.
The new epoch, or nil."""

EPOCH_SECONDS = 86_400
"""How long a game's epoch counter (`am:epoch:{game}`) is kept in Redis after its last lease was taken. It was
kept for good: one key for every game ever played on the cluster, 300 games left 300 counters once their leases
were given up, Redis's memory growing with every game created and opened, for as long as the cluster ran. Once it
has gone, the next lease's epoch is the store's plus one (the floor `acquire` is given, as when Redis has lost its
data); a day is far past any lease and any pause between taking a lease and claiming the game in the store."""

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def lease_key(game_id: str) -> str:
    """The Redis key of a game's lease."""
    return f"am:lease:{game_id}"


class Leases:
    """One node's view of the leases: acquire, renew, release, look up."""

    def __init__(self, redis: Any, node: str, ttl: float) -> None:
        self.redis = redis
        self.node = node
        self.ttl_ms = max(100, int(ttl * 1000))
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)

    def _value(self, epoch: int) -> str:
        return f"{self.node} {epoch}"

    async def acquire(self, game_id: str, floor: int = 0) -> int | None:
        """A new lease of the game for this node, with an epoch above `floor`; None when another holds it."""
        epoch = await self._acquire(keys=[lease_key(game_id), f"am:epoch:{game_id}"],
                                    args=[self.node, self.ttl_ms, floor, EPOCH_SECONDS * 1000])
        return None if epoch is None else int(epoch)

    async def renew(self, held: dict[str, int]) -> dict[str, bool]:
        """Renew the leases this node holds (game -> epoch), in one round trip; which are still held."""
        if not held:
            return {}
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id, epoch in held.items():
                await self._renew(keys=[lease_key(game_id)], args=[self._value(epoch), self.ttl_ms], client=pipe)
            answers = await pipe.execute()
        return {game_id: bool(answer) for game_id, answer in zip(held, answers, strict=True)}

    async def release(self, game_id: str, epoch: int) -> None:
        """Give the lease up (when it is still this node's)."""
        await self._release(keys=[lease_key(game_id)], args=[self._value(epoch)])

    async def owner(self, game_id: str) -> tuple[str, int] | None:
        """The node holding the game's lease and its epoch, or None when nobody does."""
        value = await self.redis.get(lease_key(game_id))
        if value is None:
            return None
        text = value.decode() if isinstance(value, bytes) else str(value)
        node, _, epoch = text.rpartition(" ")
        return node, int(epoch)
