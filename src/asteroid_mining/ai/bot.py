"""The settler bot interface: anything with a `name` that chooses an action for one settler."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..rules import Action
from .observation import Observation


@runtime_checkable
class SettlerBot(Protocol):
    """A player program controlling one or more settlers of the team.

    `choose` is called when it is `settler`'s step and returns an action the rules accept (`obs.check(action)`
    is None). A bot may control only some of the team's settlers (humans the others): it must not assume it
    moves everyone, and it derives any team plan from the observation at each call (or a cache keyed by the
    game and round).
    """

    name: str

    def choose(self, obs: Observation, settler: str) -> Action:
        """The action `settler` takes now."""
        ...
