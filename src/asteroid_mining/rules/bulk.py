"""Building or writing a whole game at once: without the cyclic garbage collector getting in the way, and
reading the biggest arrays of a belt in compiled code.

Loading a game of 100,000 asteroids creates about a million containers (records, their dicts, the parsed
document's lists). Each few hundred allocations start a collection that walks every young object, and each
older generation's collection walks the whole growing heap, so that more than half of the time went to the
collector, which finds nothing: a game holds no garbage cycles while it is being built or written.

Once the collector is back on, the next allocation would start a collection of the youngest generation, which
now holds everything just built: it would walk it all (a tenth of a second at that size), and the next
generation's collection would walk it all again, to find nothing and move it on. What was built is the game
and lives as long as it: after a big build it goes straight to the oldest generation, which full collections
still walk. Small builds (a game of a few hundred asteroids, made at every reset of a learning environment) are
left to the collector as usual: garbage moved to the oldest generation waits for a full collection.
"""

from __future__ import annotations

import gc
from types import TracebackType
from typing import Any

PROMOTE_AT = 100_000
"""Young objects from which a build moves them to the oldest generation (a belt of 100,000 asteroids makes
millions; a game of `standard` size, thousands)."""


class CollectorPaused:
    """`with CollectorPaused():` — the garbage collector is off inside, and back as it was after.

    When the block ends normally after allocating at least `PROMOTE_AT` objects the collector follows, they
    (and whatever else was young) move to its oldest generation without being walked. Not when objects have
    been frozen (`gc.freeze`, as servers that fork do): moving them back would undo that.
    """

    __slots__ = ("_was_on",)

    def __init__(self) -> None:
        self._was_on = False

    def __enter__(self) -> None:
        self._was_on = gc.isenabled()
        gc.disable()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._was_on:
            if kind is None and gc.get_count()[0] >= PROMOTE_AT and gc.get_freeze_count() == 0:
                gc.freeze()  # every generation into the permanent one, without walking anything ...
                gc.unfreeze()  # ... and all of it back into the oldest
            gc.enable()


def resolve_pairs(items: list[Any], index: dict[str, int],
                  names: list[str]) -> tuple[list[tuple[str, str]], list[int]] | None:
    """Pairs of ids (`[a, b]`, the links of a belt) as pairs of the names they stand for, with each pair's key
    (the lower index times `len(names)` plus the higher one, to find a pair given twice); `index` gives each
    name's position in `names`. None at the first item that is not a list of two different names of `index`.

    A belt of 100,000 asteroids has 1.4 million links: each is one look-up per end here, and its pair is made
    of the names themselves rather than of the document's copies of them.
    """
    pairs: list[tuple[str, str]] = []
    keys: list[int] = []
    size = len(names)
    last: str = ""
    at_last: int | None = None
    for item in items:
        if type(item) is not list:
            return None
        pair: list[Any] = item
        if len(pair) != 2:
            return None
        first, second = pair[0], pair[1]
        if type(first) is not str or type(second) is not str:
            return None
        # a belt lists an asteroid's links one after the other: comparing with the last first end is cheaper
        # than looking it up again
        if first != last:
            last, at_last = first, index.get(first)
        at_first, at_second = at_last, index.get(second)
        if at_first is None or at_second is None or at_first == at_second:
            return None
        pairs.append((names[at_first], names[at_second]))
        keys.append(at_first * size + at_second if at_first < at_second else at_second * size + at_first)
    return pairs, keys
