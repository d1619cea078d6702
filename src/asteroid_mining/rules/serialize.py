"""A game as a versioned JSON document, and back, exactly (`to_json(from_json(doc)) == doc`).

Derived indexes (hot cores, watched orbits, storm lookups, counters) are not stored: they are rebuilt on load.
"""

from __future__ import annotations

import random
import sys
from typing import Any, NoReturn, TypeVar

from .effects import reactive_exposed, schedule_watch
from .errors import GameFormatError
from .ids import all_ids, id_problem
from .materials import CORES, KINDS, MATERIALS
from .options import OptionError, Options
from .orbit import Orbit
from .state import Asteroid, Forecast, GameState, Gate, Robot, Settler, Thing, Ufo, history_json
from .storms import index_angles, rebuild_storm_index

_FLOAT_MAX = sys.float_info.max
"""A position's coordinate beyond this is no float (a whole number too large)."""
FORMAT = "asteroid-mining/game"
VERSION = 1
T = TypeVar("T")


def state_to_json(state: GameState) -> dict[str, Any]:
    """The whole state as JSON-ready data."""
    version, internal, gauss = state.rng.getstate()
    return {
        "format": FORMAT,
        "version": VERSION,
        "options": state.options.to_json(),
        "scripted": state.scripted,
        "storm_sector": state.storm_sector,
        "round": state.round,
        "status": state.status,
        "turn": state.turn,
        "rng": [version, list(internal), gauss],
        "asteroids": [
            {
                "id": a.id,
                "mantle": a.mantle,
                "core": a.core,
                "orbit": str(a.orbit) if a.orbit else None,
                "pinned": a.pinned,
                "position": list(a.position) if a.position else None,
                "exists": a.exists,
                "exposures": a.exposures,
                "surveyed": a.surveyed,
                "neighbours": list(a.neighbours),
            }
            for a in state.asteroids.values()
        ],
        "settlers": [
            {"id": s.id, "at": s.at, "alive": s.alive, "cargo": dict(s.cargo), "gates": list(s.gates)}
            for s in state.settlers.values()
        ],
        "robots": [{"id": r.id, "at": r.at, "alive": r.alive, "ai": r.ai} for r in state.robots.values()],
        "ufos": [
            {"id": u.id, "at": u.at, "alive": u.alive, "ai": u.ai, "cargo": dict(u.cargo)}
            for u in state.ufos.values()
        ],
        "gates": [
            {"id": g.id, "partner": g.partner, "at": g.at, "carrier": g.carrier, "exists": g.exists,
             "haywire": g.haywire}
            for g in state.gates.values()
        ],
        "order": [t.kind[0] for t in state.things.values()],
        "forecasts": [
            {"round": f.round, "asteroids": list(f.asteroids), "sector": list(f.sector) if f.sector else None}
            for f in state.forecasts
        ],
        "history": history_json(state.history),
    }


class _Reader:
    """Typed access to a JSON document that names the path of the first problem."""

    def __init__(self, doc: Any) -> None:
        self.doc = doc

    @staticmethod
    def get(obj: Any, path: str, key: str, kind: type[T] | tuple[type, ...], nullable: bool = False) -> Any:
        try:
            value = obj[key]
        except (KeyError, TypeError):
            if not isinstance(obj, dict):
                raise GameFormatError(path, "must be an object") from None
            raise GameFormatError(f"{path}.{key}" if path else key, "is missing") from None
        if value is None and nullable:
            return None
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            where = f"{path}.{key}" if path else key
            if isinstance(value, bool):
                raise GameFormatError(where, f"must be {_name(kind)}, not a boolean")
            raise GameFormatError(where, f"must be {_name(kind)}")
        return value

    @staticmethod
    def items(obj: Any, path: str, key: str) -> list[tuple[str, Any]]:
        values = _Reader.get(obj, path, key, list)
        where = f"{path}.{key}" if path else key
        return [(f"{where}[{i}]", v) for i, v in enumerate(values)]


def _name(kind: type | tuple[type, ...]) -> str:
    names = {int: "a whole number", str: "a string", bool: "true or false", list: "a list", dict: "an object",
             float: "a number"}
    if isinstance(kind, tuple):
        return " or ".join(names.get(k, k.__name__) for k in kind)
    return names.get(kind, kind.__name__)


def _check(condition: bool, path: str, reason: str) -> None:
    if not condition:
        raise GameFormatError(path, reason)


def state_from_json(doc: Any, at_once: bool = True) -> GameState:
    """Rebuild a state from `state_to_json`'s document; GameFormatError names the JSON path of a problem.

    The big parts (the asteroids, their neighbours, the order of things) are read at once when nothing is wrong
    with them, which is the usual case; at the first doubt they are read again one element at a time, which
    names the first problem. `at_once=False` reads everything one element at a time: the reference that the
    reading at once must agree with (the tests compare the two).
    """
    return _state_from_json(doc, at_once)


_Pending = dict[str, tuple[Thing, str]]
"""The things other than asteroids, by id: each with the JSON path of its object."""


def _state_from_json(doc: Any, at_once: bool) -> GameState:
    get, items = _Reader.get, _Reader.items
    _check(isinstance(doc, dict), "", "a saved game must be a JSON object")
    _check(doc.get("format") == FORMAT, "format", f"must be {FORMAT!r}: this is not a saved game")
    version = get(doc, "", "version", int)
    _check(version <= VERSION, "version", f"{version} is newer than this game understands ({VERSION})")
    _check(version >= 1, "version", "must be at least 1")
    try:
        options = Options.from_json(get(doc, "", "options", dict))
    except OptionError as exc:
        raise GameFormatError("options", str(exc)) from None
    rng = random.Random()
    raw = get(doc, "", "rng", list)
    try:
        rng.setstate((raw[0], tuple(raw[1]), raw[2]))
    except (ValueError, TypeError, IndexError):
        raise GameFormatError("rng", "is not a generator state") from None
    state = GameState(options, rng, get(doc, "", "scripted", bool),
                      float(get(doc, "", "storm_sector", (int, float))))
    state.round = get(doc, "", "round", int)
    _check(state.round >= 1, "round", "must be at least 1")
    state.status = get(doc, "", "status", str)
    _check(state.status in ("running", "won", "lost"), "status", "must be running, won or lost")
    state.turn = get(doc, "", "turn", str, nullable=True)

    raw_asteroids = get(doc, "", "asteroids", list)
    read = _asteroids_at_once(raw_asteroids) if at_once else None
    known, neighbour_lists = read if read is not None else _asteroids_one_by_one(raw_asteroids)
    pending: _Pending = {}
    for path, obj in items(doc, "", "settlers"):
        sid = _new_id(path, obj, known, pending)
        pending[sid] = (Settler(sid, 0, get(obj, path, "at", str, nullable=True), get(obj, path, "alive", bool),
                                _cargo(get(obj, path, "cargo", dict), f"{path}.cargo"),
                                [g for g in get(obj, path, "gates", list)]), path)
    for path, obj in items(doc, "", "robots"):
        rid = _new_id(path, obj, known, pending)
        pending[rid] = (Robot(rid, 0, get(obj, path, "at", str, nullable=True), get(obj, path, "alive", bool),
                              get(obj, path, "ai", bool)), path)
    for path, obj in items(doc, "", "ufos"):
        uid = _new_id(path, obj, known, pending)
        pending[uid] = (Ufo(uid, 0, get(obj, path, "at", str, nullable=True), get(obj, path, "alive", bool),
                            get(obj, path, "ai", bool), _cargo(get(obj, path, "cargo", dict), f"{path}.cargo")),
                        path)
    for path, obj in items(doc, "", "gates"):
        gid = _new_id(path, obj, known, pending)
        pending[gid] = (Gate(gid, 0, get(obj, path, "partner", str), get(obj, path, "at", str, nullable=True),
                             get(obj, path, "carrier", str, nullable=True), get(obj, path, "exists", bool),
                             get(obj, path, "haywire", bool)), path)

    _restore_order(state, doc, known, pending, at_once)
    _link_everything(state, pending, neighbour_lists, at_once)
    for path, obj in items(doc, "", "forecasts"):
        ids = get(obj, path, "asteroids", list)
        for i, aid in enumerate(ids):
            _check(aid in state.asteroids, f"{path}.asteroids[{i}]", f"{aid!r} is not an asteroid")
        sector = get(obj, path, "sector", list, nullable=True)
        if sector is not None:
            _check(len(sector) == 2 and all(type(v) in (int, float) for v in sector), f"{path}.sector",
                   "must be [start, width]")
        state.forecasts.append(Forecast(get(obj, path, "round", int), tuple(ids),
                                        (float(sector[0]), float(sector[1])) if sector else None))
    history = get(doc, "", "history", list)
    for i, entry in enumerate(history):  # a long game's history: its paths are written only for a problem
        if not (isinstance(entry, dict) and isinstance(entry.get("type"), str)):
            raise GameFormatError(f"history[{i}]", "must be an action object")
    state.history.extend(history)
    _rebuild_indexes(state)
    if state.turn is not None:
        _check(state.turn in state.settlers and state.settlers[state.turn].alive, "turn",
               f"{state.turn!r} is not a living settler")
    return state


def _new_id(path: str, obj: Any, known: dict[str, Asteroid], pending: _Pending) -> str:
    tid: str = _Reader.get(obj, path, "id", str)
    problem = id_problem(tid)
    _check(problem is None, f"{path}.id", problem or "")
    _check(tid not in known and tid not in pending, f"{path}.id", f"{tid!r} is used twice")
    return tid


def _asteroid(obj: Any, orbits: dict[str, Orbit]) -> Asteroid | None:
    """The one reader of an asteroid's fields: its record, or None at the first doubt (then `_asteroid_problem`
    names it). A field added to the asteroids' JSON is read here, and written in `state_to_json`.

    Every field is taken and checked in one go, without a path or a message for each (a belt of 100,000
    asteroids has a million fields). Its neighbours are checked to be a list and left for the linking. `orbits`:
    the orbits read so far by their text (belts share a few hundred: each text is parsed once).
    """
    if type(obj) is not dict:
        return None
    try:
        aid = obj["id"]
        mantle = obj["mantle"]
        core = obj["core"]
        exists = obj["exists"]
        exposures = obj["exposures"]
        surveyed = obj["surveyed"]
        if (type(aid) is not str or type(mantle) is not int or mantle < 0 or type(core) is not str
                or core not in CORES or type(exists) is not bool or type(exposures) is not int
                or type(surveyed) is not bool or type(obj["neighbours"]) is not list):
            return None
        orbit_text = obj["orbit"]
        orbit: Orbit | None = None
        if orbit_text is not None:
            if type(orbit_text) is not str:
                return None
            orbit = orbits.get(orbit_text)
            if orbit is None:
                orbit = orbits[orbit_text] = Orbit.parse(orbit_text)
        pinned = obj["pinned"]
        if pinned is not None and type(pinned) is not str:
            return None
        if (orbit is None) != (pinned == "near" or pinned == "far"):
            return None
        pos = obj["position"]
        position: tuple[float, float] | None = None
        if pos is not None:
            if type(pos) is not list or len(pos) != 2:
                return None
            x, y = pos[0], pos[1]
            if (type(x) is not float and type(x) is not int) or (type(y) is not float and type(y) is not int):
                return None
            position = (float(x), float(y))
    except (KeyError, ValueError, OverflowError):  # a missing field, a bad orbit, a position beyond floats
        return None
    return Asteroid(aid, 0, mantle, core, orbit, pinned, position, exists, exposures, surveyed)


def _asteroid_problem(obj: Any, path: str) -> NoReturn:
    """Names what `_asteroid` doubted in `obj`, at `path`: GameFormatError, field by field in the document's
    order (a reason it does not know of is still an error naming the asteroid)."""
    get = _Reader.get
    problem = id_problem(get(obj, path, "id", str))
    _check(problem is None, f"{path}.id", problem or "")
    orbit_text = get(obj, path, "orbit", str, nullable=True)
    orbit: Orbit | None = None
    if orbit_text is not None:
        try:
            orbit = Orbit.parse(orbit_text)
        except ValueError as bad_orbit:  # not `exc`: compiled, one name keeps one exception type
            raise GameFormatError(f"{path}.orbit", str(bad_orbit)) from None
    pinned = get(obj, path, "pinned", str, nullable=True)
    _check((orbit is None) == (pinned in ("near", "far")), f"{path}.pinned",
           "must be near or far exactly when there is no orbit")
    core = get(obj, path, "core", str)
    _check(core in CORES, f"{path}.core", f"{core!r} is not a core")
    _check(get(obj, path, "mantle", int) >= 0, f"{path}.mantle", "cannot be negative")
    pos = get(obj, path, "position", list, nullable=True)
    if pos is not None:
        _check(len(pos) == 2 and all(type(v) in (int, float) for v in pos), f"{path}.position", "must be [x, y]")
        _check(all(abs(v) <= _FLOAT_MAX for v in pos), f"{path}.position", "must be [x, y]")
    get(obj, path, "exists", bool)
    get(obj, path, "exposures", int)
    get(obj, path, "surveyed", bool)
    get(obj, path, "neighbours", list)
    raise GameFormatError(path, "is not an asteroid this game can read")


def _asteroids_one_by_one(items: list[Any]) -> tuple[dict[str, Asteroid], list[list[Any]]]:
    """The asteroids and their lists of neighbours, read one by one: GameFormatError at the first problem."""
    known: dict[str, Asteroid] = {}
    neighbour_lists: list[list[Any]] = []
    orbits: dict[str, Orbit] = {}
    for i, obj in enumerate(items):
        path = f"asteroids[{i}]"
        asteroid = _asteroid(obj, orbits)
        if asteroid is None:
            _asteroid_problem(obj, path)
        aid = asteroid.id
        problem = id_problem(aid)
        _check(problem is None, f"{path}.id", problem or "")
        _check(aid not in known, f"{path}.id", f"{aid!r} is used twice")
        known[aid] = asteroid
        neighbour_lists.append(obj["neighbours"])
    return known, neighbour_lists


def _asteroids_at_once(items: list[Any]) -> tuple[dict[str, Asteroid], list[list[Any]]] | None:
    """What `_asteroids_one_by_one` gives, when nothing is wrong; None at the first doubt (the same reader of
    each asteroid, `_asteroid`, and the ids checked in one match rather than one by one)."""
    known: dict[str, Asteroid] = {}
    neighbour_lists: list[list[Any]] = []
    ids: list[str] = []
    orbits: dict[str, Orbit] = {}
    for item in items:
        asteroid = _asteroid(item, orbits)
        if asteroid is None:
            return None
        known[asteroid.id] = asteroid
        ids.append(asteroid.id)
        neighbour_lists.append(item["neighbours"])
    if len(known) != len(ids) or not all_ids(ids):  # an id used twice, or not an id
        return None
    return known, neighbour_lists


def _cargo(obj: dict[str, Any], path: str) -> dict[str, int]:
    _check(set(obj) == set(KINDS), path, f"must have exactly the kinds {', '.join(KINDS)}")
    for kind in KINDS:
        _check(isinstance(obj[kind], int) and not isinstance(obj[kind], bool) and obj[kind] >= 0,
               f"{path}.{kind}", "must be a whole number ≥ 0")
    return {k: obj[k] for k in KINDS}


def _restore_order(state: GameState, doc: dict[str, Any], known: dict[str, Asteroid], pending: _Pending,
                   at_once: bool) -> None:
    """Re-create `things` in creation order, from the per-kind lists and the `order` string of kind letters."""
    order = _Reader.get(doc, "", "order", list)
    asteroids: list[Thing] = list(known.values())
    queues: dict[str, list[Thing]] = {"a": asteroids, "s": [], "r": [], "u": [], "g": []}
    for thing, _ in pending.values():
        queues[thing.kind[0]].append(thing)
    _check(len(order) == len(known) + len(pending), "order", "must name every thing once")
    positions = dict.fromkeys(queues, 0)
    things = state.things
    if at_once and all(order.count(letter) == len(queue) for letter, queue in queues.items()):
        # every entry is one of the letters, each as often as there are such things: nothing can go wrong
        next_asteroid = 0
        for i, letter in enumerate(order):
            thing = asteroids[next_asteroid] if letter == "a" else queues[letter][positions[letter]]
            if letter == "a":
                next_asteroid += 1
            else:
                positions[letter] += 1
            thing.index = i
            things[thing.id] = thing
    else:
        for i, letter in enumerate(order):
            queue = queues.get(letter) if isinstance(letter, str) else None
            _check(queue is not None and positions[letter] < len(queue), f"order[{i}]",
                   "does not match the lists of things")
            assert queue is not None
            thing = queue[positions[letter]]
            positions[letter] += 1
            thing.index = i
            things[thing.id] = thing
    state.asteroids = known
    for thing, _ in pending.values():
        if isinstance(thing, Settler):
            state.settlers[thing.id] = thing
        elif isinstance(thing, Robot):
            state.robots[thing.id] = thing
        elif isinstance(thing, Ufo):
            state.ufos[thing.id] = thing
        elif isinstance(thing, Gate):
            state.gates[thing.id] = thing


def _link_asteroids_at_once(known: dict[str, Asteroid], neighbour_lists: list[list[Any]]) -> bool:
    """Every asteroid's neighbours, when they are sound (see `_link_asteroids`); False at the first doubt.

    One pass, one look-up per entry, which also gives the neighbour's own id string: the sets of neighbours
    hold the asteroids' ids rather than the document's copies (a belt of 100,000 asteroids lists millions),
    and a later look-up for that id finds it by identity. An entry pointing back to an asteroid read before
    is looked for in that one's neighbours; when every such entry is found, and the entries pointing forward
    are exactly as many, every entry pointing forward is the reverse of one pointing back (the reverses are
    distinct), so every link is mutual.
    """
    forward = back = 0
    for asteroid, neighbours in zip(known.values(), neighbour_lists, strict=True):
        aid, here = asteroid.id, asteroid.index
        links: dict[str, None] = {}
        for other in neighbours:
            if type(other) is not str:
                return False
            there = known.get(other)
            if there is None:
                return False
            if there.index < here:
                if aid not in there.neighbours:
                    return False
                back += 1
            elif there.index == here:
                return False
            else:
                forward += 1
            links[there.id] = None
        if len(links) != len(neighbours):  # an entry listed twice
            return False
        asteroid.set_links(links)
    return forward == back


def _link_asteroids(known: dict[str, Asteroid], neighbour_lists: list[list[Any]]) -> None:
    """Every asteroid's neighbours: other asteroids, each listed once, each link listed at both ends.

    The usual case costs two dictionary look-ups per entry (the new dict, then half of the entries look up
    their neighbour and its own neighbours); only when something is wrong does `_name_bad_link` look again,
    entry by entry, to name the first problem.
    """
    sound = True
    for (aid, asteroid), neighbours in zip(known.items(), neighbour_lists, strict=True):
        if not all(type(other) is str for other in neighbours):
            sound = False
            break
        links: dict[str, None] = dict.fromkeys(neighbours)
        if len(links) != len(neighbours) or aid in links:
            sound = False
            break
        asteroid.set_links(links)
    if sound:
        # Each link is looked up from its end with the smaller id only: when every such entry's reverse is
        # there, and the entries pointing down are exactly as many as those pointing up, every entry pointing
        # down is the reverse of one pointing up (the reverses are distinct), so every link is mutual and every
        # listed id an asteroid.
        up = down = 0
        for aid, asteroid in known.items():
            for other in asteroid.neighbours:
                if other < aid:
                    down += 1
                    continue
                up += 1
                there = known.get(other)
                if there is None or aid not in there.neighbours:
                    sound = False
                    break
            if not sound:
                break
        sound = sound and up == down
    if not sound:
        _name_bad_link(known, neighbour_lists)


def _name_bad_link(known: dict[str, Asteroid], neighbour_lists: list[list[Any]]) -> None:
    """Raise GameFormatError naming the first bad neighbour entry (in the order of the document)."""
    for n, (aid, neighbours) in enumerate(zip(known, neighbour_lists, strict=True)):
        for i, other in enumerate(neighbours):
            _check(isinstance(other, str) and other in known and other != aid,
                   f"asteroids[{n}].neighbours[{i}]", f"{other!r} is not another asteroid")
            _check(other not in neighbours[:i], f"asteroids[{n}].neighbours[{i}]", f"{other!r} is listed twice")
    lists = dict(zip(known, neighbour_lists, strict=True))
    for n, aid in enumerate(known):
        for other in lists[aid]:
            if aid not in lists[other]:
                raise GameFormatError(f"asteroids[{n}].neighbours", f"the link to {other} is not mutual")
    raise AssertionError("_name_bad_link found nothing wrong")


def _link_everything(state: GameState, pending: _Pending, neighbour_lists: list[list[Any]], at_once: bool) -> None:
    known = state.asteroids
    if not (at_once and _link_asteroids_at_once(known, neighbour_lists)):
        _link_asteroids(known, neighbour_lists)
    for kind_dict in (state.settlers, state.robots, state.ufos):
        for tid, actor in kind_dict.items():
            path = pending[tid][1]
            if actor.alive:
                _check(actor.at in state.asteroids and state.asteroids[actor.at].exists, f"{path}.at",
                       "a living actor must stand on an existing asteroid")
                assert actor.at is not None
                where = state.asteroids[actor.at]
                {"settler": where.settlers, "robot": where.robots, "ufo": where.ufos}[actor.kind][tid] = None
            else:
                _check(actor.at is None, f"{path}.at", "must be null for a dead or destroyed actor")
    for gid, gate in state.gates.items():
        path = pending[gid][1]
        _check(gate.partner in state.gates and state.gates[gate.partner].partner == gid, f"{path}.partner",
               "must name a gate whose partner is this gate")
        if gate.at is not None:
            _check(gate.at in state.asteroids and state.asteroids[gate.at].exists, f"{path}.at",
                   "must be an existing asteroid")
            state.asteroids[gate.at].gates[gid] = None
        if gate.carrier is not None:
            _check(gate.carrier in state.settlers and gid in state.settlers[gate.carrier].gates,
                   f"{path}.carrier", "must be a settler that lists this gate")
    for sid, settler in state.settlers.items():
        for i, gid in enumerate(settler.gates):
            _check(gid in state.gates and state.gates[gid].carrier == sid, f"{pending[sid][1]}.gates[{i}]",
                   "must be a gate this settler carries")
    # gates orbit an asteroid in the order they were made: each asteroid's sorted once (sorting it again for each
    # of its gates made a belt of 1,000 gate pairs around two asteroids cost 0.3 s of CPU to load)
    for aid in {gate.at for gate in state.gates.values() if gate.at is not None}:
        where = state.asteroids[aid]
        if len(where.gates) > 1:
            where.gates = dict(sorted(where.gates.items(), key=lambda kv: state.gates[kv[0]].index))


def _rebuild_indexes(state: GameState) -> None:
    state.settler_order = list(state.settlers)
    state.living = sum(1 for s in state.settlers.values() if s.alive)
    for kind in KINDS:
        state.core_units[kind] = 0
        state.cargo_units[kind] = 0
    for a in state.asteroids.values():
        if a.exists and a.core in MATERIALS:
            state.core_units[a.core] += 1
        if reactive_exposed(a):
            if state.is_near(a):
                state.hot[a.id] = None
            else:
                schedule_watch(state, a)
    for s in state.settlers.values():
        if s.alive:
            for kind in KINDS:
                state.cargo_units[kind] += s.cargo[kind]
    rebuild_storm_index(state)
    index_angles(state)
