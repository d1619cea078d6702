"""`random`: a uniformly random legal action, from its own seeded generator."""

from __future__ import annotations

import random

from ..rules import Action, Wait
from .observation import Observation


class RandomBot:
    """Chooses uniformly among the legal actions (a baseline)."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)
        self._bits = self._rng.getrandbits

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
        i = self._bits(k)
        while i >= n:
            i = self._bits(k)
        return actions[i]
