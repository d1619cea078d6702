"""The bots by name: `make_bot(name, seed)`."""

from __future__ import annotations

from collections.abc import Callable

from .bot import SettlerBot
from .greedy import GreedyBot
from .planner import PlannerBot
from .random_bot import RandomBot

_FACTORIES: dict[str, Callable[[int], SettlerBot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "planner": PlannerBot,
}

BOT_NAMES: tuple[str, ...] = tuple(_FACTORIES)
"""The names `make_bot` knows, weakest first."""


def make_bot(name: str, seed: int = 0) -> SettlerBot:
    """A new bot called `name`, seeded; raises ValueError naming the known bots for an unknown name."""
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}: the known bots are {', '.join(BOT_NAMES)}") from None
    return factory(seed)
