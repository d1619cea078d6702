"""When exposed cores react near the Sun (R5, R6, E1): the one place that says it, for the choices a settler is
offered, the players' view, the robots' AI (R13) and the bots.

Rounds: an action in round r that exposes a reactive core near the Sun sets it off at once. Otherwise the core
reacts when the end-of-round phase of a round brings it near (R12 step 3): the phase of round r moves the orbit
to round r + 1, and the core reacts "at the end of round r" if it is near in round r + 1. Ice sublimates the
first time; uranium counts one exposure each such time and explodes on the count that reaches the fuse
(`uranium_fuse`, E1/R6b), the counts being kept by the core.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .materials import MATERIALS
from .orbit import Orbit
from .state import Asteroid, GameState


@dataclass(frozen=True, slots=True)
class Danger:
    """The last drill would expose a core that reacts near the Sun: it is near now (0) or in `in_rounds`."""

    core: str
    in_rounds: int

    def __init__(self, core: str, in_rounds: int) -> None:
        # written out (see `events`): the compiled engine then builds it without interpreted code
        object.__setattr__(self, "core", core)
        object.__setattr__(self, "in_rounds", in_rounds)

    def to_json(self) -> dict[str, Any]:
        """The danger as a JSON object."""
        return {"core": self.core, "in_rounds": self.in_rounds}



@dataclass(frozen=True, slots=True)
class Reaction:
    """An exposed core that will react: `explodes` or `sublimates` at the end of the round `in_rounds` from now
    (0: this round's end)."""

    core: str
    effect: str
    in_rounds: int

    def __init__(self, core: str, effect: str, in_rounds: int) -> None:
        # written out (see `events`): the compiled engine then builds it without interpreted code
        object.__setattr__(self, "core", core)
        object.__setattr__(self, "effect", effect)
        object.__setattr__(self, "in_rounds", in_rounds)

    def to_json(self) -> dict[str, Any]:
        """The reaction as a JSON object."""
        return {"core": self.core, "effect": self.effect, "in_rounds": self.in_rounds}



def near_round(orbit: Orbit | None, pinned: str | None, start: int, count: int = 1) -> int | None:
    """The `count`-th round ≥ `start` in which the asteroid is near the Sun, or None if never (R5).

    A pinned asteroid (no orbit) is taken to stay pinned. O(1).
    """
    if orbit is None:
        return start + count - 1 if pinned == "near" else None
    first = orbit.next_near(start)
    if first is None:
        return None
    window, period = orbit.window, orbit.period
    offset = (first - 1 + orbit.phase) % period  # where `first` lies in its near window
    left = window - offset  # near rounds from `first` to the end of that window
    if count <= left:
        return first + count - 1
    beyond = count - left - 1  # near rounds still to skip after that window
    return first - offset + period * (1 + beyond // window) + beyond % window


def rounds_until_near(orbit: Orbit | None, pinned: str | None, round_no: int) -> int | None:
    """Rounds from `round_no` until the asteroid is near the Sun (0: near in `round_no`), or None if never."""
    found = near_round(orbit, pinned, round_no)
    return None if found is None else found - round_no


def far_through(orbit: Orbit | None, pinned: str | None, first: int, last: int) -> bool:
    """The asteroid is far from the Sun in every round from `first` to `last` (inclusive)."""
    wait = rounds_until_near(orbit, pinned, first)
    return wait is None or first + wait > last


def reacts_at(state: GameState, asteroid: Asteroid) -> int | None:
    """The round at whose end the exposed reactive core of `asteroid` reacts, or None: not exposed, not
    reactive, or its orbit never brings it near (E1/R6b: uranium explodes on the count that reaches the fuse)."""
    if asteroid.mantle != 0 or not asteroid.exists:
        return None
    material = MATERIALS.get(asteroid.core)
    if material is None or not material.reactive:
        return None
    counts = 1 if material.sublimates else max(1, state.options.uranium_fuse - asteroid.exposures)
    due = near_round(asteroid.orbit, asteroid.pinned, state.round + 1, counts)
    return None if due is None else due - 1


def reaction(state: GameState, asteroid: Asteroid) -> Reaction | None:
    """What the exposed reactive core of `asteroid` will do, and in how many rounds; None if nothing."""
    due = reacts_at(state, asteroid)
    if due is None:
        return None
    effect = "sublimates" if MATERIALS[asteroid.core].sublimates else "explodes"
    return Reaction(asteroid.core, effect, due - state.round)


def exposed_now_reacts(core: str, wait: int | None) -> bool:
    """A core of this kind exposed now reacts within this round: it is reactive and near the Sun now (it reacts
    at once) or next round (at this round's end). `wait`: rounds until the asteroid is near (`rounds_until_near`),
    None if never. What a drill exposing it would set off before anyone could act again (R6, R12)."""
    material = MATERIALS.get(core)
    return material is not None and material.reactive and wait is not None and wait <= 1


def drill_danger(state: GameState, asteroid: Asteroid) -> Danger | None:
    """A drill now would expose a reactive core (the last layer of a core the players know) that is near the
    Sun now (0) or comes near in n rounds; None otherwise."""
    if asteroid.mantle != 1 or not asteroid.surveyed:
        return None
    material = MATERIALS.get(asteroid.core)
    if material is None or not material.reactive:
        return None
    wait = rounds_until_near(asteroid.orbit, asteroid.pinned, state.round)
    if wait is None:
        return None
    return Danger(asteroid.core, wait)

