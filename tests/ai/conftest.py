"""Shared helpers for the AI tests: small games and a loop that lets bots play them."""

from __future__ import annotations

import importlib.util

import pytest

from asteroid_mining.ai import Observation, SettlerBot
from asteroid_mining.maps.generator import generate_belt
from asteroid_mining.rules import CLASSIC, Game, Options

LEARN_EXTRA = all(importlib.util.find_spec(name) is not None for name in ("torch", "sb3_contrib"))
"""Whether the optional learn extra is installed (the suite never installs it: it would download torch)."""

# a whole training run needs torch: its file is collected only where the extra is, and the header says so
# otherwise (rather than a skipped test in every report)
collect_ignore = [] if LEARN_EXTRA else ["test_training_run.py"]


def pytest_report_header(config: pytest.Config) -> str:
    """Say whether the training run is in this run."""
    if LEARN_EXTRA:
        return "learn extra: installed (tests/ai/test_training_run.py runs)"
    return (
        "learn extra: not installed (tests/ai/test_training_run.py not collected; pip install asteroid-mining[learn])"
    )


def small_game(seed: int = 0, preset: str = "small", options: Options = CLASSIC, settlers: int = 3) -> Game:
    """A real game on a generated belt."""
    return Game.new(generate_belt(preset, seed=seed), options, seed=seed, settlers=settlers)


def play(game: Game, bot: SettlerBot, max_rounds: int = 300) -> Game:
    """Let `bot` play every settler until the game ends or the round cap; asserts every action is legal."""
    while game.status == "running" and game.round <= max_rounds:
        settler = game.turn
        assert settler is not None
        action = bot.choose(Observation(game), settler)
        assert game.check(action) is None, (action, game.check(action))
        game.apply(action)
    return game
