"""The garbage collector's policy for the edges that build or write a whole game, a belt or a scenario at once.

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

The rules engine itself never touches the collector: the edges that load or save in bulk do (reading a belt
file, `maps.format`; a scenario's set-up, `script.interpreter`; the server's rebuild of a stored game and its
snapshots; the benchmarks, as those edges do).
"""

from __future__ import annotations

import gc
from types import TracebackType

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
