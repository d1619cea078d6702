"""The self-play loop (`ai.playout.play_out`): it counts what the game's events say, replaces a refused action by a
wait, and stops at the end of the game or the round cap."""

from __future__ import annotations

from collections import Counter

import pytest

from asteroid_mining.ai.observation import Observation
from asteroid_mining.ai.playout import play_out
from asteroid_mining.ai.random_bot import RandomBot
from asteroid_mining.maps.resolve import resolve
from asteroid_mining.rules import Action, Drill, Game, Refused, Wait
from asteroid_mining.rules.events import Died, Exploded, Sublimated


def new_game(seed: int, rules: str) -> Game:
    resolved = resolve("small", seed=seed)
    return Game.new(resolved.belt, resolved.options_for(rules), seed=seed, settlers=3)


def counted_by_hand(game: Game, bot: RandomBot, max_rounds: int) -> tuple[dict[str, int], int, int, int]:
    """The loop written plainly, telling the events apart by isinstance."""
    deaths: Counter[str] = Counter()
    lost = refused = decisions = 0
    obs = Observation(game)
    while game.status == "running" and game.round <= max_rounds and game.turn is not None:
        settler = game.turn
        decisions += 1
        try:
            events = game.apply(bot.choose(obs, settler))
        except Refused:
            refused += 1
            events = game.apply(Wait(settler))
        for event in events:
            if isinstance(event, Died):
                deaths[event.cause] += 1
            elif isinstance(event, (Sublimated, Exploded)):
                lost += 1
    return dict(deaths), lost, refused, decisions


@pytest.mark.parametrize("rules", ["classic", "extended"])
def test_the_tally_is_what_the_events_say(rules: str) -> None:
    for seed in range(12):
        game, twin = new_game(seed, rules), new_game(seed, rules)
        tally = play_out(game, RandomBot(seed), 300)
        assert (tally.deaths, tally.lost, tally.refused, tally.decisions) == counted_by_hand(twin, RandomBot(seed), 300)
        assert game.history == twin.history
        assert tally.thinking >= 0.0


class Stubborn:
    """Drills wherever it is, drilled through or not: refused on the start, a shelter (mantle 0) from the first
    round."""

    name = "stubborn"

    def choose(self, obs: Observation, settler: str) -> Action:
        return Drill(settler)


def test_a_refused_action_is_a_counted_wait_and_the_cap_ends_the_game() -> None:
    game = new_game(3, "classic")
    tally = play_out(game, Stubborn(), 4)
    assert tally.refused == tally.decisions == 3 * 4  # three settlers waiting in the shelter for four rounds
    assert (game.status, game.round) == ("running", 5)
    waits = sum(1 for entry in game.history if entry.get("type") == "wait")
    assert waits == tally.refused
