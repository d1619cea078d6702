"""The consequences the rules attach to changes: reactions (R6), explosions (R8), deaths (R10), storms (R7),
surveys (R17) and the end of the game (R14, R15).

Every function appends the events it causes to `events` and keeps the state's indexes up to date.
"""

from __future__ import annotations

from collections.abc import Mapping

from .events import (
    Destroyed,
    Died,
    Event,
    Exploded,
    Exposure,
    GateDestroyed,
    Landed,
    Lost,
    StormHit,
    Sublimated,
    WentHaywire,
    Won,
)
from .materials import HOLLOW, KINDS, MATERIALS, WIN_TARGET
from .state import Asteroid, GameState, Gate, Robot, Settler, Ufo


def touch(state: GameState, tid: str) -> None:
    """Note that the view entry of `tid` may have changed (see `Game.take_touched`)."""
    state.touched.add(tid)


def reactive_exposed(asteroid: Asteroid) -> bool:
    """The asteroid exists, is drilled through, and its core would react near the Sun (R6)."""
    if not asteroid.exists or asteroid.mantle != 0:
        return False
    material = MATERIALS.get(asteroid.core)
    return material is not None and material.reactive


def schedule_watch(state: GameState, asteroid: Asteroid) -> None:
    """Remember the round in which the orbit next brings a far, exposed, reactive core near the Sun."""
    if asteroid.orbit is None:
        return
    due = asteroid.orbit.next_near(state.round + 1)
    if due is not None:
        state.watch.setdefault(due, []).append(asteroid.id)


def react(state: GameState, asteroid: Asteroid, events: list[Event]) -> None:
    """Apply R6 at a moment when "near the Sun with an exposed reactive core" may have become true.

    Called after anything that can expose, refill or bring near a core. A radioactive core already counted
    for the present condition (it is in `hot`) is not counted again: an exposure is counted once when the
    condition becomes true, and once per later round start while it holds.
    """
    if not reactive_exposed(asteroid):
        state.hot.pop(asteroid.id, None)
        return
    if not state.is_near(asteroid):
        state.hot.pop(asteroid.id, None)
        schedule_watch(state, asteroid)
        return
    material = MATERIALS[asteroid.core]
    if material.sublimates:
        lose_core(state, asteroid)
        events.append(Sublimated(asteroid.id))
    elif material.radioactive and asteroid.id not in state.hot:
        count_exposure(state, asteroid, events)


def count_exposure(state: GameState, asteroid: Asteroid, events: list[Event]) -> None:
    """Count one exposure of a radioactive core near the Sun; explode at the fuse (R6b)."""
    state.hot[asteroid.id] = None
    asteroid.exposures += 1
    state.touched.add(asteroid.id)
    fuse = state.options.uranium_fuse
    events.append(Exposure(asteroid.id, asteroid.exposures, fuse))
    if asteroid.exposures >= fuse:
        explode(state, asteroid, events)


def lose_core(state: GameState, asteroid: Asteroid) -> str:
    """The unit leaves the core (mined, taken, sublimated): the core is hollow and its count reset."""
    kind = asteroid.core
    if kind != HOLLOW:
        state.core_units[kind] -= 1
    asteroid.core = HOLLOW
    asteroid.exposures = 0
    state.hot.pop(asteroid.id, None)
    state.touched.add(asteroid.id)
    return kind


def fill_core(state: GameState, asteroid: Asteroid, kind: str) -> None:
    """A unit becomes the (hollow) core of an asteroid."""
    asteroid.core = kind
    asteroid.exposures = 0
    state.touched.add(asteroid.id)
    if kind != HOLLOW:
        state.core_units[kind] += 1


def survey(asteroid: Asteroid) -> None:
    """The content of the core becomes known to the players (R17)."""
    asteroid.surveyed = True


def place_actor(state: GameState, actor: Settler | Robot | Ufo, target: Asteroid) -> None:
    """Put an actor on an asteroid, taking it off its former one; settlers and robots survey it (R17)."""
    touched = state.touched
    if actor.at is not None:
        origin = state.asteroids[actor.at]
        _occupants(origin, actor).pop(actor.id, None)
        touched.add(origin.id)
    touched.add(actor.id)
    touched.add(target.id)
    actor.at = target.id
    _occupants(target, actor)[actor.id] = None
    if not isinstance(actor, Ufo):
        target.surveyed = True


def _occupants(asteroid: Asteroid, actor: Settler | Robot | Ufo) -> dict[str, None]:
    if isinstance(actor, Settler):
        return asteroid.settlers
    if isinstance(actor, Robot):
        return asteroid.robots
    return asteroid.ufos


def attach_gate(state: GameState, gate: Gate, asteroid: Asteroid) -> None:
    """Put a gate into orbit around an asteroid, keeping the asteroid's gates in creation order."""
    gate.at = asteroid.id
    last = next(reversed(asteroid.gates), None)
    asteroid.gates[gate.id] = None
    state.touched.update((gate.id, gate.partner, asteroid.id))
    # A new gate (set-up makes them in index order) goes last as it is: sorting every time made a belt of n
    # gates around one asteroid cost n² log n. Only a gate older than the last one (a haywire move) is sorted in.
    if last is not None and state.gates[last].index > gate.index:
        ordered = sorted(asteroid.gates, key=lambda gid: state.gates[gid].index)
        asteroid.gates = dict.fromkeys(ordered)


def explode(state: GameState, asteroid: Asteroid, events: list[Event]) -> None:
    """The asteroid is destroyed with its links and core (R8); robots on it land on former neighbours."""
    events.append(Exploded(asteroid.id))
    lose_core(state, asteroid)
    asteroid.exists = False
    former = asteroid.unlink_all(state.asteroids)
    state.touched.add(asteroid.id)
    state.touched.update(former)
    for sid in _by_index(state.settlers, asteroid.settlers):
        kill_settler(state, state.settlers[sid], "explosion", events)
    for uid in _by_index(state.ufos, asteroid.ufos):
        destroy_actor(state, state.ufos[uid], "explosion", events)
    for rid in _by_index(state.robots, asteroid.robots):
        robot = state.robots[rid]
        if former:
            target = state.asteroids[state.rng.choice(former)]
            place_actor(state, robot, target)
            events.append(Landed(rid, asteroid.id, target.id))
        else:
            destroy_actor(state, robot, "explosion", events)
    for gid in _by_index(state.gates, asteroid.gates):
        destroy_gate_pair(state, gid, events)
    state.storm_at.pop(asteroid.id, None)
    check_loss(state, events)


def _by_index(records: Mapping[str, Settler | Robot | Ufo | Gate], ids: dict[str, None]) -> list[str]:
    """Ids in creation order, so that the order of a derived index never decides an outcome (R18)."""
    if len(ids) <= 1:
        return list(ids)
    return sorted(ids, key=lambda key: records[key].index)


def kill_settler(state: GameState, settler: Settler, cause: str, events: list[Event]) -> None:
    """A settler dies for good: cargo lost, carried gates destroyed with their partners (R10)."""
    where = settler.at or ""
    settler.alive = False
    state.touched.add(settler.id)
    if settler.at is not None:
        state.asteroids[settler.at].settlers.pop(settler.id, None)
        state.touched.add(settler.at)
    settler.at = None
    for kind in KINDS:
        state.cargo_units[kind] -= settler.cargo[kind]
    state.living -= 1
    events.append(Died(settler.id, where, cause))
    for gid in list(settler.gates):
        destroy_gate_pair(state, gid, events)


def destroy_actor(state: GameState, actor: Robot | Ufo, cause: str, events: list[Event]) -> None:
    """A robot or UFO is destroyed (R7, R8, E2)."""
    where = actor.at or ""
    actor.alive = False
    state.touched.add(actor.id)
    if actor.at is not None:
        _occupants(state.asteroids[actor.at], actor).pop(actor.id, None)
        state.touched.add(actor.at)
    actor.at = None
    events.append(Destroyed(actor.id, where, cause))


def destroy_gate_pair(state: GameState, gate_id: str, events: list[Event]) -> None:
    """A gate is destroyed, and so is its partner wherever it is (R8, R10)."""
    gate = state.gates[gate_id]
    for gid in (gate_id, gate.partner):
        g = state.gates[gid]
        if not g.exists:
            continue
        g.exists = False
        state.touched.add(gid)
        if g.at is not None:
            state.asteroids[g.at].gates.pop(gid, None)
            state.touched.add(g.at)
        if g.carrier is not None:
            state.settlers[g.carrier].gates.remove(gid)
            state.touched.add(g.carrier)
        g.at = None
        g.carrier = None
        events.append(GateDestroyed(gid))


def storm_hit(state: GameState, asteroid_ids: list[str], events: list[Event]) -> None:
    """A storm hits these asteroids at once (R7): everyone outside a shelter dies; gates go haywire (E3)."""
    hit = [state.asteroids[a] for a in asteroid_ids if state.asteroids[a].exists]
    events.append(StormHit(tuple(a.id for a in hit)))
    for asteroid in hit:
        if state.options.haywire_gates:
            for gid in asteroid.gates:
                gate = state.gates[gid]
                if not gate.haywire:
                    gate.haywire = True
                    state.touched.add(gid)
                    events.append(WentHaywire(gid))
        if asteroid.shelter:
            continue
        for sid in _by_index(state.settlers, asteroid.settlers):
            kill_settler(state, state.settlers[sid], "storm", events)
        for rid in _by_index(state.robots, asteroid.robots):
            destroy_actor(state, state.robots[rid], "storm", events)
        for uid in _by_index(state.ufos, asteroid.ufos):
            destroy_actor(state, state.ufos[uid], "storm", events)
    check_loss(state, events)


def check_win(state: GameState, asteroid: Asteroid, events: list[Event]) -> None:
    """The settlers on one asteroid carry 3 of every kind together: they build the base (R14)."""
    if not state.running or not asteroid.settlers:
        return
    cargo_units = state.cargo_units
    for kind in KINDS:  # what all the living settlers carry together bounds what those here carry
        if cargo_units[kind] < WIN_TARGET:
            return
    settlers = [state.settlers[s] for s in asteroid.settlers]
    for kind in KINDS:
        if sum(s.cargo[kind] for s in settlers) < WIN_TARGET:
            return
    state.status = "won"
    state.turn = None
    events.append(Won(asteroid.id))


def check_loss(state: GameState, events: list[Event]) -> None:
    """Every settler is dead, and there was one: the game is lost (R15)."""
    if state.running and state.living == 0 and state.settlers:
        state.status = "lost"
        state.turn = None
        events.append(Lost())


def winnable(state: GameState) -> bool:
    """R16: enough units left in cores and living cargo for a win, while the game runs."""
    if state.status != "running":
        return state.status == "won"
    return all(state.core_units[k] + state.cargo_units[k] >= WIN_TARGET for k in KINDS)
