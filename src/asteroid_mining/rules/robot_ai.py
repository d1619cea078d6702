"""The robots' AI (R13) and the UFOs' behaviour (E2): one step each, deterministic from the game's generator.

The robot is useful to the settlers: it shelters from forecast storms, drills where drilling helps, never
finishes a drill that would make its asteroid react, and otherwise explores. Each step costs O(degree).
"""

from __future__ import annotations

from .actions import Action, Drill, Mine, Move, Wait
from .materials import HOLLOW, is_reactive
from .state import Asteroid, GameState, Robot, Ufo

_SECOND_HOP = 16
"""Exits a robot looks behind for a shelter two moves away."""
_SAMPLES = 6
"""Random neighbours a robot looks at when it explores: enough to find work, O(1) on a hub."""


def robot_action(state: GameState, robot: Robot) -> Action:
    """The action the robot's AI takes now."""
    assert robot.at is not None
    here = state.asteroids[robot.at]
    storm = state.storm_at.get(here.id)
    if storm is not None and not here.shelter:
        return _shelter(state, robot, here, storm)
    if here.mantle > 0 and _worth_drilling(state, here):
        return Drill(robot.id)
    return _explore(state, robot, here)


def _exits(state: GameState, here: Asteroid) -> list[tuple[str, Asteroid]]:
    """(move target, destination) for every neighbour and every active gate orbiting `here`."""
    exits = [(aid, state.asteroids[aid]) for aid in here.neighbours]
    for gid in here.gates:
        gate = state.gates[gid]
        if state.gate_active(gate):
            dest = state.gates[gate.partner].at
            assert dest is not None
            exits.append((gid, state.asteroids[dest]))
    return exits


def _shelter(state: GameState, robot: Robot, here: Asteroid, storm: int) -> Action:
    """A storm is forecast for this asteroid: reach a shelter, make one, or leave the storm's path."""
    exits = _exits(state, here)
    for target, dest in exits:
        if dest.shelter:
            return Move(robot.id, target)
    steps_left = storm - state.round + 1
    if steps_left >= 2:
        # two moves away: look behind a bounded number of exits, so that a step costs O(degree) at most
        for target, dest in exits[:_SECOND_HOP]:
            if any(beyond.shelter for _, beyond in _exits(state, dest)):
                return Move(robot.id, target)
    if here.core == HOLLOW and here.mantle <= steps_left:
        return Drill(robot.id)
    best: tuple[int, str] | None = None
    for target, dest in exits:
        dest_storm = state.storm_at.get(dest.id)
        if dest_storm is not None and dest_storm <= storm:
            continue
        # prefer a hollow asteroid it can drill open in time, then any asteroid out of the storm's path
        score = dest.mantle if dest.core == HOLLOW and dest.mantle < steps_left else 100
        if best is None or score < best[0]:
            best = (score, target)
    if best is not None:
        return Move(robot.id, best[1])
    if here.core == HOLLOW and here.mantle > 0:
        return Drill(robot.id)
    return Wait(robot.id)


def _worth_drilling(state: GameState, here: Asteroid) -> bool:
    """Drill unless the last layer would expose a reactive core that could react before a settler mines it."""
    if here.mantle > 1 or not is_reactive(here.core):
        return True
    far_now = not state.is_near(here)
    far_next = not here.orbit.is_near(state.round + 1) if here.orbit else here.pinned != "near"
    return far_now and far_next and bool(here.settlers)


def _explore(state: GameState, robot: Robot, here: Asteroid) -> Action:
    """Wander to a neighbour, preferring one with mantle left to drill and out of any storm's path."""
    if not here.neighbours:
        return Wait(robot.id)
    neighbours = list(here.neighbours)
    first = None
    for _ in range(_SAMPLES):
        candidate = state.asteroids[state.rng.choice(neighbours)]
        if candidate.id in state.storm_at and not candidate.shelter:
            continue
        if candidate.mantle > 0:
            return Move(robot.id, candidate.id)
        first = first or candidate.id
    return Move(robot.id, first) if first else Wait(robot.id)


def ufo_action(state: GameState, ufo: Ufo) -> Action:
    """E2: take an exposed unit, else fly to a random neighbouring asteroid (never through a gate)."""
    assert ufo.at is not None
    here = state.asteroids[ufo.at]
    if here.mantle == 0 and here.core != HOLLOW:
        return Mine(ufo.id)
    if here.neighbours:
        return Move(ufo.id, state.rng.choice(list(here.neighbours)))
    return Wait(ufo.id)
