"""`random`: a uniformly random legal action, from its own seeded generator.

Compiled with the bots' search (`tools/builds.toml`): a random bot's self-play game is mostly its
decisions and the engine's work.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ..rules import Action, Wait
from .observation import Observation

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure modules run without the development tools
    from ._native import mypyc_attr


# a bot of one's own may build on it by deriving from it (compiled, a class must say so)
@mypyc_attr(allow_interpreted_subclasses=True)
class RandomBot:
    """Chooses uniformly among the legal actions (a baseline)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)
        self._bits: Callable[[int], int] = self._rng.getrandbits

    def choose(self, obs: Observation, settler: str) -> Action:
        """A uniformly random legal action (`wait` when there is none): `random.Random(seed).choice` of them.

        `choice` draws an index below n as `getrandbits(n.bit_length())` until one is below n; done here inline,
        which halves the bot's cost in a self-play game (the same draws, so the same moves; a test holds the two
        together).
        """
        actions = obs.legal_actions(settler)
        n = len(actions)
        if not n:
            return Wait(settler)
        k = n.bit_length()
        bits = self._bits
        i = bits(k)
        while i >= n:
            i = bits(k)
        return actions[i]
