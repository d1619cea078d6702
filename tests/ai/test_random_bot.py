"""The random bot: `random.Random(seed).choice` of the legal actions, and whole self-play games pinned."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from asteroid_mining.ai.observation import Observation
from asteroid_mining.ai.random_bot import RandomBot
from asteroid_mining.ai.simulate import SimConfig, run
from asteroid_mining.maps.resolve import resolve
from asteroid_mining.rules import Action, Game, Wait


class Offers(Observation):
    """An observation whose settler may take whatever list of actions a test gives it next."""

    __slots__ = ("offers",)

    def __init__(self, game: Game, offers: list[list[Action]]) -> None:
        super().__init__(game)
        self.offers = offers

    def legal_actions(self, settler: str) -> list[Action]:
        return self.offers.pop(0)


@pytest.mark.parametrize("seed", [0, 1, 7, 2**31 - 1])
def test_the_bot_draws_as_random_choice_does(seed: int) -> None:
    game = Game.new(resolve("small", seed=0).belt, seed=0)
    # every count from 1 to 70 (powers of two and their neighbours are where draws get rejected), twice
    counts = [*range(1, 71), *range(70, 0, -1)]
    lists: list[list[Action]] = [[Wait(f"s{i}") for i in range(n)] for n in counts]
    bot = RandomBot(seed)
    chosen = [bot.choose(Offers(game, [actions]), "s1") for actions in lists]
    reference = random.Random(seed)
    assert chosen == [reference.choice(actions) for actions in lists]


def test_no_legal_action_is_a_wait_and_draws_nothing() -> None:
    game = Game.new(resolve("small", seed=0).belt, seed=0)
    bot = RandomBot(3)
    assert bot.choose(Offers(game, [[]]), "s2") == Wait("s2")
    actions: list[Action] = [Wait(f"s{i}") for i in range(9)]
    assert bot.choose(Offers(game, [actions]), "s1") == random.Random(3).choice(actions)


def test_random_self_play_is_pinned() -> None:
    """The same seeds play the same games as ever: belts, the engine's dice and the bot's choices together."""
    results = run(SimConfig(bots=("random",), games=24, belt="small", seed=0))
    rows = [[r.game, r.seed, r.outcome, r.rounds, sorted(r.deaths.items()), r.units_lost, r.refused, r.decisions]
            for r in results]
    assert rows[0] == [0, 0, "lost", 81, [("explosion", 2), ("storm", 1)], 3, 0, 198]
    assert hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16] == "68508b5ae2f50ef3"
