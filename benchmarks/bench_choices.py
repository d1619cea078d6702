"""Choices benchmark: what the server spends on `choices` per action, in one process, without the network.

Workload (the server benchmark's, issue 10): games on the standard belt, 4 seats of one settler each, strict
turns, every settler watched (a connected seat plays it); random moves, drills and waits. Reported:

- the `ChoiceTracker`'s update after each action (what `server/choices.py` computes and writes as JSON text for
  the settlers whose choices changed: the one whose turn comes, every entry, and the one that acted, null), CPU
  time per action, the median of several passes;
- for one state after each action, the best of several calls: `Game.choices` of the settler whose turn it is
  (every entry, as objects), and `Game.choices_text`, the same as the server sends it (JSON text, written by the
  engine as it judges, without the objects).

    python benchmarks/bench_choices.py             # 6 games x 200 actions, 3 passes
    python benchmarks/bench_choices.py --games 2   # a quick look
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from asteroid_mining.rules import Game
from asteroid_mining.server.belts import checked_belt
from asteroid_mining.server.choices import ChoiceTracker
from asteroid_mining.server.config import Settings
from asteroid_mining.server.diff import ViewTracker
from asteroid_mining.server.options import game_options


def new_games(count: int) -> list[Game]:
    """`count` standard-belt games of 4 settlers, as the server sets them up."""
    out = []
    for seed in range(count):
        resolved, _ = checked_belt("standard", seed, Settings())
        options = game_options("classic", {}, resolved.options_for("classic"))
        out.append(Game.new(resolved.belt, options, seed, 4))
    return out


def step(game: Game, rng: random.Random) -> None:
    """The benchmark clients' play: a move, a drill or a wait."""
    assert game.turn is not None
    game.apply(rng.choice([a for a in game.legal_actions(game.turn) if a.name in ("move", "drill", "wait")]))


def tracker_pass(games: int, actions: int) -> float:
    """CPU µs per action of `ChoiceTracker.update` over fresh games."""
    rng = random.Random(1)
    spent, count = 0.0, 0
    for game in new_games(games):
        view, tracker = ViewTracker(game), ChoiceTracker(game)
        tracker.watch(list(game.settlers))
        tracker.current(list(game.settlers))
        for _ in range(actions):
            if game.status != "running":
                break
            step(game, rng)
            view.update()
            started = time.process_time()
            tracker.update(view.touched)
            spent += time.process_time() - started
            count += 1
    return spent / count * 1e6


def best(call: Callable[[], object], times: int = 7) -> float:
    """The fastest of `times` calls, in µs."""
    fastest = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        call()
        fastest = min(fastest, time.perf_counter() - started)
    return fastest * 1e6


def per_settler(games: int, actions: int) -> dict[str, float]:
    """Warm costs of one settler's choices, averaged over the states of a game, in µs."""
    rng = random.Random(2)
    totals = {"full": 0.0, "full_text": 0.0}
    count = 0
    for game in new_games(games):
        for _ in range(actions):
            if game.status != "running":
                break
            step(game, rng)
            turn = game.turn
            assert turn is not None
            totals["full"] += best(partial(game.choices, turn))
            totals["full_text"] += best(partial(game.choices_text, turn))
            count += 1
    return {key: value / count for key, value in totals.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--actions", type=int, default=200, help="actions played in each game")
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    passes = [tracker_pass(args.games, args.actions) for _ in range(args.passes)]
    warm = per_settler(max(1, args.games // 2), args.actions)
    print(f"standard belt, 4 settlers watched, strict turns, {args.games} games x {args.actions} actions")
    print(f"  ChoiceTracker.update per action, CPU: {statistics.median(passes):.0f} µs (passes: "
          + ", ".join(f"{p:.0f}" for p in passes) + ")")
    print(f"  the settler whose turn it is: Game.choices {warm['full']:.1f} µs, Game.choices_text (its JSON text) "
          f"{warm['full_text']:.1f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
