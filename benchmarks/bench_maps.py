"""Benchmark of the maps package: generating, loading and holding the biggest belts.

Run: `.venv/bin/python benchmarks/bench_maps.py` (or `make bench`). Prints a table and exits 1 when a target
is missed. Targets (2-core machine): generate `huge` (20,000 asteroids) ≤ 5 s, load and validate it ≤ 2 s,
a loaded huge belt ≤ 300 MB. A *stress* belt (20,000 asteroids, denser, more hubs: several hundred thousand
links) is measured too, against the same targets.
"""

from __future__ import annotations

import gc
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from asteroid_mining.maps import load_belt, save_belt
from asteroid_mining.maps.generator import generate_belt
from asteroid_mining.maps.picture import render_belt
from asteroid_mining.rules.belt import Belt

GENERATE_TARGET = 5.0
LOAD_TARGET = 2.0
MEMORY_TARGET_MB = 300.0


def timed(action: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """The median wall time of `repeat` runs, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        gc.collect()
        begin = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - begin)
    return statistics.median(times), result


def held_mb(action: Callable[[], Belt]) -> tuple[float, float]:
    """Memory (MB) still held by the result of `action`, and the peak while it ran (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    kept = action()
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del kept
    return (current - base) / 2**20, (peak - base) / 2**20


def main() -> int:
    rows: list[tuple[str, str, str, str]] = []
    failed = False

    def row(what: str, value: float, unit: str, target: float | None) -> None:
        nonlocal failed
        ok = target is None or value <= target
        failed |= not ok
        rows.append((what, f"{value:,.2f} {unit}", f"≤ {target:g} {unit}" if target else "", "ok" if ok else "MISSED"))

    with tempfile.TemporaryDirectory() as tmp:
        for label, make in (
            ("huge", lambda: generate_belt("huge", seed=1)),
            ("stress", lambda: generate_belt("huge", seed=1, density=12.0, hubs=400, hub_size=(400, 1000))),
        ):
            seconds, belt = timed(make)
            path = Path(tmp) / f"{label}.json"
            save_seconds, _ = timed(partial(save_belt, belt, path), repeat=1)
            load_seconds, loaded = timed(partial(load_belt, path))
            assert loaded == belt
            kept, peak = held_mb(partial(load_belt, path))
            size = f"{len(belt.asteroids):,} asteroids, {len(belt.links):,} links, {path.stat().st_size / 2**20:.1f} MB"
            rows.append((f"{label}: {size}", "", "", ""))
            row(f"  generate {label}", seconds, "s", GENERATE_TARGET)
            row(f"  save {label} (validated, written)", save_seconds, "s", None)
            row(f"  load + validate {label}", load_seconds, "s", LOAD_TARGET)
            row(f"  memory of a loaded {label} belt", kept, "MB", MEMORY_TARGET_MB)
            row(f"  peak memory while loading {label}", peak, "MB", None)
            if label == "huge":
                picture_seconds, _ = timed(partial(render_belt, belt, Path(tmp) / "huge.png"), repeat=1)
                row("  picture of huge (.png)", picture_seconds, "s", None)

    width = max(len(r[0]) for r in rows)
    print(f"{'maps benchmark':<{width}}  {'measured':>12}  {'target':>10}")
    for what, value, target, verdict in rows:
        print(f"{what:<{width}}  {value:>12}  {target:>10}  {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
