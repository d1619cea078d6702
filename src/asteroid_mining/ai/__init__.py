"""Settler bots and their observation of a game (issue 6).

    from asteroid_mining.ai import Observation, make_bot
    bot = make_bot("planner", seed=1)
    action = bot.choose(Observation(game), game.turn)
    game.apply(action)

`Observation` is what players may know (R17), read lazily from the live game. The robots' own AI (R13) is a
rule and lives in `rules/robot_ai.py`. Self-play simulation: `ai.simulate` and `asteroid-mining simulate`.

The planner's modules (the build file `tools/builds.toml` names them) run compiled by mypyc when `make compiled`
has built them from their current sources, else as plain Python, like the rules engine; `BUILD` says which.
"""

from pathlib import Path as _Path

from ..rules._engine import choose_part as _choose_part

BUILD = _choose_part(__name__, _Path(__file__).parent, "build of the bots' search")
"""`compiled` when the planner's modules run compiled by mypyc (`make compiled`), else `pure`; decided here,
before any of them is imported (`rules/_engine.py`)."""

# the package's modules are imported once the build is chosen
from .bot import SettlerBot  # noqa: E402
from .observation import UNKNOWN, AsteroidView, GateView, Observation, SettlerView  # noqa: E402
from .registry import BOT_NAMES, ENTRY_POINT_GROUP, BotError, bot_names, make_bot  # noqa: E402

__all__ = [
    "BOT_NAMES",
    "BUILD",
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
