"""The rules of Asteroid Mining (RULES.md): a deterministic engine. A game's outcome depends on its inputs and its
seed alone: no clock, no I/O while playing, nothing shared between games but caches of text.

Everything other layers need is exported here; the records (`Asteroid`, `Settler`, `Robot`, `Ufo`, `Gate`,
`Forecast`) are the engine's own and are for reading only. Refusals are codes and params: the engine words none
(`asteroid_mining.texts` does, from the translation files).

What is here for speed and not for the rules is kept apart: the JSON text the server sends is written in one
module (`json_text`, whose caches of recurring pieces are bounded and hold no game's state but the text of an
asteroid's moves, which the asteroid's link methods forget), and the garbage collector is left to the callers
that load in bulk (`asteroid_mining.collector`). The same sources run compiled by mypyc when `make compiled` has
built them, else as plain Python (`_engine`, which reads the build's record and the environment once, at
import); `ENGINE` says which.
"""

from ._engine import choose as _choose

ENGINE = _choose()
"""`compiled` when the modules compiled by mypyc are in use, else `pure`."""

# the engine is chosen before any of its modules is imported
from .actions import (
    ACTION_SPECS,
    ACTION_TYPES,
    Action,
    ActionSpec,
    BuildGates,
    BuildRobot,
    Deposit,
    Drill,
    FieldSpec,
    Mine,
    Move,
    Place,
    Wait,
    action_from_json,
)
from .belt import AsteroidSpec, Belt, GatePairSpec
from .choices import Choice, Choices, StormOutlook
from .dangers import Danger, Reaction, far_through, near_round, rounds_until_near
from .errors import GameFormatError, Refusal, Refused, RulesError, SetupError
from .events import Event
from .game import Game
from .ids import id_problem
from .materials import CARGO_LIMIT, CORES, GATE_LIMIT, HOLLOW, KINDS, MATERIALS, WIN_TARGET, Material
from .options import CLASSIC, EXTENDED, OPTION_KEYS, PRESETS, OptionError, Options, preset
from .orbit import Orbit
from .refusals import REFUSAL_CODES, REFUSAL_KINDS, RefusalKind
from .state import Asteroid, Forecast, Gate, Robot, Settler, Ufo
from .view import UNKNOWN, sun_state

__all__ = [
    "ACTION_SPECS", "ACTION_TYPES", "CARGO_LIMIT", "CLASSIC", "CORES", "ENGINE", "EXTENDED", "GATE_LIMIT", "HOLLOW",
    "KINDS", "MATERIALS", "OPTION_KEYS", "PRESETS", "REFUSAL_CODES", "REFUSAL_KINDS", "UNKNOWN", "WIN_TARGET", "Action",
    "ActionSpec", "Asteroid", "AsteroidSpec", "Belt", "BuildGates", "BuildRobot", "Choice", "Choices", "Danger",
    "Deposit", "Drill", "Event", "FieldSpec", "Forecast", "Game", "GameFormatError", "Gate", "GatePairSpec",
    "Material", "Mine", "Move", "OptionError", "Options", "Orbit", "Place", "Reaction", "Refusal", "RefusalKind",
    "Refused", "Robot", "RulesError", "Settler", "SetupError", "StormOutlook", "Ufo", "Wait", "action_from_json",
    "far_through", "id_problem", "near_round", "preset", "rounds_until_near", "sun_state",
]
