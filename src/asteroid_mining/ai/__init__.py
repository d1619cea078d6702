"""Settler bots and their observation of a game (issue 6).

    from asteroid_mining.ai import Observation, make_bot
    bot = make_bot("planner", seed=1)
    action = bot.choose(Observation(game), game.turn)
    game.apply(action)

`Observation` is what players may know (R17), read lazily from the live game. The robots' own AI (R13) is a
rule and lives in `rules/robot_ai.py`. Self-play simulation: `ai.simulate` and `asteroid-mining simulate`.
"""

from .bot import SettlerBot
from .observation import UNKNOWN, AsteroidView, GateView, Observation, SettlerView
from .registry import BOT_NAMES, ENTRY_POINT_GROUP, BotError, bot_names, make_bot

__all__ = [
    "BOT_NAMES",
    "ENTRY_POINT_GROUP",
    "UNKNOWN",
    "AsteroidView",
    "BotError",
    "GateView",
    "Observation",
    "SettlerBot",
    "SettlerView",
    "bot_names",
    "make_bot",
]
