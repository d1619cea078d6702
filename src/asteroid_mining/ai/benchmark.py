"""The versioned benchmark: fixed seed sets per belt and difficulty, one leaderboard row per bot.

    asteroid-mining simulate --benchmark v1 --bot planner --jobs 2

A protocol names its cells (a belt, a difficulty level, the seeds of its games), its rules, settlers and round
cap; it never changes once published: a change is a new version. Games are deterministic, so a bot's row is
reproducible bit for bit from the version (and the bot's own code), whatever `--jobs` or the backend. The row:
games, wins, the win rate with its 95% Wilson interval, the median rounds to win, and the units mined per game.
Built-in bots' rows: docs/ai.md, *Benchmark*.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .simulate import GameResult, SimConfig, iter_results, wilson


@dataclass(frozen=True, slots=True)
class Cell:
    """One part of a protocol: `games` games on `belt` at `difficulty`, seeds `first` … `first + games - 1`."""

    belt: str
    difficulty: str | None
    first: int
    games: int


@dataclass(frozen=True, slots=True)
class Protocol:
    """A published benchmark: its cells and the rules every game is played with."""

    version: str
    cells: tuple[Cell, ...]
    rules: str = "classic"
    settlers: int = 3
    max_rounds: int = 300

    def configs(self, bot: str, games: int | None = None) -> list[SimConfig]:
        """The simulation of each cell for `bot` (the first `games` seeds of each cell, when given)."""
        return [SimConfig((bot,), min(c.games, games) if games else c.games, c.belt, self.rules, c.first,
                          self.settlers, self.max_rounds, c.difficulty) for c in self.cells]

    def describe(self) -> dict[str, Any]:
        """The protocol as JSON."""
        return {"version": self.version, "rules": self.rules, "settlers": self.settlers,
                "max_rounds": self.max_rounds,
                "cells": [{"belt": c.belt, "difficulty": c.difficulty, "seeds": [c.first, c.first + c.games - 1]}
                          for c in self.cells]}


PROTOCOLS: dict[str, Protocol] = {
    "v1": Protocol("v1", tuple(
        Cell(belt, level, 1_000_000 + 100_000 * b + 10_000 * d, 50)
        for b, belt in enumerate(("small", "standard"))
        for d, level in enumerate(("easy", "normal", "hard", "brutal"))
    )),
}
"""Every published protocol, by version. v1: `small` and `standard`, each at the four levels, 50 games per
cell (400 games), classic rules, 3 settlers, a cap of 300 rounds."""


@dataclass(frozen=True, slots=True)
class Row:
    """A bot's leaderboard row."""

    bot: str
    name: str
    version: str
    games: int
    wins: int
    win_rate: float
    ci: tuple[float, float]
    rounds_median: float | None
    """Rounds to win, won games only."""
    gathered_mean: float
    """Units mined per game."""
    errors: int

    def line(self) -> str:
        """The row as a line of a Markdown table (docs/ai.md's leaderboard)."""
        rounds = "–" if self.rounds_median is None else f"{self.rounds_median:g}"
        return (f"| {self.name} | {self.version} | {self.games} | {100 * self.win_rate:.1f}% "
                f"({100 * self.ci[0]:.1f}–{100 * self.ci[1]:.1f}%) | {rounds} | {self.gathered_mean:.2f} |")


HEADER = ("| bot | benchmark | games | win rate (95% CI) | rounds to win (median) | units mined per game |\n"
          "|---|---|---|---|---|---|")
"""The leaderboard's header, for `Row.line`."""


def results(protocol: Protocol, bot: str, jobs: int = 1, games: int | None = None,
            ray: str | None = None) -> Iterator[GameResult]:
    """Every game of `bot` in `protocol`, cell by cell (in any order within a cell when `jobs` > 1)."""
    for config in protocol.configs(bot, games):
        yield from iter_results(config, jobs, ray)


def row(protocol: Protocol, bot: str, games: list[GameResult]) -> Row:
    """The leaderboard row of `bot` from its games in `protocol`."""
    played = [g for g in games if g.outcome != "error"]
    wins = [g.rounds for g in played if g.outcome == "won"]
    return Row(
        bot=bot,
        name=next((g.name for g in games if g.name), bot),
        version=protocol.version,
        games=len(played),
        wins=len(wins),
        win_rate=len(wins) / len(played) if played else 0.0,
        ci=wilson(len(wins), len(played)),
        rounds_median=statistics.median(wins) if wins else None,
        gathered_mean=sum(g.gathered for g in played) / len(played) if played else 0.0,
        errors=len(games) - len(played),
    )


__all__ = ["HEADER", "PROTOCOLS", "Cell", "Protocol", "Row", "results", "row"]
