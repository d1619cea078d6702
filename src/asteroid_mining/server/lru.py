"""`BytesLRU`: values kept by key within a budget of bytes, the least recently used dropped first (the server's
caches of replays and of finished games' answers)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BytesLRU(Generic[K, V]):
    """At most `max_bytes` of values in all, each weighed by `size`; a value larger than the whole budget is not
    kept (its caller answers with it all the same)."""

    def __init__(self, max_bytes: int, size: Callable[[V], int]) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0
        """The bytes held now."""
        self._size = size
        self._kept: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: K) -> V | None:
        """The value kept for `key` (counted as a use), or None."""
        value = self._kept.get(key)
        if value is not None:
            self._kept.move_to_end(key)
        return value

    def discard(self, key: K) -> None:
        """Drop the value kept for `key`, if any."""
        value = self._kept.pop(key, None)
        if value is not None:
            self.bytes -= self._size(value)

    def put(self, key: K, value: V) -> None:
        """Keep `value` (not when it is larger than the budget, nor when `key` has one), dropping the least
        recently used until the budget holds."""
        size = self._size(value)
        if size > self.max_bytes or key in self._kept:
            return
        self._kept[key] = value
        self.bytes += size
        while self.bytes > self.max_bytes:
            _, dropped = self._kept.popitem(last=False)
            self.bytes -= self._size(dropped)
