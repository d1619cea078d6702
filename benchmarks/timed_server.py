"""The game server as `python -m asteroid_mining.server` runs it, with the time it spends on choices measured.

`bench_server.py` starts this instead of the server module when `BENCH_CHOICES_TIMES` names a file. The two places
where a server spends on its clients' choices after each command are timed with `perf_counter_ns`: the choice
tracker (`ChoiceTracker.prepare`: which settlers' choices changed, their JSON text written by the engine; and
`commit`) and the seats' own update texts (`LiveGame._own_updates`). When the server stops, their totals and
call counts are written to that file as JSON. The time is measured inside the server, in the same run as its CPU, so
the share it gives does not depend on how busy the machine is (as comparing two runs does).

    BENCH_CHOICES_TIMES=/tmp/times.json python benchmarks/timed_server.py --port 8000 --data /tmp/games
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from time import perf_counter_ns
from typing import Any, TypeVar

from asteroid_mining.server.choices import ChoiceTracker
from asteroid_mining.server.live import LiveGame
from asteroid_mining.server.main import main

F = TypeVar("F", bound=Callable[..., Any])
TOTALS: dict[str, list[int]] = {}
"""By place: [nanoseconds, calls]."""


def timed(name: str, function: F) -> F:
    """`function`, its time and calls added to `TOTALS[name]`."""
    total = TOTALS.setdefault(name, [0, 0])

    @wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        started = perf_counter_ns()
        try:
            return function(*args, **kwargs)
        finally:
            total[0] += perf_counter_ns() - started
            total[1] += 1

    return run  # type: ignore[return-value]


def serve() -> int:
    """Run the server with the choices' places timed; write the totals when it stops."""
    ChoiceTracker.prepare = timed("tracker", ChoiceTracker.prepare)  # type: ignore[method-assign]
    ChoiceTracker.commit = timed("tracker", ChoiceTracker.commit)  # type: ignore[method-assign]
    LiveGame._own_updates = timed("seats", LiveGame._own_updates)  # type: ignore[method-assign]
    try:
        return main()
    finally:
        out = os.environ.get("BENCH_CHOICES_TIMES")
        if out:
            Path(out).write_text(json.dumps({name: {"ns": ns, "calls": calls} for name, (ns, calls) in
                                             TOTALS.items()}))


if __name__ == "__main__":
    sys.exit(serve())
