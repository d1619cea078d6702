"""The robots' AI (R13) and the UFOs' behaviour (E2): one step each, deterministic from the game's generator.

The robot is useful to the settlers. In order:

1. A storm is forecast for its asteroid: it reaches a shelter (one or two moves away, through gates too),
   drills its own hollow asteroid open, or leaves the storm's path.
2. It drills where drilling helps: a core of a kind the team still lacks, a hollow asteroid (a shelter to be),
   and upper layers of anything it does not know. It never finishes a drill that would make its asteroid react:
   the last layer of ice or uranium goes only while the asteroid is far from the Sun this round and the next,
   and a settler stands there to mine it at its next step.
3. Otherwise it explores: it looks at a bounded sample of its neighbours and moves to the most useful one
   (cores the team needs, unknown ones, settlers working there), drawn towards the settlers on a laid-out belt,
   never into a storm's path.

What it knows is what players know (R17): it judges cores it has surveyed, never hidden ones. Each step costs
O(degree) at most (a sample of neighbours, not the whole hub), and draws only from the game's generator (R18).
"""

from __future__ import annotations

from .actions import Action, Drill, Mine, Move, Wait
from .dangers import drill_danger
from .materials import HOLLOW, KINDS, WIN_TARGET, is_reactive
from .state import Asteroid, GameState, Robot, Ufo

_SECOND_HOP = 16
"""Exits a robot looks behind for a shelter two moves away."""
_SAMPLES = 12
"""Random neighbours a robot looks at when it explores: enough to find work, O(1) on a hub."""
_PULL = 2.0
"""How strongly an exploring robot is drawn towards the settlers (score per link length of progress)."""
_MAX_SETTLERS = 8
"""Living settlers a robot takes its bearings from (the first ones; bounds a step on crowded games)."""


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


def _needed(state: GameState, kind: str) -> bool:
    """The living settlers carry fewer than the win's units of this kind (R14)."""
    return kind in KINDS and state.cargo_units[kind] < WIN_TARGET


def _known_core(here: Asteroid) -> str | None:
    """The core as players know it (R17), or None while unsurveyed."""
    return here.core if here.surveyed or here.mantle == 0 else None


def _worth_drilling(state: GameState, here: Asteroid) -> bool:
    """Drill a needed core, a hollow asteroid or an unknown one; never expose a core that could react first."""
    core = _known_core(here)
    if core is None:
        return True
    if is_reactive(core) and here.mantle == 1:
        # the unit is mined at a settler's next step: the core must stay far this round and the next
        danger = drill_danger(state, here)
        safe = danger is None or danger.in_rounds >= 2
        return safe and bool(here.settlers) and _needed(state, core)
    return core == HOLLOW or _needed(state, core)


def _bearings(state: GameState) -> list[tuple[float, float]]:
    """Where the living settlers are, on a laid-out belt (at most `_MAX_SETTLERS`)."""
    out: list[tuple[float, float]] = []
    for settler in state.settlers.values():
        if settler.alive and settler.at is not None:
            position = state.asteroids[settler.at].position
            if position is not None:
                out.append(position)
                if len(out) >= _MAX_SETTLERS:
                    break
    return out


def _gap(position: tuple[float, float], bearings: list[tuple[float, float]]) -> float:
    """The distance from `position` to the nearest of `bearings`."""
    x, y = position
    return float(min((x - bx) ** 2 + (y - by) ** 2 for bx, by in bearings) ** 0.5)


def _usefulness(state: GameState, candidate: Asteroid) -> float:
    """How much good a robot could do on a neighbouring asteroid (higher is better; negative: keep away)."""
    if candidate.id in state.storm_at and not candidate.shelter:
        return -1.0
    score = 0.0
    core = _known_core(candidate)
    if candidate.mantle > 0:
        if core is None:
            score += 2.0  # surveying it helps too (R17)
        elif core != HOLLOW and _needed(state, core):
            score += 4.0
        elif core == HOLLOW:
            score += 1.0
        if candidate.settlers:
            score += 1.5
    return score


def _explore(state: GameState, robot: Robot, here: Asteroid) -> Action:
    """Move to the most useful of a sample of neighbours, drawn towards the settlers; wait when stuck."""
    if not here.neighbours:
        return Wait(robot.id)
    neighbours = list(here.neighbours)
    sample = neighbours if len(neighbours) <= _SAMPLES else state.rng.sample(neighbours, _SAMPLES)
    bearings = _bearings(state) if here.position is not None else []
    gap_here = _gap(here.position, bearings) if here.position is not None and bearings else 0.0
    best: tuple[float, float, str] | None = None
    for aid in sample:
        candidate = state.asteroids[aid]
        score = _usefulness(state, candidate)
        if score < 0:
            continue
        if bearings and candidate.position is not None and here.position is not None:
            # progress towards the nearest settler, in lengths of this link (about -1 … 1)
            hx, hy = here.position
            x, y = candidate.position
            link = max(1e-9, ((x - hx) ** 2 + (y - hy) ** 2) ** 0.5)
            score += _PULL * (gap_here - _gap(candidate.position, bearings)) / link
        key = (score, state.rng.random(), aid)
        if best is None or key > best:
            best = key
    return Move(robot.id, best[2]) if best else Wait(robot.id)


def ufo_action(state: GameState, ufo: Ufo) -> Action:
    """E2: take an exposed unit, else fly to a random neighbouring asteroid (never through a gate)."""
    assert ufo.at is not None
    here = state.asteroids[ufo.at]
    if here.mantle == 0 and here.core != HOLLOW:
        return Mine(ufo.id)
    if here.neighbours:
        return Move(ufo.id, state.rng.choice(list(here.neighbours)))
    return Wait(ufo.id)
