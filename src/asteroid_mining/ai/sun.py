"""When a reactive core may safely be exposed (R5, R6): the orbit must keep it far until it is mined.

A core exposed in round t by the last drill reacts at once if its asteroid is near in t, and at the start of
t + 1 if the orbit brings it near then. A settler who drills in round t mines at its step of round t + 1, so
the last layer may go only when the asteroid is far in both t and t + 1 (in t alone when a teammate standing
there, later in the same round, mines it at once).
"""

from __future__ import annotations

from ..rules.materials import is_reactive
from .observation import Observation

HORIZON = 48
"""Rounds looked ahead for a safe window (generated orbits have periods of at most 20)."""


def far_through(obs: Observation, aid: str, first: int, last: int) -> bool:
    """The asteroid is far from the Sun in every round from `first` to `last` (inclusive)."""
    return not any(obs.near(aid, r) for r in range(first, last + 1))


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
    run = 0
    for r in range(earliest, earliest + HORIZON + hold + 1):
        run = 0 if obs.near(aid, r) else run + 1
        if run > hold:
            return r - hold
    return None


def reacts_by(obs: Observation, aid: str, round_no: int) -> bool:
    """An exposed reactive core on `aid` will have reacted by the start of `round_no` (it is near before)."""
    a = obs.asteroid(aid)
    if a.mantle > 0 or not is_reactive(a.core):
        return False
    return not far_through(obs, aid, obs.round + 1, round_no)
