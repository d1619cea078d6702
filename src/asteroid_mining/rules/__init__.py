"""The rules of Asteroid Mining (RULES.md): a pure, deterministic engine. No I/O, clock or global state.

The same sources run compiled by mypyc when `make compiled` has built them, else as plain Python (`_engine`);
`ENGINE` says which.
"""

from ._engine import choose as _choose

ENGINE = _choose()
"""`compiled` when the modules compiled by mypyc are in use, else `pure`."""

# the engine is chosen before any of its modules is imported
from .actions import (
    ACTION_TYPES,
    Action,
    BuildGates,
    BuildRobot,
    Deposit,
    Drill,
    Mine,
    Move,
    Place,
    Wait,
    action_from_json,
)
from .belt import AsteroidSpec, Belt, GatePairSpec
from .errors import GameFormatError, Refusal, Refused, RulesError, SetupError
from .events import Event
from .game import Game
from .ids import id_problem
from .materials import CARGO_LIMIT, CORES, GATE_LIMIT, HOLLOW, KINDS, MATERIALS, WIN_TARGET, Material
from .options import CLASSIC, EXTENDED, OPTION_KEYS, PRESETS, OptionError, Options, preset
from .orbit import Orbit
from .refusals import REFUSAL_CODES
from .view import UNKNOWN

__all__ = [
    "ACTION_TYPES", "CARGO_LIMIT", "CLASSIC", "CORES", "ENGINE", "EXTENDED", "GATE_LIMIT", "HOLLOW", "KINDS",
    "MATERIALS", "OPTION_KEYS", "PRESETS", "REFUSAL_CODES", "UNKNOWN", "WIN_TARGET", "Action", "AsteroidSpec", "Belt",
    "BuildGates", "BuildRobot", "Deposit", "Drill", "Event", "Game", "GameFormatError", "GatePairSpec", "Material",
    "Mine", "Move", "OptionError", "Options", "Orbit", "Place", "Refusal", "Refused", "RulesError", "SetupError",
    "Wait", "action_from_json", "id_problem", "preset",
]
