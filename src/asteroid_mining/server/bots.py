"""Bot seats: settlers played by the server with `asteroid_mining.ai` (imported lazily, when it exists).

    player = make_player("planner", seed)      # None when the ai package is missing
    action = player(game, "s2")                # what the bot does now (a Wait when it fails)
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import Any

from ..rules import Action, Game, Wait

log = logging.getLogger(__name__)

BotPlayer = Callable[[Game, str], Action]
"""Chooses the action of one settler in a game."""


class BotUnavailable(Exception):
    """Bots cannot be played: the ai package is missing, or it has no bot of that name."""


def _ai() -> Any:
    try:
        return importlib.import_module("asteroid_mining.ai")
    except ImportError as missing:
        raise BotUnavailable(f"bots are not available on this server ({missing})") from None


def available_bots() -> tuple[str, ...]:
    """The names of the bots this server can seat (none when the ai package is missing)."""
    try:
        names: tuple[str, ...] = _ai().bot_names()
    except BotUnavailable:
        return ()
    return names


def make_player(name: str, seed: int) -> BotPlayer:
    """A player for bot `name`; raises BotUnavailable (with a sentence) when it cannot be made.

    The name is looked up in the bot registry only (built-in and installed bots); a file or module named in a
    request is never imported.
    """
    ai = _ai()
    if name not in ai.bot_names():
        raise BotUnavailable(f"unknown bot {name!r}: this server has {', '.join(ai.bot_names())}")
    try:
        bot = ai.make_bot(name, seed)
    except (ValueError, KeyError) as unknown:
        raise BotUnavailable(str(unknown).strip("'\"")) from None

    def play(game: Game, settler: str) -> Action:
        try:
            action: Action = bot.choose(ai.Observation(game), settler)
        except Exception:  # a bot's bug must not stop the game
            log.exception("bot %s failed to choose for %s", name, settler)
            return Wait(settler)
        if game.check(action) is not None:
            log.warning("bot %s chose a refused action %s; %s waits", name, action, settler)
            return Wait(settler)
        return action

    return play
