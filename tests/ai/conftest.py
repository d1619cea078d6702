"""Shared helpers for the AI tests: small games and a loop that lets bots play them."""

from __future__ import annotations

from asteroid_mining.ai import Observation, SettlerBot
from asteroid_mining.maps.generator import generate_belt
from asteroid_mining.rules import CLASSIC, Game, Options


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
