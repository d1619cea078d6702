"""Simulation on Ray against worker processes (issue 14): the same games with `--ray` and `--jobs 2`.

Figures:
- games per second, planner on `standard`, classic: `--jobs 1`, `--jobs 2`, and Ray on a local cluster of 1 and
  2 CPUs (the cluster started beforehand, as a long run or a running cluster would have it; its start-up is
  timed apart); target: Ray with 2 CPUs ≥ 0.85× `--jobs 2`;
- the overhead of a task: an empty Ray task's round trip, and the cost per game of Ray over the process pool;
- the results are asserted to be the same on every backend.

    python benchmarks/bench_cluster.py            # 200 games
    python benchmarks/bench_cluster.py --games 60
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import statistics
import tempfile
import time

import ray

from asteroid_mining.ai.simulate import BATCH_GAMES, SimConfig, run

TARGET = 0.85


def timed(config: SimConfig, **backend: object) -> tuple[float, list[tuple[int, str, int]]]:
    start = time.perf_counter()
    results = run(config, **backend)  # type: ignore[arg-type]
    return time.perf_counter() - start, [(r.seed, r.outcome, r.rounds) for r in results]


def _noop() -> None:
    return None


def task_overhead(tasks: int) -> float:
    """Seconds per empty task, submitted all at once and gathered (the scheduler's and object store's share)."""
    remote = ray.remote(num_cpus=1)(_noop)
    ray.get([remote.remote() for _ in range(50)])  # warm the workers
    start = time.perf_counter()
    ray.get([remote.remote() for _ in range(tasks)])
    return (time.perf_counter() - start) / tasks


def compare(cpus: int, config: SimConfig, rounds: int) -> tuple[float, list[float], list[float], float]:
    """On a local cluster of `cpus` CPUs, `--jobs cpus` and Ray timed in turn, `rounds` times each (the machine's
    load changes from minute to minute: alternating keeps the comparison fair). (start-up, pool seconds, Ray
    seconds, empty-task seconds)."""
    base = run(config)
    expected = [(r.seed, r.outcome, r.rounds) for r in base]
    pool: list[float] = []
    on_ray: list[float] = []
    with tempfile.TemporaryDirectory(prefix="am-ray-bench-") as temp:
        start = time.perf_counter()
        ray.init(num_cpus=cpus, include_dashboard=False, _temp_dir=temp, log_to_driver=False,
                 logging_level=logging.ERROR, configure_logging=False)
        startup = time.perf_counter() - start
        try:
            run(SimConfig(bots=("planner",), games=2 * cpus, belt="standard", seed=10_000), ray="local")  # warm-up
            for _ in range(rounds):
                seconds, results = timed(config, jobs=cpus)
                assert results == expected, "--jobs changed the results"
                pool.append(seconds)
                seconds, results = timed(config, jobs=cpus, ray="local")
                assert results == expected, "Ray changed the results"
                on_ray.append(seconds)
            overhead = task_overhead(1000)
        finally:
            ray.shutdown()
    return startup, pool, on_ray, overhead


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3, help="timings of each backend, taken in turn")
    args = parser.parse_args()
    games = args.games
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} CPU(s), Ray {ray.__version__}")
    config = SimConfig(bots=("planner",), games=games, belt="standard", rules="classic", seed=0)
    print(f"\nplanner, standard, classic, {games} games (seeds 0…{games - 1}), {BATCH_GAMES} games per task at most, "
          f"median of {args.rounds} timings taken in turn; the same results on every backend (asserted):")
    rate: dict[tuple[str, int], float] = {}
    overheads = {}
    for cpus in (1, 2):
        startup, pool, on_ray, overheads[cpus] = compare(cpus, config, args.rounds)
        rate["pool", cpus] = games / statistics.median(pool)
        rate["ray", cpus] = games / statistics.median(on_ray)
        print(f"  {cpus} worker{'s' if cpus > 1 else ''}: --jobs {cpus} {rate['pool', cpus]:5.1f} games/s "
              f"({', '.join(f'{t:.1f}' for t in pool)} s); Ray {rate['ray', cpus]:5.1f} games/s "
              f"({', '.join(f'{t:.1f}' for t in on_ray)} s); cluster start {startup:.1f} s")
    ratio = rate["ray", 2] / rate["pool", 2]
    print(f"  Ray / --jobs 2: {ratio:.2f}×  [target ≥ {TARGET}×: {'ok' if ratio >= TARGET else 'MISSED'}]")
    print(f"  growth from 1 to 2 workers: --jobs {rate['pool', 2] / rate['pool', 1]:.2f}×, "
          f"Ray {rate['ray', 2] / rate['ray', 1]:.2f}×")
    per_game = (1 / rate["ray", 2] - 1 / rate["pool", 2]) * 1000
    print(f"\noverhead: an empty Ray task {overheads[2] * 1000:.2f} ms (1 CPU: {overheads[1] * 1000:.2f} ms); "
          f"Ray over the process pool {per_game:+.2f} ms of wall time per game; one game costs "
          f"{1000 / rate['pool', 1]:.0f} ms of one core")


if __name__ == "__main__":
    main()
