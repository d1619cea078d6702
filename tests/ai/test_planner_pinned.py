"""The planner's games pinned: the same seeds give the same actions and results.

A change that only makes the planner cheaper must not change what it decides. Each row plays a seeded game and
compares a digest of every action taken (and the result) with the one recorded when the row was added; a row
that changes means the planner now plays differently, which must be a deliberate change (and the row updated,
with the win rates of `benchmarks/bench_ai.py` checked again).
"""

from __future__ import annotations

import hashlib
import json

import pytest

from asteroid_mining.ai import Observation, make_bot
from asteroid_mining.maps.resolve import resolve
from asteroid_mining.rules import Game

PINNED: list[tuple[str, str, int, int, str, str, int, str]] = [
    # belt, rules, seed, settlers, who plays (planner alone, or with greedy on the last settler),
    # outcome, rounds, the first 16 hex digits of the actions' sha256
    ("small", "classic", 0, 3, "planner", "won", 39, "49eaf469aedcd814"),
    ("small", "classic", 1, 3, "planner", "won", 42, "dc8f34ad28fc56a2"),
    ("small", "classic", 2, 3, "planner", "won", 34, "e5f28784c89e8c58"),
    ("small", "classic", 3, 3, "planner", "won", 35, "06ddbae63e743748"),
    ("small", "classic", 4, 3, "planner", "won", 28, "ebc852c0780089da"),
    ("small", "classic", 5, 3, "planner", "won", 32, "6abc55857aed99b4"),
    ("small", "classic", 6, 3, "planner", "won", 33, "5f8fac4ca2e8c3e1"),
    ("small", "classic", 7, 3, "planner", "won", 52, "43335382d0baa1db"),
    ("small", "classic", 8, 3, "planner", "won", 31, "8253c52acdbce849"),
    ("small", "classic", 9, 3, "planner", "won", 31, "08d2ad51ad75193d"),
    ("small", "classic", 10, 3, "planner", "won", 39, "59ccd529b55c0031"),
    ("small", "classic", 11, 3, "planner", "won", 40, "0379032d17ec7b42"),
    ("small", "extended", 0, 3, "planner", "won", 39, "8dbeea031f469b02"),
    ("small", "extended", 1, 3, "planner", "won", 34, "13664feca1afdb10"),
    ("small", "extended", 2, 3, "planner", "won", 34, "94f0ee0b09c20ecf"),
    ("standard", "classic", 0, 3, "planner", "won", 33, "8f88841d855eecd6"),
    ("standard", "classic", 1, 3, "planner", "won", 31, "7acd4f8c4854c22e"),
    ("standard", "classic", 2, 3, "planner", "won", 37, "9e1340f83b479c52"),
    ("standard", "extended", 0, 3, "planner", "won", 33, "7fd3508fdd6b916a"),
    ("standard", "extended", 1, 3, "planner", "won", 27, "82c0a049344f1b34"),
    ("standard", "extended", 2, 3, "planner", "won", 38, "0fd3cb622c4163dd"),
    ("standard", "extended", 7, 5, "planner", "won", 25, "521ae1229fb31e6b"),
    ("small", "classic", 3, 4, "planner+greedy", "won", 38, "5551443804631e27"),
    ("standard", "extended", 4, 3, "planner+greedy", "won", 42, "3f6c6ba23d3b02c4"),
    ("large", "classic", 1, 3, "planner", "won", 27, "f5c56c125fd9809c"),
    ("large", "extended", 2, 4, "planner", "won", 22, "7d3ffee53a045a3b"),
]

MAX_ROUNDS = {"large": 40}


def played(belt: str, rules: str, seed: int, settlers: int, players: str) -> tuple[str, int, str]:
    """(status, round, digest of the actions) of one seeded game."""
    resolved = resolve(belt, seed)
    game = Game.new(resolved.belt, resolved.options_for(rules), seed=seed, settlers=settlers)
    planner = make_bot("planner", seed)
    other = make_bot("greedy", seed) if players == "planner+greedy" else planner
    last = list(game.settlers)[-1]
    digest = hashlib.sha256()
    cap = MAX_ROUNDS.get(belt, 300)
    while game.status == "running" and game.round <= cap:
        settler = game.turn
        assert settler is not None
        bot = other if settler == last else planner
        action = bot.choose(Observation(game), settler)
        assert game.check(action) is None
        digest.update(json.dumps(action.to_json(), sort_keys=True).encode())
        game.apply(action)
    return game.status, game.round, digest.hexdigest()[:16]


@pytest.mark.parametrize(("belt", "rules", "seed", "settlers", "players", "status", "rounds", "digest"), PINNED)
def test_the_planner_plays_the_pinned_game(belt: str, rules: str, seed: int, settlers: int, players: str,
                                           status: str, rounds: int, digest: str) -> None:
    assert played(belt, rules, seed, settlers, players) == (status, rounds, digest)
