"""When a reactive core may safely be exposed (R5, R6): the orbit must keep it far until it is mined.

A core exposed in round t by the last drill reacts at once if its asteroid is near in t, and at the start of
t + 1 if the orbit brings it near then. A settler who drills in round t mines at its step of round t + 1, so
the last layer may go only when the asteroid is far in both t and t + 1 (in t alone when a teammate standing
there, later in the same round, mines it at once).
"""

from __future__ import annotations

from ..rules import far_through as _far_through
from ..rules import rounds_until_near
from ..rules.materials import is_reactive
from .observation import Observation

HORIZON = 48
"""Rounds looked ahead for a safe window (generated orbits have periods of at most 20)."""


def far_through(obs: Observation, aid: str, first: int, last: int) -> bool:
    """The asteroid is far from the Sun in every round from `first` to `last` (inclusive)."""
    a = obs.asteroid(aid)
    return _far_through(a.orbit, a.pinned, first, last)


def safe_to_expose(obs: Observation, aid: str, round_no: int, hold: int = 1) -> bool:
    """Exposing `aid`'s core in `round_no` is safe if it stays far for `hold` rounds more (its core being
    reactive); non-reactive cores are always safe."""
    if not is_reactive(obs.core(aid)):
        return True
    return far_through(obs, aid, round_no, round_no + hold)


def first_safe_round(obs: Observation, aid: str, earliest: int, hold: int = 1) -> int | None:
    """The first round ≥ `earliest` in which the last layer of `aid` may go, or None within the horizon."""
    if not is_reactive(obs.core(aid)):
        return earliest
    a = obs.asteroid(aid)
    orbit = a.orbit
    r = earliest
    while r <= earliest + HORIZON:
        wait = rounds_until_near(orbit, a.pinned, r)
        if wait is None or wait > hold:
            return r
        # near in round r + wait: the next chance is the first far round after that
        after = orbit.next_change(r + wait) if orbit is not None else None
        if after is None:
            return None
        r = after
    return None
