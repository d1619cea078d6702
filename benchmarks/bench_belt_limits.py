"""Benchmark of creating games on the largest belts: what the worst accepted belt costs, how fast the worst
refused one is turned away, and how long the event loop is held meanwhile.

Run: `.venv/bin/python benchmarks/bench_belt_limits.py`. Two requests, each `POST /api/games` in process
(FastAPI's TestClient), timed by the process's CPU clock (every thread) and the wall clock, while a task on the
server's event loop ticks every millisecond and records its longest gap (the longest any other game would have
waited, the other threads' hold on the GIL and the machine's load included), and the event loop's own thread's
CPU time is taken:

- *largest accepted*: `max_belt_asteroids` asteroids, `max_belt_links` links, `max_belt_gates` gate pairs, all of
  them around the same two asteroids (the case that was quadratic);
- *largest refused*: a body of `max_request_bytes` holding only gate pairs (about 55,000 of them).

Prints a table; exits 1 when a target is missed. Targets (2-core machine): the accepted belt ≤ 3 s of CPU, the
refused one ≤ 0.5 s of CPU, the event loop's thread ≤ 100 ms of CPU for either (what is left there: the
garbage collection of the new game's objects, `hub._age_young_objects`, and the framework's own work). The loop's
longest gap is printed, not judged: work in a worker thread still holds the GIL, in slices of the interpreter's
switch interval in Python code, whole in C and compiled code (orjson's parse of a 4 MB body, the engine's set-up).
A create-game body over `offload.PARSE_APART` (the refused one) is read first in a process of its own, started by
the first such body: one is sent before measuring, and the time it took printed.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from asteroid_mining.server import Settings, create_app

ACCEPTED_CPU_TARGET = 3.0
REFUSED_CPU_TARGET = 0.5
LOOP_CPU_TARGET = 0.1


def largest_belt(settings: Settings) -> dict[str, Any]:
    """`max_belt_asteroids` asteroids on a ring, each linked to the next ones up to `max_belt_links` links, and
    `max_belt_gates` gate pairs between the first two."""
    n = settings.max_belt_asteroids
    ids = [f"a{i}" for i in range(n)]
    links: list[list[str]] = []
    step = 1
    while len(links) < settings.max_belt_links and step <= n // 2:
        for i in range(n):
            if len(links) == settings.max_belt_links or (2 * step == n and i >= n // 2):
                break
            links.append([ids[i], ids[(i + step) % n]])
        step += 1
    gates = [{"first": f"g{k}x", "first_at": ids[0], "second": f"g{k}y", "second_at": ids[1]}
             for k in range(settings.max_belt_gates)]
    return {"format": "asteroid-mining/belt", "version": 1, "start": ids[0],
            "asteroids": [{"id": aid, "mantle": 2, "core": "ice"} for aid in ids], "links": links, "gates": gates}


def gates_body(limit: int) -> bytes:
    """A create-game body of gate pairs only, as near `limit` bytes as it goes."""
    pair = '{"first":"g%dx","first_at":"a0","second":"g%dy","second_at":"a1"}'
    head = '{"belt":{"format":"asteroid-mining/belt","version":1,"start":"a0","asteroids":[{"id":"a0"},{"id":"a1"}],' \
           '"gates":['
    parts: list[str] = []
    size = len(head) + 3
    k = 0
    while True:
        item = pair % (k, k)
        if size + len(item) + 1 > limit:
            break
        parts.append(item)
        size += len(item) + 1
        k += 1
    return (head + ",".join(parts) + "]}}").encode()


def measured(client: TestClient, body: bytes) -> tuple[int, float, float, float, float]:
    """(status, CPU seconds, wall seconds, the event loop thread's CPU seconds, the event loop's longest gap) of
    one `POST /api/games`."""
    stop = threading.Event()
    gaps: list[float] = []

    async def tick() -> None:
        last = time.perf_counter()
        while not stop.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    portal = client.portal
    assert portal is not None
    ticking = portal.start_task_soon(tick)
    time.sleep(0.05)
    loop_cpu = portal.call(time.thread_time)
    cpu, wall = time.process_time(), time.perf_counter()
    answer = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    loop_cpu = portal.call(time.thread_time) - loop_cpu
    stop.set()
    ticking.result()
    return answer.status_code, cpu, wall, loop_cpu, max(gaps)


def main() -> int:
    """Measure both requests, print the table, 1 when a target is missed."""
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(data_dir=Path(data), bot_delay=0.0)
        accepted = json.dumps({"belt": largest_belt(settings), "seed": 1}).encode()
        refused = gates_body(settings.max_request_bytes)
        with TestClient(create_app(settings)) as client:
            client.post("/api/games", json={})  # warm: imports, the first game
            started = time.perf_counter()  # and the process that reads large create-game bodies first (offload)
            assert client.post("/api/games", content=refused, headers={"content-type": "application/json"}
                               ).status_code == 422
            print(f"the first large body (starting the process that reads such bodies first): "
                  f"{time.perf_counter() - started:.2f} s wall")
            rows = [("largest accepted", len(accepted), *measured(client, accepted), ACCEPTED_CPU_TARGET, 201),
                    ("largest refused", len(refused), *measured(client, refused), REFUSED_CPU_TARGET, 422)]
    failed = False
    print(f"{'belt':<18}{'bytes':>10}{'status':>8}{'CPU s':>8}{'wall s':>8}{'loop CPU ms':>13}{'loop gap ms':>13}")
    for name, size, status, cpu, wall, loop_cpu, gap, target, expected in rows:
        print(f"{name:<18}{size:>10}{status:>8}{cpu:>8.2f}{wall:>8.2f}{loop_cpu * 1000:>13.1f}{gap * 1000:>13.1f}")
        spent = cpu
        if status != expected or spent > target or loop_cpu > LOOP_CPU_TARGET:
            print(f"  missed: status {expected}, {spent:.2f} s ≤ {target} s, loop CPU ≤ {LOOP_CPU_TARGET * 1000:g} ms")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
