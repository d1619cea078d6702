"""Engine benchmark: applied actions, legal actions and choices on a hub, the end-of-round phase, JSON.

Workload (issue "Rules engine"): a belt of 10,000 asteroids with ~150,000 links and a few hubs of 500
neighbours, 100 settlers and 300 robots; the same at 100,000 asteroids for the scaling checks.

    python benchmarks/bench_engine.py            # 10,000 and 100,000 asteroids
    python benchmarks/bench_engine.py --quick    # 10,000 only
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import time
from typing import Any

from asteroid_mining.maps.generator import BeltParams, generate_belt
from asteroid_mining.rules import (
    BuildRobot,
    Deposit,
    Drill,
    Game,
    Mine,
    Move,
    Options,
)
from asteroid_mining.rules.effects import place_actor
from asteroid_mining.rules.materials import HOLLOW, KINDS, ROBOT_COST
from asteroid_mining.rules.setup import add_robot


def make_game(size: int, turns: str = "free", robots: int = 300, settlers: int = 100) -> Game:
    """A game on a generated belt: ~15 links per asteroid on average, 4 hubs of 500 neighbours."""
    belt = generate_belt(BeltParams(size=size, density=30.0, hubs=4, hub_size=(500, 500)), seed=1)
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


def time_json(game: Game) -> tuple[float, float, int]:
    t0 = time.perf_counter()
    doc = game.to_json()
    text = json.dumps(doc)
    t1 = time.perf_counter()
    again = Game.from_json(json.loads(text))
    t2 = time.perf_counter()
    assert again.to_json() == doc
    return t1 - t0, t2 - t1, len(text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="only the 10,000-asteroid belt")
    args = parser.parse_args()
    sizes = [10_000] if args.quick else [10_000, 100_000]
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}")
    results: dict[int, dict[str, Any]] = {}
    for size in sizes:
        t0 = time.perf_counter()
        game = make_game(size)
        built = time.perf_counter() - t0
        links = sum(len(a.neighbours) for a in game.asteroids.values()) // 2
        row: dict[str, Any] = {"links": links, "build_s": built}
        row["actions_us"] = time_actions(game, 20_000)
        row["hub_degree"], row["hub_legal_us"] = time_hub_legal(game)
        if hasattr(game, "choices"):
            row["hub_choices_us"], row["hub_choices_json_us"] = time_hub_choices(game)
        row["end_round_us"] = time_end_round(size)
        row["to_json_s"], row["from_json_s"], row["json_bytes"] = time_json(game)
        results[size] = row
        acts = row["actions_us"]
        print(f"\n{size:,} asteroids, {links:,} links, 100 settlers, 300 robots (belt built in {built:.1f} s)")
        print(f"  applied action, median over 20,000: {acts['all']:.1f} µs  (target ≤ 20 µs)")
        print("    by kind: " + ", ".join(f"{k} {v:.1f} µs" for k, v in acts.items() if k != "all"))
        print(f"  legal actions on a {row['hub_degree']}-neighbour hub, median: {row['hub_legal_us']:.0f} µs"
              "  (target ≤ 1,000 µs)")
        if "hub_choices_us" in row:
            print(f"  choices on a {row['hub_degree']}-neighbour hub, median: {row['hub_choices_us']:.0f} µs, with its"
                  f" JSON: {row['hub_choices_json_us']:.0f} µs  (target ≤ 1,000 µs)")
        print(f"  end-of-round phase without robots, median: {row['end_round_us']:.0f} µs  (target ≤ 2,000 µs)")
        print(f"  to_json + dumps: {row['to_json_s']:.2f} s, loads + from_json: {row['from_json_s']:.2f} s"
              f"  ({row['json_bytes'] / 1e6:.1f} MB; target ≤ 1 s each)")
    if len(results) == 2:
        small, big = results[10_000], results[100_000]
        print("\nscaling 100,000 vs 10,000 (target ≤ 2×):")
        print(f"  applied action: {big['actions_us']['all'] / small['actions_us']['all']:.2f}×")
        print(f"  end-of-round phase: {big['end_round_us'] / small['end_round_us']:.2f}×")


if __name__ == "__main__":
    main()
