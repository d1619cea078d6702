"""Self-play: bots play whole games, and the results are summed up per bot.

    config = SimConfig(bots=("planner", "greedy"), games=100, belt="standard", rules="classic", seed=7)
    results = run(config, jobs=2)
    for summary in summarize(results):
        print(summary.bot, summary.win_rate, summary.ci)

Game `i` of every bot uses seed `seed + i` both for the belt (when `belt` is a generator preset) and for the
game itself, so every bot meets the same belts and the same storms' dice, and a run is reproducible from its
seed whatever the number of processes. The rules are the preset's, with the storm interval the belt is made
for (`Belt.storm_interval`, which generated belts set to suit their size). Games are capped at `max_rounds`: a
game still running then counts as a loss by timeout.
"""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ..maps import BeltError, load_belt, load_shipped, shipped_names
from ..rules import PRESETS as RULE_PRESETS
from ..rules import Belt, Game, Options, Refused, Wait
from ..rules.events import Died, Exploded, Sublimated
from .observation import Observation
from .registry import BOT_NAMES, make_bot

OUTCOMES = ("won", "lost", "timeout")
"""How a game can end in a simulation."""
Z95 = 1.959963984540054
"""The 97.5% quantile of the standard normal distribution (a two-sided 95% interval)."""


class SimulationError(ValueError):
    """Bad simulation input (unknown bot, belt or rules, impossible counts); the message is a sentence."""


@dataclass(frozen=True, slots=True)
class SimConfig:
    """What to simulate."""

    bots: tuple[str, ...] = ("planner",)
    games: int = 100
    belt: str = "standard"
    """A generator preset (`tutorial` … `huge`), a belt file, or the name of a shipped belt."""
    rules: str = "classic"
    seed: int = 0
    settlers: int = 3
    max_rounds: int = 300

    def problems(self) -> list[str]:
        """What is wrong with this configuration, as sentences (the belt is checked by `resolve_belt`)."""
        out = []
        unknown = [b for b in self.bots if b not in BOT_NAMES]
        if unknown:
            out.append(f"unknown bot {unknown[0]!r}: the known bots are {', '.join(BOT_NAMES)}")
        if not self.bots:
            out.append("name at least one bot")
        if self.games < 1:
            out.append(f"--games must be at least 1, not {self.games}")
        if self.rules not in RULE_PRESETS:
            out.append(f"unknown rules {self.rules!r}: use {' or '.join(RULE_PRESETS)}")
        if self.seed < 0:
            out.append(f"--seed must be 0 or more, not {self.seed}")
        if self.settlers < 1:
            out.append(f"--settlers must be at least 1, not {self.settlers}")
        if self.max_rounds < 1:
            out.append(f"--max-rounds must be at least 1, not {self.max_rounds}")
        return out


@dataclass(frozen=True, slots=True)
class GameResult:
    """How one game went."""

    bot: str
    game: int
    seed: int
    outcome: str
    """`won`, `lost` or `timeout` (still running at the round cap)."""
    rounds: int
    """The round in which the game ended (or the cap)."""
    deaths: dict[str, int] = field(default_factory=dict)
    """Settlers dead, by cause (`storm`, `explosion`)."""
    units_lost: int = 0
    """Units of material lost to reactions: ice sublimated, uranium exploded (R6)."""
    refused: int = 0
    """Actions the bot chose that the rules refused (replaced by `wait`): a bot bug if not 0."""
    decisions: int = 0
    think_seconds: float = 0.0
    """Total time the bot spent choosing."""


# ----- belts -----
def resolve_belt(spec: str) -> Callable[[int], Belt]:
    """A function seed → belt for `spec`: a generator preset, a belt file, or a shipped belt's name.

    A file is read (and validated) once, here; raises SimulationError for an unknown name and BeltError for a
    file that is not a valid belt.
    """
    from ..maps.generator import PRESETS as BELT_PRESETS

    path = Path(spec)
    if path.suffix == ".json" or path.exists():
        return _Fixed(load_belt(path))
    if spec in BELT_PRESETS:
        return _Generated(spec)
    if spec in shipped_names():
        return _Fixed(load_shipped(spec))
    raise SimulationError(
        f"unknown belt {spec!r}: use a preset ({', '.join(BELT_PRESETS)}), a belt file, "
        f"or a shipped belt ({', '.join(shipped_names())})"
    )


@dataclass(frozen=True, slots=True)
class _Fixed:
    belt: Belt

    def __call__(self, seed: int) -> Belt:
        return self.belt


@dataclass(frozen=True, slots=True)
class _Generated:
    preset: str

    def __call__(self, seed: int) -> Belt:
        from ..maps.generator import generate_belt

        return generate_belt(self.preset, seed=seed)


# ----- one game -----
def game_options(belt: Belt, rules: str) -> Options:
    """The options of preset `rules`, with the storm interval the belt is made for (if it says)."""
    options = RULE_PRESETS[rules]
    if belt.storm_interval is not None:
        options = replace(options, storm_interval=belt.storm_interval)
    return options


def play_game(bot_name: str, belt: Belt, rules: str, seed: int, settlers: int = 3, max_rounds: int = 300,
              game_index: int = 0) -> GameResult:
    """One game of `bot_name` playing every settler, until it is won, lost or reaches the round cap."""
    bot = make_bot(bot_name, seed)
    game = Game.new(belt, game_options(belt, rules), seed=seed, settlers=settlers)
    deaths: Counter[str] = Counter()
    lost = refused = decisions = 0
    thinking = 0.0
    while game.status == "running" and game.round <= max_rounds:
        settler = game.turn
        if settler is None:  # cannot happen in strict turns while running; be safe
            break
        start = time.perf_counter()
        action = bot.choose(Observation(game), settler)
        thinking += time.perf_counter() - start
        decisions += 1
        try:
            events = game.apply(action)
        except Refused:
            refused += 1
            events = game.apply(Wait(settler))
        for event in events:
            if isinstance(event, Died):
                deaths[event.cause] += 1
            elif isinstance(event, Sublimated | Exploded):
                lost += 1
    outcome = game.status if game.status != "running" else "timeout"
    rounds = min(game.round, max_rounds)
    return GameResult(bot_name, game_index, seed, outcome, rounds, dict(deaths), lost, refused, decisions, thinking)


# ----- many games -----
_Task = tuple[str, int, SimConfig]
"""(bot, game number, configuration)."""
_worker_belts: Callable[[int], Belt] | None = None
"""Seed → belt, in a worker process (a belt file is read once per worker)."""


def _init_worker(belts: Callable[[int], Belt]) -> None:
    global _worker_belts
    _worker_belts = belts


def _run_task(task: _Task) -> GameResult:
    bot, i, config = task
    assert _worker_belts is not None, "_init_worker first"
    seed = config.seed + i
    return play_game(bot, _worker_belts(seed), config.rules, seed, config.settlers, config.max_rounds, i)


def iter_results(config: SimConfig, jobs: int = 1) -> Iterator[GameResult]:
    """Play every game of `config`, yielding results as they finish (in any order when `jobs` > 1).

    Checks everything first, before any game: raises SimulationError (bad configuration) or BeltError (a belt
    file that is not valid) at the call, not at the first result.
    """
    problems = config.problems()
    if problems:
        raise SimulationError("; ".join(problems))
    if jobs < 1:
        raise SimulationError(f"--jobs must be at least 1, not {jobs}")
    belts = resolve_belt(config.belt)  # validates the belt once, in this process
    return _play_all(config, jobs, belts)


def _play_all(config: SimConfig, jobs: int, belts: Callable[[int], Belt]) -> Iterator[GameResult]:
    tasks = [(bot, i, config) for bot in config.bots for i in range(config.games)]
    if jobs == 1 or len(tasks) == 1:
        _init_worker(belts)
        yield from map(_run_task, tasks)
        return
    # Forked workers where the platform has fork: they start at once with everything already imported (spawned
    # ones spend ~0.5 s importing, which cost --jobs 2 a tenth of its speed-up). Workers only play games and
    # never touch the console, so a progress bar's refresh thread in this process is no concern. Each worker is
    # given the belt source once (a file's belt, or the generator preset's name).
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    workers = min(jobs, len(tasks))
    chunk = max(1, min(4, len(tasks) // (workers * 16)))
    with ctx.Pool(workers, initializer=_init_worker, initargs=(belts,)) as pool:
        yield from pool.imap_unordered(_run_task, tasks, chunksize=chunk)


def run(config: SimConfig, jobs: int = 1) -> list[GameResult]:
    """Every game of `config`, ordered by bot (as given) then game number."""
    order = {b: n for n, b in enumerate(config.bots)}
    return sorted(iter_results(config, jobs), key=lambda r: (order[r.bot], r.game))


# ----- statistics -----
def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def percentile(values: list[int], q: float) -> float | None:
    """The q-th percentile (0–100) by linear interpolation, or None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclass(frozen=True, slots=True)
class BotSummary:
    """The figures of one bot over its games."""

    bot: str
    games: int
    wins: int
    losses: int
    timeouts: int
    win_rate: float
    ci: tuple[float, float]
    """95% Wilson confidence interval of the win rate."""
    rounds_median: float | None
    rounds_p90: float | None
    """Rounds to win (won games only)."""
    deaths: dict[str, int]
    units_lost: int
    refused: int
    decision_ms: float
    """Mean time per decision, in milliseconds."""


def summarize(results: list[GameResult]) -> list[BotSummary]:
    """One summary per bot, in the order the bots first appear."""
    by_bot: dict[str, list[GameResult]] = {}
    for r in results:
        by_bot.setdefault(r.bot, []).append(r)
    out = []
    for bot, games in by_bot.items():
        wins = [g.rounds for g in games if g.outcome == "won"]
        deaths: Counter[str] = Counter()
        for g in games:
            deaths.update(g.deaths)
        decisions = sum(g.decisions for g in games)
        out.append(BotSummary(
            bot=bot,
            games=len(games),
            wins=len(wins),
            losses=sum(1 for g in games if g.outcome == "lost"),
            timeouts=sum(1 for g in games if g.outcome == "timeout"),
            win_rate=len(wins) / len(games),
            ci=wilson(len(wins), len(games)),
            rounds_median=statistics.median(wins) if wins else None,
            rounds_p90=percentile(wins, 90),
            deaths=dict(sorted(deaths.items())),
            units_lost=sum(g.units_lost for g in games),
            refused=sum(g.refused for g in games),
            decision_ms=1000 * sum(g.think_seconds for g in games) / decisions if decisions else 0.0,
        ))
    return out


# ----- files -----
CSV_FIELDS = ("bot", "game", "seed", "outcome", "rounds", "deaths_storm", "deaths_explosion", "units_lost",
              "refused", "decisions")
"""The columns of a results CSV file, one row per game."""


def write_results(path: Path, config: SimConfig, results: list[GameResult]) -> None:
    """Write the games (and, for JSON, the configuration and summaries) to a `.csv` or `.json` file."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        with path.open("w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out)
            writer.writerow(CSV_FIELDS)
            for r in results:
                writer.writerow([r.bot, r.game, r.seed, r.outcome, r.rounds, r.deaths.get("storm", 0),
                                 r.deaths.get("explosion", 0), r.units_lost, r.refused, r.decisions])
    elif suffix == ".json":
        doc: dict[str, Any] = {
            "config": asdict(config),
            "summary": [asdict(s) for s in summarize(results)],
            "games": [{k: v for k, v in asdict(r).items() if k != "think_seconds"} for r in results],
        }
        path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    else:
        raise SimulationError(f"--out must end in .csv or .json, not {path.name!r}")


__all__ = [
    "OUTCOMES",
    "BeltError",
    "BotSummary",
    "GameResult",
    "SimConfig",
    "SimulationError",
    "iter_results",
    "play_game",
    "resolve_belt",
    "run",
    "summarize",
    "wilson",
    "write_results",
]
