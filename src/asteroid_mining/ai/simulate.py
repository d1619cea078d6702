"""Self-play: bots play whole games, and the results are summed up per bot.

    config = SimConfig(bots=("planner", "greedy"), games=100, belt="standard", rules="classic", seed=7)
    results = run(config, jobs=2)
    for summary in summarize(results):
        print(summary.bot, summary.win_rate, summary.ci)

Game `i` of every bot uses seed `seed + i` both for the belt (when `belt` is a generator preset) and for the
game itself, so every bot meets the same belts and the same storms' dice, and a run is reproducible from its
seed whatever the backend (one process, `jobs` processes, a Ray cluster) and the number of workers. The belt
and its options come from `maps.resolve`, as for every game: the rules preset with the options the belt
recommends (its storm interval, a difficulty level's settings). Games are capped at `max_rounds`: a game still
running then counts as a loss by timeout. A game that raises (a bot's bug) is an `error` result naming its
seed, and the run goes on.
"""

from __future__ import annotations

import csv
import gc
import importlib
import json
import math
import multiprocessing
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..maps import BeltError
from ..maps.difficulty import DIFFICULTY_NAMES
from ..maps.resolve import BeltSource, Resolved, ResolveError, belt_source
from ..rules import PRESETS as RULE_PRESETS
from ..rules import Belt, Game, Options
from .playout import Tally, play_out
from .registry import BotError, bot_factory, make_bot

OUTCOMES = ("won", "lost", "timeout", "error")
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
    """A shipped belt's name, a generator preset (`small` … `huge`), or a belt file (`maps.resolve`)."""
    rules: str = "classic"
    seed: int = 0
    settlers: int = 3
    max_rounds: int = 300
    difficulty: str | None = None
    """A difficulty level (`maps.difficulty`), or None for the belt as it is made."""
    record: str | None = None
    """A folder to write every game's steps to, as Parquet files (`rl.record`), or None."""

    def problems(self) -> list[str]:
        """What is wrong with this configuration, as sentences (the belt is checked by `maps.resolve`)."""
        out = []
        for bot in self.bots:
            try:
                bot_factory(bot, files=True)
            except BotError as unknown:
                out.append(str(unknown))
                break
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
        if self.difficulty is not None and self.difficulty not in DIFFICULTY_NAMES:
            out.append(f"unknown difficulty {self.difficulty!r}: use {', '.join(DIFFICULTY_NAMES)}")
        if self.record is not None:
            if not Path(self.record).is_dir():
                out.append(f"--record {self.record}: no such folder")
            else:
                try:
                    _recorder()  # checked here, before any game: the workers import it too
                except ImportError as missing:
                    out.append(f"--record needs the rl extra ({missing}): pip install 'asteroid-mining[rl]'")
        return out


@dataclass(frozen=True, slots=True)
class GameResult:
    """How one game went."""

    bot: str
    game: int
    seed: int
    outcome: str
    """`won`, `lost`, `timeout` (still running at the round cap) or `error` (the game raised: see `error`)."""
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
    error: str | None = None
    """What a game that raised raised (`TypeError: ...`); None for a game played to its end."""
    name: str = ""
    """The bot's own `name` (the spec in `bot` may be a file's path)."""
    actions: int = 0
    """Actions the game accepted (the settlers' steps, a refused one's `wait` included)."""
    gathered: int = 0
    """Units of material the settlers mined."""
    cause: str = ""
    """Why the game was not won: `timeout`, or the causes of the deaths of a lost game (`storm`,
    `explosion`, most deaths first); empty for a won game or one that raised."""
    seconds: float = 0.0
    """Wall-clock time of the game, bot and engine together (not reproducible, unlike everything else)."""


# ----- one game -----
def play_game(bot_name: str, belt: Belt | Resolved, rules: str, seed: int, settlers: int = 3, max_rounds: int = 300,
              game_index: int = 0) -> GameResult:
    """One game of `bot_name` playing every settler, until it is won, lost or reaches the round cap.

    A bare `Belt` is played with the options it recommends (as `maps.resolve` gives them).
    """
    started = time.perf_counter()
    resolved = belt if isinstance(belt, Resolved) else BeltSource(belt.name, fixed=belt)(seed)
    bot = make_bot(bot_name, seed, files=True)
    game = Game.new(resolved.belt, _options(resolved, rules), seed=seed, settlers=settlers)
    tally = play_out(game, bot, max_rounds)
    return result_of(game, bot_name, str(getattr(bot, "name", bot_name)), game_index, seed, max_rounds, tally,
                     time.perf_counter() - started)


def result_of(game: Game, bot_name: str, name: str, game_index: int, seed: int, max_rounds: int, tally: Tally,
              seconds: float) -> GameResult:
    """The result of a game played to its end (or the round cap) from what its loop counted."""
    outcome = game.status if game.status != "running" else "timeout"
    rounds = min(game.round, max_rounds)
    actions, gathered = game.history_counts("mine")  # the history's entries with an actor, and its mines
    if outcome == "timeout":
        cause = "timeout"
    elif outcome == "lost":
        cause = ", ".join(c for c, _ in Counter(tally.deaths).most_common()) or "lost"
    else:
        cause = ""
    return GameResult(bot_name, game_index, seed, outcome, rounds, tally.deaths, tally.lost, tally.refused,
                      tally.decisions, tally.thinking, None, name, actions, gathered, cause, seconds)


Recorder = Callable[["Work", str, int, Resolved], "GameResult"]
"""Plays one game of a simulation as `play_game` does and records its steps (`rl.record.record_game`)."""


def _recorder() -> Recorder:
    """`rl.record.record_game`, which plays a game as `play_game` does and writes its steps. Imported by name:
    `rl/` sits above `ai/` (it needs the `rl` extra), as `ai/` above the server (docs/architecture.md)."""
    record_game: Recorder = importlib.import_module("asteroid_mining.rl.record").record_game
    return record_game


def _options(resolved: Resolved, rules: str) -> Options:
    """`resolved.options_for(rules)`, worked out once for each set of recommended options: the games of a
    simulation on generated belts share them (options are immutable values)."""
    return _options_of(rules, tuple(sorted(resolved.options.items())))


@lru_cache(maxsize=64)
def _options_of(rules: str, options: tuple[tuple[str, int | bool], ...]) -> Options:
    return Resolved(Belt((), (), ""), dict(options)).options_for(rules)  # the options do not depend on the belt


# ----- many games -----
BATCH_GAMES = 8
"""Games per task at most (a task's cost, a process round trip or a Ray task, is shared by its games)."""
RETRIES = 3
"""How many times the games of a worker that died are given to another worker."""


@dataclass(frozen=True, slots=True)
class Work:
    """What every worker needs, sent to it once: the configuration and the checked belt source."""

    config: SimConfig
    source: BeltSource

    def play(self, bot: str, game: int) -> GameResult:
        """Game number `game` of `bot`; a game that raises is an `error` result with the exception, not a raise."""
        seed = self.config.seed + game
        try:
            resolved = self.source(seed)
            if self.config.record is not None:
                return _recorder()(self, bot, game, resolved)
            return play_game(bot, resolved, self.config.rules, seed, self.config.settlers, self.config.max_rounds,
                             game)
        except Exception as failed:  # a bot's or the engine's bug: reported with its seed, the run goes on
            return GameResult(bot, game, seed, "error", 0, error=f"{type(failed).__name__}: {failed}")

    def play_batch(self, batch: Batch) -> list[GameResult]:
        """Every game of a batch, in order (with the collector's `PLAY_GC_THRESHOLDS`, restored after)."""
        with few_collections():
            return [self.play(bot, game) for bot, game in batch]


PLAY_GC_THRESHOLDS = (20_000, 50, 1_000)
"""The cyclic collector's thresholds while a batch of games is played. A game makes many short-lived objects
and almost no cycles: collecting the young ones every 700 allocations (Python's default) walked them for
nothing, about a twentieth of a random bot's game on `small` (the server's `GC_THRESHOLDS` for the same reason)."""


@contextmanager
def few_collections() -> Iterator[None]:
    """`with few_collections():` — the collector's thresholds are `PLAY_GC_THRESHOLDS` inside, as they were after."""
    before = gc.get_threshold()
    gc.set_threshold(*PLAY_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)


Batch = tuple[tuple[str, int], ...]
"""(bot, game number) pairs played by one task."""


def batches(config: SimConfig, workers: int) -> list[Batch]:
    """The games cut into tasks: small enough to share out evenly (about 16 per worker), at most BATCH_GAMES."""
    tasks = [(bot, i) for bot in config.bots for i in range(config.games)]
    size = max(1, min(BATCH_GAMES, len(tasks) // (workers * 16)))
    return [tuple(tasks[i : i + size]) for i in range(0, len(tasks), size)]


def iter_results(config: SimConfig, jobs: int = 1, ray: str | None = None) -> Iterator[GameResult]:
    """Play every game of `config`, yielding results as they finish (in any order when `jobs` > 1 or on Ray).

    `ray`: play on a Ray cluster, at this address (`local`: a cluster started for the run with `jobs` CPUs).
    Checks everything first, before any game: raises SimulationError (bad configuration, Ray missing) or
    BeltError (a belt file that is not valid) at the call, not at the first result.
    """
    problems = config.problems()
    if problems:
        raise SimulationError("; ".join(problems))
    if jobs < 1:
        raise SimulationError(f"--jobs must be at least 1, not {jobs}")
    try:
        source = belt_source(config.belt, config.difficulty, files=True)  # validates the belt once, here
    except ResolveError as unknown:
        raise SimulationError(str(unknown)) from None
    work = Work(config, source)
    if ray is not None:
        from .cluster import ray_results

        return ray_results(work, ray, jobs)
    return _play_all(work, jobs)


def _play_all(work: Work, jobs: int) -> Iterator[GameResult]:
    config = work.config
    if jobs == 1 or config.games * len(config.bots) == 1:
        for batch in batches(config, 1):
            yield from work.play_batch(batch)
        return
    yield from _pool_results(work, jobs)


_worker_work: Work | None = None
"""The work, in a worker process (a belt file is read once, in the parent)."""


def _init_worker(work: Work) -> None:
    global _worker_work
    _worker_work = work


def _run_batch(batch: Batch) -> list[GameResult]:
    assert _worker_work is not None, "_init_worker first"
    return _worker_work.play_batch(batch)


def _pool_results(work: Work, jobs: int) -> Iterator[GameResult]:
    # Forked workers where the platform has fork: they start at once with everything already imported (spawned
    # ones spend ~0.5 s importing, which cost --jobs 2 a tenth of its speed-up). Workers only play games and
    # never touch the console, so a progress bar's refresh thread in this process is no concern. When a worker
    # dies (killed, out of memory), the pool breaks: the batches not yet done go to a new pool, RETRIES times at
    # most.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    pending = batches(work.config, jobs)
    deaths = 0
    while pending:
        workers = min(jobs, len(pending))
        pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init_worker, initargs=(work,))
        try:
            futures = {pool.submit(_run_batch, batch): batch for batch in pending}
            pending = []
            for future in as_completed(futures):
                try:
                    results = future.result()
                except BrokenProcessPool:
                    pending.append(futures[future])
                    continue
                yield from results
        finally:  # on an interrupt or an early stop too: cancel what has not started, wait for nothing
            pool.shutdown(wait=False, cancel_futures=True)
        if pending:
            deaths += 1
            if deaths > RETRIES:
                games = sum(len(batch) for batch in pending)
                raise SimulationError(f"worker processes died {deaths} times; {games} games were not played")
            pending.sort(key=lambda batch: batch[0])


def run(config: SimConfig, jobs: int = 1, ray: str | None = None) -> list[GameResult]:
    """Every game of `config`, ordered by bot (as given) then game number."""
    order = {b: n for n, b in enumerate(config.bots)}
    return sorted(iter_results(config, jobs, ray), key=lambda r: (order[r.bot], r.game))


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
    """Games played to their end (won, lost or timed out); games that raised are counted in `errors`."""
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
    errors: int = 0
    """Games that raised (left out of every other figure)."""
    name: str = ""
    """The bot's own `name` (what tables show; `bot` is the spec it was asked for by)."""
    gathered_mean: float = 0.0
    """Units of material mined per game, on average."""


def summarize(results: list[GameResult]) -> list[BotSummary]:
    """One summary per bot, in the order the bots first appear."""
    by_bot: dict[str, list[GameResult]] = {}
    for r in results:
        by_bot.setdefault(r.bot, []).append(r)
    out = []
    for bot, every in by_bot.items():
        games = [g for g in every if g.outcome != "error"]
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
            win_rate=len(wins) / len(games) if games else 0.0,
            ci=wilson(len(wins), len(games)),
            rounds_median=statistics.median(wins) if wins else None,
            rounds_p90=percentile(wins, 90),
            deaths=dict(sorted(deaths.items())),
            units_lost=sum(g.units_lost for g in games),
            refused=sum(g.refused for g in games),
            decision_ms=1000 * sum(g.think_seconds for g in games) / decisions if decisions else 0.0,
            errors=len(every) - len(games),
            name=next((g.name for g in every if g.name), bot),
            gathered_mean=sum(g.gathered for g in games) / len(games) if games else 0.0,
        ))
    return out


# ----- files -----
CSV_FIELDS = ("bot", "name", "game", "seed", "outcome", "cause", "rounds", "actions", "gathered", "deaths_storm",
              "deaths_explosion", "units_lost", "refused", "decisions", "seconds", "error")
"""The columns of a results CSV file, one row per game."""


def write_results(path: Path, config: SimConfig | dict[str, Any], results: list[GameResult]) -> None:
    """Write the games (and, for JSON, the configuration and summaries) to a `.csv` or `.json` file.

    `config`: the simulation's, or a benchmark protocol's description (`Protocol.describe`)."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        with path.open("w", newline="", encoding="utf-8") as out:
            writer = csv.writer(out)
            writer.writerow(CSV_FIELDS)
            for r in results:
                writer.writerow([r.bot, r.name, r.game, r.seed, r.outcome, r.cause, r.rounds, r.actions, r.gathered,
                                 r.deaths.get("storm", 0), r.deaths.get("explosion", 0), r.units_lost, r.refused,
                                 r.decisions, f"{r.seconds:.4f}", r.error or ""])
    elif suffix == ".json":
        doc: dict[str, Any] = {
            "config": config if isinstance(config, dict) else asdict(config),
            "summary": [asdict(s) for s in summarize(results)],
            "games": [{k: v for k, v in asdict(r).items() if k != "think_seconds"} for r in results],  # time: `seconds`
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
    "Work",
    "iter_results",
    "play_game",
    "run",
    "summarize",
    "wilson",
    "write_results",
]
