"""`asteroid-mining simulate`: bots play many games; a progress bar, then a table of results per bot (and a
comparison table of every bot, when there are several and the terminal is wide enough).

Mounted by the main command line (`app.command("simulate", cls=SimulateCommand)(simulate)`). Bad input (an
unknown bot, belt or rules, a belt file that is not valid, `--games 0`) is one clear message on standard error
and exit status 2.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from typer.core import TyperCommand

from ..maps import BeltError
from .cluster import LOCAL
from .simulate import BotSummary, GameResult, SimConfig, SimulationError, iter_results, summarize, write_results

if TYPE_CHECKING:
    from rich.table import Table

COMPARISON_WIDTH = 120
"""Terminal columns needed for the comparison table of several bots (it is left out on narrower ones)."""

PROG = "asteroid-mining simulate"


class SimulateCommand(TyperCommand):
    """The `simulate` command, whose `--ray` takes an optional value (`--ray` alone: a local cluster).

    Typer's parser has no option with an optional value, so a `--ray` with no address after it (the last
    argument, or followed by another option) is given the address `local` before parsing.
    """

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Parse `args`, with `--ray` alone read as `--ray local`."""
        out: list[str] = []
        for i, arg in enumerate(args):
            out.append(arg)
            if arg == "--ray" and (i + 1 == len(args) or args[i + 1].startswith("-")):
                out.append(LOCAL)
        result: list[str] = super().parse_args(ctx, out)
        return result


def _fail(message: str) -> NoReturn:
    typer.echo(f"{PROG}: error: {message}", err=True)
    raise typer.Exit(2)


def simulate(
    games: Annotated[
        int | None, typer.Option("--games", "-n", help="Games per bot (default 100); with --benchmark, the first "
                                 "GAMES seeds of each of its cells.")
    ] = None,
    belt: Annotated[
        str, typer.Option("--belt", help="A shipped belt's name (tutorial, puzzle-gates, puzzle-storm), a generator "
                          "preset (small, standard, large, huge) or a belt file.")
    ] = "standard",
    difficulty: Annotated[
        str | None, typer.Option("--difficulty", "-d", help="easy, normal, hard or brutal (default: the belt as made).")
    ] = None,
    rules: Annotated[str, typer.Option("--rules", help="classic or extended.")] = "classic",
    bot: Annotated[
        list[str] | None,
        typer.Option("--bot", "-b", help="A bot to play: random, greedy, planner, learned, an installed bot, or "
                     "path/to/file.py:ClassName; repeat to compare bots.", show_default="planner"),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Game i uses seed SEED+i for its belt and its dice.")] = 0,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", help="Processes to play games in parallel (default 1); with --ray "
                                 "and no address, the CPUs of the local cluster (default: all of them).")
    ] = None,
    ray: Annotated[
        str | None, typer.Option("--ray", metavar="[ADDRESS]",
                                 help="Play on a Ray cluster at ADDRESS (host:port, ray://host:port), or, with no "
                                 "address, on the one running on this machine (RAY_ADDRESS, or `ray start`'s), "
                                 "else on one started for the run.")
    ] = None,
    ray_address: Annotated[
        str | None, typer.Option("--ray-address", metavar="ADDRESS",
                                 help="Join the Ray cluster at ADDRESS (host:port, ray://host:port, or auto: the one "
                                 "`ray start` runs on this machine); the same as --ray ADDRESS.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write every game's result to a .csv or .json file.")
    ] = None,
    settlers: Annotated[int, typer.Option("--settlers", help="Settlers in each game (one team).")] = 3,
    max_rounds: Annotated[
        int, typer.Option("--max-rounds", help="Round cap: a game still running then is a loss by timeout.")
    ] = 300,
    record: Annotated[
        Path | None, typer.Option("--record", metavar="DIR", help="Write every game's steps (observations, "
                                  "actions, rewards) to DIR as Parquet files, for offline learning (docs/ai.md).")
    ] = None,
    benchmark: Annotated[
        str | None, typer.Option("--benchmark", metavar="VERSION", help="Play the benchmark protocol VERSION (v1): "
                                 "its belts, levels, seeds, rules and cap; print a leaderboard row per bot.")
    ] = None,
) -> None:
    """Let bots play many games and compare them: win rate (95% Wilson interval), rounds to win, deaths.

    Reproducible from --seed whatever --jobs. Exit status 0, or 2 on bad input.
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    if ray_address is not None:
        if ray is not None and ray != ray_address:
            _fail(f"--ray {ray} and --ray-address {ray_address}: give the cluster's address once")
        if not ray_address.strip() or ray_address == LOCAL:
            _fail("--ray-address needs a cluster's address (host:port, ray://host:port or auto); --ray alone "
                  "starts or joins one on this machine")
        ray = ray_address
    if benchmark is not None:
        if (belt, difficulty, rules, seed, settlers, max_rounds, record) != ("standard", None, "classic", 0, 3, 300,
                                                                              None):
            _fail("--benchmark fixes the belts, levels, seeds, rules, settlers and round cap: leave out --belt, "
                  "--difficulty, --rules, --seed, --settlers, --max-rounds and --record")
        _benchmark(benchmark, tuple(bot or ["planner"]), games, jobs, ray, out)
        return
    if record is not None and not record.is_dir():
        _fail(f"--record {record}: no such folder")
    config = SimConfig(tuple(bot or ["planner"]), 100 if games is None else games, belt, rules, seed, settlers,
                       max_rounds, difficulty, str(record) if record is not None else None)
    if out is not None and out.suffix.lower() not in (".csv", ".json"):
        _fail(f"--out must end in .csv or .json, not {out.name!r}")
    if out is not None and not out.resolve().parent.is_dir():
        _fail(f"cannot write {out}: no such folder {out.parent}")
    if jobs is None:
        jobs = (os.cpu_count() or 1) if ray == LOCAL else 1
    problems = config.problems() + ([f"--jobs must be at least 1, not {jobs}"] if jobs < 1 else [])
    if problems:
        _fail("; ".join(problems))
    results: list[GameResult] = []
    err = Console(stderr=True)
    started = time.perf_counter()
    try:
        stream = iter_results(config, jobs, ray)
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err, transient=False) as progress:
            total = len(config.bots) * config.games
            task = progress.add_task(f"{total} games", total=total)
            for result in stream:
                results.append(result)
                progress.advance(task)
    except BeltError as wrong:
        for line in wrong.lines(prefix=belt):
            typer.echo(line, err=True)
        _fail(f"{belt} is not a valid belt")
    except SimulationError as wrong:
        _fail(str(wrong))
    elapsed = time.perf_counter() - started
    order = {b: n for n, b in enumerate(config.bots)}
    results.sort(key=lambda r: (order[r.bot], r.game))
    console = Console()
    if not console.is_terminal:
        console = Console(width=140)  # a file or pipe: room for the comparison table
    summaries = summarize(results)
    level = f", {config.difficulty}" if config.difficulty else ""
    console.print(f"{config.games} games per bot on {config.belt} ({config.rules} rules{level}, {config.settlers} "
                  f"settlers, "
                  f"seeds {config.seed}…{config.seed + config.games - 1}, cap {config.max_rounds} rounds)")
    for summary in summaries:
        console.print(_bot_table(summary))
    if len(summaries) > 1 and console.width >= COMPARISON_WIDTH:
        console.print(_table(summaries))
    for failed in (r for r in results if r.outcome == "error"):
        console.print(f"game {failed.game} of {failed.bot} (seed {failed.seed}) raised {failed.error}")
    where = f"Ray at {ray}" if ray else f"{jobs} process{'es' if jobs != 1 else ''}"
    console.print(f"{len(results)} games in {elapsed:.1f} s ({len(results) / elapsed:.1f} games/s, {where})")
    if out is not None:
        try:
            write_results(out, config, results)
        except OSError as wrong:
            _fail(f"cannot write {out}: {wrong.strerror or wrong}")
        console.print(f"results written to {out}")
    sys.stdout.flush()


def _bot_table(s: BotSummary) -> Table:
    """The figures of one bot, one a line (fits any terminal)."""
    from rich.table import Table

    table = Table(title=s.name or s.bot, title_justify="left", show_header=False)
    table.add_column("figure")
    table.add_column("value")
    table.add_row("win rate", f"{100 * s.win_rate:.1f}%  (95% CI {100 * s.ci[0]:.1f}–{100 * s.ci[1]:.1f}%)")
    table.add_row("won / lost / timeout", f"{s.wins} / {s.losses} / {s.timeouts}  of {s.games}")
    rounds = "–" if s.rounds_median is None else f"median {s.rounds_median:g}, p90 {s.rounds_p90:g}"
    table.add_row("rounds to win", rounds)
    table.add_row("deaths by cause", f"storm {s.deaths.get('storm', 0)}, explosion {s.deaths.get('explosion', 0)}")
    table.add_row("units mined per game", f"{s.gathered_mean:.2f}")
    table.add_row("units lost to reactions", str(s.units_lost))
    table.add_row("time per decision", f"{s.decision_ms:.2f} ms")
    if s.refused:
        table.add_row("refused actions", f"{s.refused} (a bot bug)")
    if s.errors:
        table.add_row("games that raised", f"{s.errors} (a bot bug; listed below)")
    return table


def _table(summaries: list[BotSummary]) -> Table:
    """The comparison table: one row per bot."""
    from rich.table import Table

    table = Table(title="comparison")
    for name in ("bot", "games", "win rate", "95% CI", "rounds to win\nmedian", "rounds to win\np90",
                 "deaths\nstorm", "deaths\nexplosion", "timeouts", "units lost\nto reactions", "ms per\ndecision"):
        table.add_column(name, justify="left" if name == "bot" else "right")
    for s in summaries:
        table.add_row(
            s.name or s.bot, str(s.games), f"{100 * s.win_rate:.1f}%", f"{100 * s.ci[0]:.1f}–{100 * s.ci[1]:.1f}%",
            "–" if s.rounds_median is None else f"{s.rounds_median:g}",
            "–" if s.rounds_p90 is None else f"{s.rounds_p90:g}",
            str(s.deaths.get("storm", 0)), str(s.deaths.get("explosion", 0)), str(s.timeouts), str(s.units_lost),
            f"{s.decision_ms:.2f}",
        )
    return table


def _benchmark(version: str, bots: tuple[str, ...], games: int | None, jobs: int | None, ray: str | None,
               out: Path | None) -> None:
    """`simulate --benchmark VERSION`: every bot through the protocol, then the leaderboard rows."""
    from rich.console import Console

    from .benchmark import HEADER, PROTOCOLS, results, row

    protocol = PROTOCOLS.get(version)
    if protocol is None:
        _fail(f"unknown benchmark {version!r}: use {', '.join(PROTOCOLS)}")
    if games is not None and games < 1:
        _fail(f"--games must be at least 1, not {games}")
    if out is not None and out.suffix.lower() not in (".csv", ".json"):
        _fail(f"--out must end in .csv or .json, not {out.name!r}")
    if jobs is None:
        jobs = (os.cpu_count() or 1) if ray == LOCAL else 1
    if jobs < 1:
        _fail(f"--jobs must be at least 1, not {jobs}")
    every: list[GameResult] = []
    rows = []
    err = Console(stderr=True)
    started = time.perf_counter()
    try:
        for name in bots:
            played = sorted(results(protocol, name, jobs, games, ray), key=lambda r: (r.seed, r.game))
            err.print(f"{name}: {len(played)} games")
            every += played
            rows.append(row(protocol, name, played))
    except BeltError as wrong:
        _fail(str(wrong))
    except SimulationError as wrong:
        _fail(str(wrong))
    elapsed = time.perf_counter() - started
    cut = f", the first {games} seed{'s' if games != 1 else ''} of each cell" if games else ""
    typer.echo(f"benchmark {protocol.version} ({len(protocol.cells)} cells{cut}; {protocol.rules} rules, "
               f"{protocol.settlers} settlers, cap {protocol.max_rounds} rounds)")
    typer.echo(HEADER)
    for r in rows:
        typer.echo(r.line())
    for failed in (r for r in every if r.outcome == "error"):
        typer.echo(f"game {failed.game} of {failed.bot} (seed {failed.seed}) raised {failed.error}")
    typer.echo(f"{len(every)} games in {elapsed:.1f} s", err=True)
    if out is not None:
        try:
            write_results(out, protocol.describe(), every)
        except OSError as wrong:
            _fail(f"cannot write {out}: {wrong.strerror or wrong}")
