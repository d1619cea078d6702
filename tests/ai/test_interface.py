"""The bot interface: make_bot, BOT_NAMES, the SettlerBot protocol, legality of every bot's actions."""

from __future__ import annotations

import pytest

from asteroid_mining.ai import BOT_NAMES, Observation, SettlerBot, make_bot
from asteroid_mining.rules import Wait

from .conftest import play, small_game


def test_bot_names() -> None:
    assert set(BOT_NAMES) >= {"random", "greedy", "planner"}


@pytest.mark.parametrize("name", BOT_NAMES)
def test_make_bot_is_a_settler_bot(name: str) -> None:
    bot = make_bot(name, seed=3)
    assert isinstance(bot, SettlerBot)
    assert bot.name == name


def test_unknown_bot_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="known bots are random, greedy, planner"):
        make_bot("chess")


@pytest.mark.parametrize("name", BOT_NAMES)
def test_every_action_is_legal(name: str) -> None:
    for seed in range(2):
        play(small_game(seed, preset="tutorial"), make_bot(name, seed), max_rounds=60)


@pytest.mark.parametrize("name", BOT_NAMES)
def test_seeded_bots_are_reproducible(name: str) -> None:
    first = play(small_game(5, preset="tutorial"), make_bot(name, 1), max_rounds=40)
    second = play(small_game(5, preset="tutorial"), make_bot(name, 1), max_rounds=40)
    assert first.history == second.history


@pytest.mark.parametrize("name", BOT_NAMES)
def test_choose_for_a_dead_settler_waits(name: str) -> None:
    game = small_game(1, preset="tutorial")
    exposed = next(a for a in game.asteroids.values() if a.exists and not a.shelter and not a.settlers)
    game.add_settler("doomed", exposed.id)
    game.storm([exposed.id])  # the others, on the start, live on: the game goes on
    assert not game.settlers["doomed"].alive and game.status == "running"
    assert game.legal_actions("doomed") == []
    assert make_bot(name).choose(Observation(game), "doomed") == Wait("doomed")
