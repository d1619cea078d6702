"""Engine benchmark: applied actions, legal actions and choices on a hub, the end-of-round phase, saving and
loading games, belts and scenarios.

Workload (issue "Rules engine"): a belt of 10,000 asteroids with ~150,000 links and a few hubs of 500
neighbours, 100 settlers and 300 robots; the same at 100,000 asteroids for the scaling checks.

Every figure is measured on both builds of the engine, each in a process of its own: the compiled one (when
`make compiled` has built it) and the pure one (`ASTEROID_MINING_ENGINE=pure`), with the ratio pure/compiled.
Times of a single call (medians) are wall-clock; whole loads and saves are the process's CPU time, which a
busy machine disturbs less.

    python benchmarks/bench_engine.py            # 10,000 and 100,000 asteroids
    python benchmarks/bench_engine.py --quick    # 10,000 only
    python benchmarks/bench_engine.py --engine pure --quick   # one build only
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from asteroid_mining.collector import CollectorPaused
from asteroid_mining.maps import load_belt, save_belt
from asteroid_mining.maps.generator import BeltParams, generate_belt
from asteroid_mining.rules import ENGINE as RUNNING_ENGINE
from asteroid_mining.rules import (
    BuildRobot,
    Deposit,
    Drill,
    Game,
    Mine,
    Move,
    Options,
)
from asteroid_mining.rules.belt import Belt
from asteroid_mining.rules.effects import place_actor
from asteroid_mining.rules.materials import HOLLOW, KINDS, ROBOT_COST
from asteroid_mining.rules.setup import add_robot
from builds import figures_in_child  # beside this file


def make_belt(size: int) -> Belt:
    """A generated belt: ~15 links per asteroid on average, 4 hubs of 500 neighbours."""
    return generate_belt(BeltParams(size=size, density=30.0, hubs=4, hub_size=(500, 500)), seed=1)


def make_game(size: int, turns: str = "free", robots: int = 300, settlers: int = 100) -> Game:
    """A game on a generated belt (`make_belt`), settlers spread over it, robots added."""
    belt = make_belt(size)
    with CollectorPaused():  # a build in bulk, as the edges that load games make it (see `time_json`)
        game = Game.new(belt, Options(turns=turns, storm_interval=10), seed=1, settlers=settlers)  # type: ignore[arg-type]
    rng = random.Random(2)
    state = game.state
    ids = [a for a in game.asteroids if game.asteroids[a].exists]
    # spread the settlers over the belt, as in a game well under way
    for settler in game.settlers.values():
        place_actor(state, settler, game.asteroids[rng.choice(ids)])
    for n in range(robots):
        add_robot(state, f"bot{n}", rng.choice(ids))
    return game


HOLD = 3
"""Settlers deposit rather than fill their holds, so that the game is not won part-way through the benchmark."""


def choose(game: Game, sid: str, rng: random.Random) -> Any:
    """A cheap, always-legal choice of a useful action (drill, mine, deposit, build, else move)."""
    s = game.settlers[sid]
    assert s.at is not None
    here = game.asteroids[s.at]
    if here.mantle > 0:
        return Drill(sid)
    if here.core != HOLLOW and s.carry_total < HOLD:
        return Mine(sid)
    if all(s.cargo[k] >= n for k, n in ROBOT_COST.items()):
        return BuildRobot(sid)
    if here.core == HOLLOW and s.carry_total >= HOLD:
        return Deposit(sid, next(k for k in KINDS if s.cargo[k]))
    return Move(sid, rng.choice(list(here.neighbours)))


def time_actions(game: Game, count: int) -> dict[str, float]:
    rng = random.Random(3)
    settlers = [s for s in game.settlers if game.settlers[s].alive]
    by_kind: dict[str, list[float]] = {}
    done = 0
    while done < count and game.status == "running":
        for sid in settlers:
            if not game.settlers[sid].alive or game.status != "running":
                continue
            action = choose(game, sid, rng)
            t0 = time.perf_counter_ns()
            game.apply(action)
            by_kind.setdefault(action.name, []).append((time.perf_counter_ns() - t0) / 1000)
            done += 1
    everything = [t for ts in by_kind.values() for t in ts]
    assert len(everything) >= count // 2, f"the game ended after {len(everything)} actions"
    out = {"all": statistics.median(everything)}
    out.update({k: statistics.median(v) for k, v in sorted(by_kind.items())})
    return out


def time_hub_legal(game: Game) -> tuple[int, float]:
    hub = max((a for a in game.asteroids.values() if a.exists), key=lambda a: len(a.neighbours))
    sid = next(s.id for s in game.settlers.values() if s.alive)
    place_actor(game.state, game.settlers[sid], hub)
    runs = []
    for _ in range(200):
        t0 = time.perf_counter_ns()
        game.legal_actions(sid)
        runs.append((time.perf_counter_ns() - t0) / 1000)
    return len(hub.neighbours), statistics.median(runs)


def time_hub_choices(game: Game) -> tuple[float, float]:
    """`Game.choices` of a settler on the biggest hub, and the same with its JSON form (medians, µs).

    The hub gets what makes choices cost: exposed reactive cores among the neighbours, a gate pair, a forecast.
    """
    hub = max((a for a in game.asteroids.values() if a.exists), key=lambda a: len(a.neighbours))
    sid = next(s.id for s in game.settlers.values() if s.alive and s.at == hub.id)
    for n, aid in enumerate(list(hub.neighbours)[::10]):
        neighbour = game.asteroids[aid]
        if neighbour.mantle == 0 or n % 2:
            continue
        neighbour.mantle = 0
        neighbour.core = "uranium" if n % 4 else "ice"
    game.add_gates("bench_g1", hub.id, "bench_g2", next(iter(hub.neighbours)))
    game.forecast(game.round + 1, [hub.id])
    plain, with_json = [], []
    for _ in range(200):
        t0 = time.perf_counter_ns()
        choices = game.choices(sid)
        t1 = time.perf_counter_ns()
        choices.to_json()
        t2 = time.perf_counter_ns()
        plain.append((t1 - t0) / 1000)
        with_json.append((t2 - t0) / 1000)
    return statistics.median(plain), statistics.median(with_json)


def time_end_round(size: int, rounds: int = 300) -> float:
    """End-of-round phases of a game without robots, with storms forecast and hitting, after some mining."""
    game = make_game(size, robots=0)
    rng = random.Random(4)
    # expose some reactive cores far from the Sun so that orbits bring them near over the rounds
    for a in list(game.asteroids.values())[:: max(1, size // 200)]:
        if a.exists:
            a.mantle = 1
            s = next(iter(game.settlers.values()))
            if s.alive:
                place_actor(game.state, s, a)
                game.apply(Drill(s.id))
    runs = []
    for _ in range(rounds):
        if game.status != "running":
            break
        t0 = time.perf_counter_ns()
        game.end_round()
        runs.append((time.perf_counter_ns() - t0) / 1000)
        rng.random()
    return statistics.median(runs)


def time_json(game: Game) -> dict[str, float]:
    """Saving (`to_json`, then `json.dumps`) and loading (`json.loads`, then `from_json`), CPU seconds each.

    The engine's bulk calls are made as the edges that load and save in bulk make them (the server's rebuild of
    a stored game): with the garbage collector paused (`collector.CollectorPaused`)."""
    t0 = time.process_time()
    with CollectorPaused():
        doc = game.to_json()
    t1 = time.process_time()
    text = json.dumps(doc)
    t2 = time.process_time()
    parsed = json.loads(text)
    t3 = time.process_time()
    with CollectorPaused():
        again = Game.from_json(parsed)
    t4 = time.process_time()
    assert again.to_json() == doc
    return {"to_json_s": t1 - t0, "dumps_s": t2 - t1, "loads_s": t3 - t2, "from_json_s": t4 - t3,
            "json_mb": len(text) / 1e6}


def time_belt_loading(belt: Belt) -> dict[str, float]:
    """A belt file read and validated (`maps.load_belt`), then a game set up on it (`Game.new`), CPU seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "belt.json"
        save_belt(belt, path)
        t0 = time.process_time()
        loaded = load_belt(path)
        t1 = time.process_time()
        with CollectorPaused():  # as the server's rebuild sets a stored game up (see `time_json`)
            Game.new(loaded, Options(), seed=1, settlers=4)
        t2 = time.process_time()
    return {"load_belt_s": t1 - t0, "game_new_s": t2 - t1}


def scenario_text(belt: Belt) -> str:
    """The belt as a scenario's set-up: every asteroid, every link, four settlers on the start."""
    lines = []
    for a in belt.asteroids:
        where = f"orbit={a.orbit}" if a.orbit else f"sun={a.sun}"
        lines.append(f"asteroid {a.id} mantle={a.mantle} core={a.core} {where}")
    lines.extend(f"link {x} {y}" for x, y in belt.links)
    lines.extend(f"settler s{n} at={belt.start}" for n in range(1, 5))
    return "\n".join(lines) + "\n"


def time_scenario_setup(belt: Belt) -> float:
    """The scenario interpreter setting up the belt from its text (parse and execute), CPU seconds."""
    from asteroid_mining.script.interpreter import Interpreter
    from asteroid_mining.script.reporter import Reporter

    text = scenario_text(belt)
    out = io.StringIO()
    t0 = time.process_time()
    ok = Interpreter("bench.scn", Reporter(out, quiet=True)).run(text)
    t1 = time.process_time()
    assert ok, out.getvalue()
    return t1 - t0


def measure(size: int) -> dict[str, Any]:
    """Every figure of one belt size with the engine this process runs."""
    t0 = time.perf_counter()
    game = make_game(size)
    built = time.perf_counter() - t0
    links = sum(len(a.neighbours) for a in game.asteroids.values()) // 2
    row: dict[str, Any] = {"links": links, "build_s": built}
    for kind, value in time_actions(game, 20_000).items():
        row[f"action_{kind}_us"] = value
    row["hub_degree"], row["hub_legal_us"] = time_hub_legal(game)
    row["hub_choices_us"], row["hub_choices_json_us"] = time_hub_choices(game)
    row["end_round_us"] = time_end_round(size)
    row.update(time_json(game))
    belt = make_belt(size)
    row.update(time_belt_loading(belt))
    row["scenario_setup_s"] = time_scenario_setup(belt)
    return row


# (key, label, unit, target); the unit decides how a figure is printed
FIGURES = [
    ("action_all_us", "applied action, median of 20,000", "µs", "≤ 1 µs"),
    ("action_drill_us", "  drill", "µs", ""),
    ("action_mine_us", "  mine", "µs", ""),
    ("action_deposit_us", "  deposit", "µs", ""),
    ("action_move_us", "  move", "µs", ""),
    ("action_build_robot_us", "  build robot", "µs", ""),
    ("hub_legal_us", "legal actions on the biggest hub, median", "µs", "≤ 1,000 µs"),
    ("hub_choices_us", "choices on the biggest hub, median", "µs", "≤ 1,000 µs"),
    ("hub_choices_json_us", "  with their JSON", "µs", ""),
    ("end_round_us", "end-of-round phase without robots, median", "µs", "≤ 2,000 µs"),
    ("to_json_s", "to_json (CPU)", "s", ""),
    ("dumps_s", "json.dumps (CPU)", "s", ""),
    ("loads_s", "json.loads (CPU)", "s", ""),
    ("from_json_s", "from_json, validating everything (CPU)", "s", "≤ 1 s"),
    ("load_belt_s", "belt file read and validated (CPU)", "s", "≤ 1 s"),
    ("game_new_s", "Game.new on it (CPU)", "s", ""),
    ("scenario_setup_s", "scenario set-up of the belt (CPU)", "s", "≤ 1.5 s"),
]


def _show(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    return f"{value:.2f} {unit}" if unit == "µs" else f"{value:.3f} {unit}"


def in_child(engine: str, sizes: list[int]) -> dict[str, Any] | None:
    """The figures measured by a fresh process running `engine`, or None when that build is not available."""
    return figures_in_child(__file__, engine, ["--engine", engine, *(["--quick"] if sizes == [10_000] else [])])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="only the 10,000-asteroid belt")
    parser.add_argument("--engine", choices=("both", "compiled", "pure"), default="both",
                        help="the build(s) of the engine to measure (default: both, each in a process of its own)")
    parser.add_argument("--json", action="store_true", help="print the figures of this process's engine as JSON")
    args = parser.parse_args()
    sizes = [10_000] if args.quick else [10_000, 100_000]
    if args.json:
        print(json.dumps({"engine": RUNNING_ENGINE, "sizes": {str(n): measure(n) for n in sizes}}))
        return
    engines = ("compiled", "pure") if args.engine == "both" else (args.engine,)
    runs = {engine: in_child(engine, sizes) for engine in engines}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, "
          f"{platform.python_implementation()} {platform.python_version()}")
    for size in sizes:
        rows = {e: (r["sizes"][str(size)] if r else None) for e, r in runs.items()}
        any_row = next((r for r in rows.values() if r), None)
        if any_row is None:
            continue
        print(f"\n{size:,} asteroids, {any_row['links']:,} links, 100 settlers, 300 robots; "
              f"hub of {any_row['hub_degree']} neighbours")
        header = f"  {'figure':<46}" + "".join(f"{e:>14}" for e in engines)
        print(header + ("   pure/compiled" if len(engines) == 2 else "") + "   target")
        for key, label, unit, target in FIGURES:
            values = [rows[e].get(key) if rows[e] else None for e in engines]
            line = f"  {label:<46}" + "".join(f"{_show(v, unit):>14}" for v in values)
            if len(engines) == 2:
                ratio = f"{values[1] / values[0]:.2f}×" if values[0] and values[1] else "—"
                line += f"   {ratio:>13}"
            print(line + (f"   {target}" if target else ""))
    if len(sizes) == 2:
        print("\nscaling 100,000 vs 10,000:")
        for engine, run in runs.items():
            if run:
                small, big = run["sizes"]["10000"], run["sizes"]["100000"]
                print(f"  {engine}: applied action {big['action_all_us'] / small['action_all_us']:.2f}×, "
                      f"end-of-round phase {big['end_round_us'] / small['end_round_us']:.2f}×")


if __name__ == "__main__":
    main()
