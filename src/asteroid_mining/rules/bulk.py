"""Building or writing a whole game at once, without the cyclic garbage collector getting in the way.

Loading a game of 100,000 asteroids creates about a million containers (records, their dicts, the parsed
document's lists). Each few hundred allocations start a collection that walks every young object, and each
older generation's collection walks the whole growing heap, so that more than half of the time went to the
collector, which finds nothing: a game holds no garbage cycles while it is being built or written.
"""

from __future__ import annotations

import gc
from types import TracebackType


class CollectorPaused:
    """`with CollectorPaused():` — the garbage collector is off inside, and back as it was after."""

    __slots__ = ("_was_on",)

    def __init__(self) -> None:
        self._was_on = False

    def __enter__(self) -> None:
        self._was_on = gc.isenabled()
        gc.disable()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._was_on:
            gc.enable()
