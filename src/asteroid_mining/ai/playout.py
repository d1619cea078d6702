"""The loop of one self-play game: each settler's decision, applied, and what the events say counted.

Compiled with the bots' search (`tools/builds.toml`): a random bot's game costs little more than this loop
and the engine's own work, a few hundred decisions a game, so the loop runs as native code rather than
interpreted. `ai.simulate.play_game` makes the game and the bot and turns the tally into its result.
"""

from __future__ import annotations

import time

from ..rules import Game, Refused, Wait
from ..rules.events import Died, Exploded, Sublimated
from .bot import SettlerBot
from .observation import Observation


class Tally:
    """What one game's loop counted."""

    def __init__(self, deaths: dict[str, int], lost: int, refused: int, decisions: int, thinking: float) -> None:
        self.deaths = deaths
        """Settlers dead, by cause (`storm`, `explosion`), in the order the causes first came."""
        self.lost = lost
        """Units of material lost to reactions: ice sublimated, uranium exploded (R6)."""
        self.refused = refused
        """Actions the bot chose that the rules refused (each replaced by `wait`)."""
        self.decisions = decisions
        self.thinking = thinking
        """Seconds the bot spent choosing (`time.perf_counter`)."""


def play_out(game: Game, bot: SettlerBot, max_rounds: int) -> Tally:
    """Let `bot` play every settler of `game` (strict turns) until the game ends or passes round `max_rounds`.

    A refused action is replaced by `wait` and counted. One observation serves every decision (a live view).
    """
    obs = Observation(game)
    choose, apply, clock = bot.choose, game.apply, time.perf_counter
    # the event classes as locals (compiled, a module's global is a dictionary look-up at each use), compared by
    # identity: the engine's events are records of their exact classes, and `isinstance` on classes of another
    # build costs a generic call each
    died, sublimated, exploded = Died, Sublimated, Exploded
    deaths: dict[str, int] = {}
    lost = refused = decisions = 0
    thinking = 0.0
    while game.status == "running" and game.round <= max_rounds:
        settler = game.turn
        if settler is None:  # cannot happen in strict turns while running; be safe
            break
        start = clock()
        action = choose(obs, settler)
        thinking += clock() - start
        decisions += 1
        try:
            events = apply(action)
        except Refused:
            refused += 1
            events = apply(Wait(settler))
        for event in events:
            kind = type(event)
            if kind is died:
                assert isinstance(event, Died)
                deaths[event.cause] = deaths.get(event.cause, 0) + 1
            elif kind is sublimated or kind is exploded:
                lost += 1
    return Tally(deaths, lost, refused, decisions, thinking)
