"""The bots by name: the built-in ones, those installed packages register, and (command line only) a file's class.

    make_bot("planner", seed)                       # a built-in bot (random, greedy, planner, learned)
    make_bot("mybot", seed)                         # a bot an installed package registers (entry point)
    make_bot("bots/mine.py:MyBot", seed, files=True)  # a class in a file (simulate --bot only)

An installed package registers bots under the entry-point group `asteroid_mining.bots`, each entry point naming
a *factory*: a callable taking the seed (a class whose `__init__(self, seed=0)` does) and returning a
`SettlerBot`. In `pyproject.toml`:

    [project.entry-points."asteroid_mining.bots"]
    mybot = "mypackage.bots:MyBot"

Names are looked up in the registry only; a module is imported only when an installed package registered it, or
(with `files=True`, which the server never passes) when the caller names a file.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Callable
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

from .bot import SettlerBot
from .greedy import GreedyBot
from .planner import PlannerBot
from .random_bot import RandomBot

ENTRY_POINT_GROUP = "asteroid_mining.bots"
"""The entry-point group installed packages register their bots under."""

BotFactory = Callable[[int], SettlerBot]
"""Makes a bot from a seed."""

LEARNED_MODULE = "asteroid_mining.rl.learned"
"""Where the `learned` bot lives: `rl/` sits above `ai/` (it encodes observations for learning), so the bot is
imported by name, and only when one is made (docs/architecture.md)."""


def learned_bot(seed: int = 0) -> SettlerBot:
    """`learned`: the shipped trained policy, played with numpy alone (`rl.learned.LearnedBot`)."""
    bot: SettlerBot = importlib.import_module(LEARNED_MODULE).LearnedBot(seed)
    return bot


_BUILT_IN: dict[str, BotFactory] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "planner": PlannerBot,
    "learned": learned_bot,
}

BOT_NAMES: tuple[str, ...] = tuple(_BUILT_IN)
"""The built-in bots: the three hand-written ones weakest first, then the learned one (`bot_names()` adds the
installed ones)."""

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,31}$")
"""What an installed bot may be called (lower case, as short as a lobby's list allows)."""
_FILE_SPEC = re.compile(r"^(?P<path>.+\.py):(?P<cls>[A-Za-z_][A-Za-z0-9_]*)$")


class BotError(ValueError):
    """A bot that cannot be made: an unknown name, a file or class that is not there (the message says which)."""


@cache
def installed_bots() -> dict[str, EntryPoint]:
    """The bots installed packages register, by name (a built-in name cannot be taken; bad names are skipped)."""
    found: dict[str, EntryPoint] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        if point.name in _BUILT_IN or not _NAME.match(point.name) or point.name in found:
            continue
        found[point.name] = point
    return found


def bot_names() -> tuple[str, ...]:
    """Every bot `make_bot` knows by name: the built-in ones, then the installed ones (sorted)."""
    return BOT_NAMES + tuple(sorted(installed_bots()))


def is_file_spec(spec: str) -> bool:
    """Whether `spec` names a class in a file (`path/to/file.py:ClassName`)."""
    return _FILE_SPEC.match(spec) is not None


def bot_factory(spec: str, files: bool = False) -> BotFactory:
    """The factory of bot `spec`: a registered name or, with `files`, `path/to/file.py:ClassName`.

    Raises BotError naming the known bots (or what is wrong with the file).
    """
    if spec in _BUILT_IN:
        return _BUILT_IN[spec]
    point = installed_bots().get(spec)
    if point is not None:
        try:
            factory = point.load()
        except Exception as failed:  # a broken package must not take the caller down
            raise BotError(f"bot {spec!r} ({point.value}) cannot be loaded: {failed}") from None
        if not callable(factory):
            raise BotError(f"bot {spec!r} ({point.value}) is not a class or function")
        return factory  # type: ignore[no-any-return]
    if files and is_file_spec(spec):
        return _from_file(spec)
    hint = " or path/to/file.py:ClassName" if files else ""
    raise BotError(f"unknown bot {spec!r}: the known bots are {', '.join(bot_names())}{hint}")


def make_bot(name: str, seed: int = 0, files: bool = False) -> SettlerBot:
    """A new bot called `name`, seeded; raises BotError (a ValueError) naming the known bots otherwise."""
    return bot_factory(name, files)(seed)


@cache
def _from_file(spec: str) -> BotFactory:
    match = _FILE_SPEC.match(spec)
    assert match is not None
    path, cls = Path(match["path"]), match["cls"]
    if not path.is_file():
        raise BotError(f"--bot {spec}: there is no file {path}")
    module_name = f"_asteroid_mining_bot_{abs(hash(str(path.resolve())))}"
    loader = importlib.util.spec_from_file_location(module_name, path)
    if loader is None or loader.loader is None:
        raise BotError(f"--bot {spec}: {path} is not a Python file")
    module = importlib.util.module_from_spec(loader)
    sys.modules[module_name] = module  # dataclasses and pickling look classes up by their module
    try:
        loader.loader.exec_module(module)
    except Exception as failed:
        del sys.modules[module_name]
        raise BotError(f"--bot {spec}: {path} fails to load: {type(failed).__name__}: {failed}") from None
    factory = getattr(module, cls, None)
    if factory is None or not callable(factory):
        raise BotError(f"--bot {spec}: {path} has no class {cls}")
    return factory  # type: ignore[no-any-return]


__all__ = [
    "BOT_NAMES",
    "ENTRY_POINT_GROUP",
    "BotError",
    "BotFactory",
    "bot_factory",
    "bot_names",
    "installed_bots",
    "is_file_spec",
    "learned_bot",
    "make_bot",
]
