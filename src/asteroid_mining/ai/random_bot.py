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

    def choose(self, obs: Observation, settler: str) -> Action:
        """A uniformly random legal action (`wait` when there is none)."""
        actions = obs.legal_actions(settler)
        return self._rng.choice(actions) if actions else Wait(settler)
