"""Building a game piece by piece: the set-up of scenario scripts and of games on a belt.

Every function validates everything first and raises `SetupError` before changing anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TypeVar

from .belt import AsteroidSpec
from .effects import attach_gate, check_win, place_actor, react, storm_hit
from .errors import SetupError
from .events import Event, SunChanged
from .ids import all_ids, id_problem
from .materials import CARGO_LIMIT, CORES, GATE_LIMIT, KINDS
from .orbit import Orbit
from .state import Asteroid, Forecast, GameState, Gate, Robot, Settler, Thing, Ufo
from .storms import add_forecast


def _new_id(state: GameState, new_id: str) -> None:
    problem = id_problem(new_id)
    if problem:
        raise SetupError(problem)
    if new_id in state.things:
        raise SetupError(f"{new_id} is already taken by a{'n' if state.things[new_id].kind[0] in 'au' else ''} "
                         f"{state.things[new_id].kind}")
    if not state.running:
        raise SetupError(f"the game is over ({state.status}): nothing new can be added")


def existing_asteroid(state: GameState, aid: str) -> Asteroid:
    """The asteroid called `aid`; SetupError when there is none or it has exploded."""
    thing = state.things.get(aid)
    if thing is None:
        raise SetupError(f"there is no asteroid {aid}")
    if not isinstance(thing, Asteroid):
        raise SetupError(f"{aid} is a {thing.kind}, not an asteroid")
    if not thing.exists:
        raise SetupError(f"asteroid {aid} has exploded")
    return thing


def _register(state: GameState, thing: Thing) -> None:
    state.things[thing.id] = thing
    state.touched.add(thing.id)


def add_asteroid(
    state: GameState,
    aid: str,
    mantle: int = 3,
    core: str = "hollow",
    sun: str | None = None,
    orbit: Orbit | None = None,
    position: tuple[float, float] | None = None,
    react_now: bool = True,
) -> list[Event]:
    """A new asteroid, pinned `far` unless `sun` or `orbit` says otherwise; reacts at once if it must (R6).

    A whole belt is laid out with `react_now=False` and reacts once every asteroid and link exists.
    """
    _new_id(state, aid)
    asteroid = _make_asteroid(state, aid, mantle, core, sun, orbit, position)
    events: list[Event] = []
    if react_now:
        react(state, asteroid, events)
    return events


def add_asteroids(state: GameState, specs: Sequence[AsteroidSpec]) -> None:
    """Every asteroid of a belt, in order, as `add_asteroid` adds each with `react_now=False`.

    Their ids are checked all at once (`ids.all_ids`) rather than one by one, when they are all valid and new;
    otherwise each is added in turn and the first that cannot be raises its `SetupError`.
    """
    ids = [spec.id for spec in specs]
    if state.running and all_ids(ids) and len(set(ids)) == len(ids) and state.things.keys().isdisjoint(ids):
        for spec in specs:
            _make_asteroid(state, spec.id, spec.mantle, spec.core, None if spec.orbit else spec.sun, spec.orbit,
                           spec.position)
        return
    for spec in specs:
        add_asteroid(state, spec.id, spec.mantle, spec.core, None if spec.orbit else spec.sun, spec.orbit,
                     spec.position, react_now=False)


def _make_asteroid(state: GameState, aid: str, mantle: int, core: str, sun: str | None, orbit: Orbit | None,
                   position: tuple[float, float] | None) -> Asteroid:
    """`add_asteroid` once its id is known to be valid and new, without the reactions."""
    if mantle < 0:
        raise SetupError(f"the mantle of {aid} cannot be negative ({mantle})")
    if core not in CORES:
        raise SetupError(f"{core!r} is not a core (expected {', '.join(CORES)})")
    if sun is not None and orbit is not None:
        raise SetupError(f"{aid} cannot be both pinned {sun} and on an orbit")
    if sun not in (None, "near", "far"):
        raise SetupError(f"sun must be near or far, not {sun!r}")
    pinned = None if orbit is not None else (sun or "far")
    asteroid = Asteroid(aid, state.next_index(), mantle, core, orbit, pinned, position, surveyed=mantle == 0)
    state.asteroids[aid] = asteroid
    _register(state, asteroid)
    if core != "hollow":
        state.core_units[core] += 1
    return asteroid


def link(state: GameState, first: str, others: Iterable[str]) -> None:
    """Make `first` a neighbour of each of `others` (R2); linking twice changes nothing."""
    a = existing_asteroid(state, first)
    targets = [existing_asteroid(state, other) for other in others]
    for b in targets:
        if b is a:
            raise SetupError(f"{first} cannot be its own neighbour")
    for b in targets:
        a.link(b)
        state.touched.add(b.id)
    state.touched.add(a.id)


def link_pairs(state: GameState, firsts: list[str], seconds: list[str]) -> int:
    """Link `firsts[i]` with `seconds[i]` for each i in turn, as `link` does, and stop before the first pair
    that is not two different asteroids still in the belt (`link` would refuse it, or say why); the number of
    pairs linked. A belt's set-up is mostly such pairs: a scenario's `link A B` lines are done this way.
    """
    asteroids, touched = state.asteroids, state.touched
    last: str = ""
    a: Asteroid | None = None
    for i in range(min(len(firsts), len(seconds))):
        if firsts[i] != last:  # a belt lists an asteroid's links one after the other
            last = firsts[i]
            a = asteroids.get(last)
        b = asteroids.get(seconds[i])
        if a is None or b is None or a is b or not a.exists or not b.exists:
            return i
        a.link(b)
        touched.add(a.id)
        touched.add(b.id)
    return min(len(firsts), len(seconds))


def _cargo(cargo: Mapping[str, int] | None, who: str) -> dict[str, int]:
    full = dict.fromkeys(KINDS, 0)
    for kind, n in (cargo or {}).items():
        if kind not in full:
            raise SetupError(f"{kind!r} is not a material (expected {', '.join(KINDS)})")
        if n < 0:
            raise SetupError(f"{who} cannot carry a negative amount of {kind}")
        full[kind] += n
    if sum(full.values()) > CARGO_LIMIT:
        raise SetupError(f"{who} cannot carry {sum(full.values())} units: the limit is {CARGO_LIMIT}")
    return full


def add_settler(state: GameState, sid: str, at: str, cargo: Mapping[str, int] | None = None) -> list[Event]:
    """A new settler on `at` with that cargo (≤ 10 units); may complete a win at once (R14)."""
    _new_id(state, sid)
    where = existing_asteroid(state, at)
    full = _cargo(cargo, sid)
    settler = Settler(sid, state.next_index(), None, cargo=full)
    state.settlers[sid] = settler
    _register(state, settler)
    state.settler_order.append(sid)
    state.living += 1
    for kind, n in full.items():
        state.cargo_units[kind] += n
    place_actor(state, settler, where)
    events: list[Event] = []
    check_win(state, where, events)
    return events


def add_robot(state: GameState, rid: str, at: str, ai: bool = True) -> None:
    """A new robot on `at`; with `ai=False` it only acts when told to."""
    _add_machine(state, Robot(rid, state.next_index(), None, ai=ai), state.robots, at)


def add_ufo(state: GameState, uid: str, at: str, ai: bool = True) -> None:
    """A new UFO on `at` (E2)."""
    _add_machine(state, Ufo(uid, state.next_index(), None, ai=ai), state.ufos, at)


_Machine = TypeVar("_Machine", Robot, Ufo)


def _add_machine(state: GameState, machine: _Machine, home: dict[str, _Machine], at: str) -> None:
    _new_id(state, machine.id)
    where = existing_asteroid(state, at)
    home[machine.id] = machine
    _register(state, machine)
    place_actor(state, machine, where)


def set_ai(state: GameState, aid: str, on: bool) -> None:
    """Switch the AI of a robot or UFO."""
    thing = state.things.get(aid)
    if not isinstance(thing, (Robot, Ufo)):
        raise SetupError(f"{aid} is not a robot or a UFO" if thing else f"there is no robot or UFO {aid}")
    thing.ai = on


def add_gates(state: GameState, first: str, first_where: str, second: str, second_where: str) -> None:
    """A linked gate pair; each orbits an asteroid or is carried by a living settler (≤ 2 gates each)."""
    _new_id(state, first)
    _new_id(state, second)
    if first == second:
        raise SetupError("the two gates of a pair need two different ids")
    carried: dict[str, int] = {}
    places: list[tuple[str, Asteroid | Settler]] = []
    for gid, where in ((first, first_where), (second, second_where)):
        thing = state.things.get(where)
        if isinstance(thing, Settler):
            if not thing.alive:
                raise SetupError(f"settler {where} is dead and cannot carry {gid}")
            carried[where] = carried.get(where, 0) + 1
            if len(thing.gates) + carried[where] > GATE_LIMIT:
                raise SetupError(f"{where} cannot carry more than {GATE_LIMIT} gates")
            places.append((gid, thing))
        elif isinstance(thing, Asteroid) or thing is None:
            places.append((gid, existing_asteroid(state, where)))
        else:
            raise SetupError(f"a gate must orbit an asteroid or be carried by a settler, and {where} is a "
                             f"{thing.kind}")
    for (gid, place), partner in zip(places, (second, first), strict=True):
        gate = Gate(gid, state.next_index(), partner)
        state.gates[gid] = gate
        _register(state, gate)
        if isinstance(place, Settler):
            gate.carrier = place.id
            place.gates.append(gid)
            state.touched.add(place.id)
        else:
            attach_gate(state, gate, place)


def pin_sun(state: GameState, aid: str, near: bool) -> list[Event]:
    """Pin an asteroid near or far from the Sun now; reactions follow at once (R5, R6)."""
    asteroid = existing_asteroid(state, aid)
    if not state.running:
        return []
    asteroid.orbit = None
    asteroid.pinned = "near" if near else "far"
    state.touched.add(aid)
    events: list[Event] = [SunChanged(aid, near)]
    react(state, asteroid, events)
    return events


def scripted_storm(state: GameState, asteroids: list[str]) -> list[Event]:
    """A storm hits these asteroids now, with no forecast (R7)."""
    for aid in asteroids:
        existing_asteroid(state, aid)
    if not state.running:
        return []
    events: list[Event] = []
    storm_hit(state, list(dict.fromkeys(asteroids)), events)
    return events


def scripted_forecast(state: GameState, round_no: int, asteroids: list[str]) -> list[Event]:
    """Schedule a storm over these asteroids for the end-of-round phase of `round_no` (≥ the current round)."""
    for aid in asteroids:
        existing_asteroid(state, aid)
    if round_no < state.round:
        raise SetupError(f"round {round_no} is over: a storm can be forecast for round {state.round} or later")
    if not state.running:
        return []
    events: list[Event] = []
    add_forecast(state, Forecast(round_no, tuple(dict.fromkeys(asteroids))), events)
    return events
