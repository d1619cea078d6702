"""`Observation`: what the players may know about a game (R17), as a lazy, read-only façade over a `Game`.

Creating one costs O(1): nothing is copied. Each question is answered from the live game at the moment it is
asked, with one exception to what the engine knows: the core of an asteroid that no settler or robot has
surveyed, and whose mantle is not drilled through, reads as `UNKNOWN` (R17). Everything else is public
(mantles, orbits and when they next bring an asteroid near, forecasts, positions, cargo, gates).

Views (`AsteroidView`, `SettlerView`, `GateView`) are small read-only wrappers; the collections they hand out
are read-only views of the engine's own (a `KeysView`, a `MappingProxyType`), never copies.
"""

from __future__ import annotations

from collections.abc import Iterator, KeysView, Mapping
from types import MappingProxyType

from ..rules import UNKNOWN, Action, Asteroid, Forecast, Game, Gate, Options, Orbit, Reaction, Refusal, Settler

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure modules run without the development tools
    from ._native import mypyc_attr

__all__ = ["UNKNOWN", "AsteroidView", "GateView", "Observation", "SettlerView"]


class AsteroidView:
    """One asteroid as the players see it (R17). Read-only; reflects the live game."""

    __slots__ = ("_a", "_obs")

    def __init__(self, obs: Observation, asteroid: Asteroid) -> None:
        self._obs = obs
        self._a = asteroid

    @property
    def id(self) -> str:
        """The asteroid's id."""
        return self._a.id

    @property
    def exists(self) -> bool:
        """False once it has exploded (R8)."""
        return self._a.exists

    @property
    def mantle(self) -> int:
        """Layers of rock left (R1)."""
        return self._a.mantle

    @property
    def core(self) -> str:
        """`ice`, `iron`, `carbon`, `uranium`, `hollow`, or `unknown` when nobody has surveyed it (R17)."""
        a = self._a
        return a.core if a.surveyed or a.mantle == 0 else UNKNOWN

    @property
    def surveyed(self) -> bool:
        """A settler or robot has stood on it (R17)."""
        return self._a.surveyed

    @property
    def exposed(self) -> bool:
        """The mantle is 0 (R3)."""
        return self._a.mantle == 0

    @property
    def shelter(self) -> bool:
        """Drilled through and hollow (R4)."""
        return self._a.shelter

    @property
    def exposures(self) -> int:
        """Exposures of its radioactive core counted so far (R6b)."""
        return self._a.exposures

    @property
    def orbit(self) -> Orbit | None:
        """Its orbit (R5), or None when pinned."""
        return self._a.orbit

    @property
    def pinned(self) -> str | None:
        """`near`/`far` when pinned, else None."""
        return self._a.pinned

    @property
    def position(self) -> tuple[float, float] | None:
        """Where it lies in the plane of the belt (the Sun at the origin), if laid out."""
        return self._a.position

    @property
    def index(self) -> int:
        """Its creation order (R8 orders simultaneous explosions by it)."""
        return self._a.index

    @property
    def near(self) -> bool:
        """Near the Sun this round (R5)."""
        return self._obs.near(self._a.id)

    def near_in(self, round_no: int) -> bool:
        """Near the Sun in round `round_no` (orbits are public; a pin is assumed to hold)."""
        return self._obs.near(self._a.id, round_no)

    def next_near(self, round_no: int | None = None) -> int | None:
        """The first round ≥ `round_no` (default: now) in which it is near, or None if never."""
        return self._obs.next_near(self._a.id, round_no)

    @property
    def next_change(self) -> int | None:
        """The next round in which near/far changes, or None (R5)."""
        orbit = self._a.orbit
        return orbit.next_change(self._obs.round) if orbit else None

    @property
    def neighbours(self) -> KeysView[str]:
        """Ids of the neighbouring asteroids (a live read-only view)."""
        return self._a.neighbours.keys()

    @property
    def degree(self) -> int:
        """How many neighbours it has."""
        return len(self._a.neighbours)

    @property
    def gates(self) -> KeysView[str]:
        """Ids of the gates orbiting it."""
        return self._a.gates.keys()

    @property
    def settlers(self) -> KeysView[str]:
        """Ids of the settlers on it."""
        return self._a.settlers.keys()

    @property
    def robots(self) -> KeysView[str]:
        """Ids of the robots on it."""
        return self._a.robots.keys()

    @property
    def ufos(self) -> KeysView[str]:
        """Ids of the UFOs on it."""
        return self._a.ufos.keys()

    @property
    def storm_round(self) -> int | None:
        """The first round whose end a forecast storm hits it in, or None (R7)."""
        return self._obs.storm_round(self._a.id)

    def __repr__(self) -> str:
        return f"<asteroid {self.id} mantle={self.mantle} core={self.core}>"


class SettlerView:
    """One settler as the players see it. Read-only; reflects the live game."""

    __slots__ = ("_s",)

    def __init__(self, settler: Settler) -> None:
        self._s = settler

    @property
    def id(self) -> str:
        """The settler's id."""
        return self._s.id

    @property
    def alive(self) -> bool:
        """False once dead (R10)."""
        return self._s.alive

    @property
    def at(self) -> str | None:
        """The asteroid it stands on (None when dead)."""
        return self._s.at

    @property
    def cargo(self) -> Mapping[str, int]:
        """Units carried, by kind (a read-only view)."""
        return MappingProxyType(self._s.cargo)

    @property
    def carry_total(self) -> int:
        """Units in the hold (gates do not count)."""
        return self._s.carry_total

    @property
    def gates(self) -> tuple[str, ...]:
        """Ids of the gates it carries."""
        return tuple(self._s.gates)

    def __repr__(self) -> str:
        return f"<settler {self.id} at {self.at}>"


class GateView:
    """One gate as the players see it. Read-only; reflects the live game."""

    __slots__ = ("_g", "_obs")

    def __init__(self, obs: Observation, gate: Gate) -> None:
        self._obs = obs
        self._g = gate

    @property
    def id(self) -> str:
        """The gate's id."""
        return self._g.id

    @property
    def partner(self) -> str:
        """The id of the linked gate."""
        return self._g.partner

    @property
    def at(self) -> str | None:
        """The asteroid it orbits, or None."""
        return self._g.at

    @property
    def carrier(self) -> str | None:
        """The settler carrying it, or None."""
        return self._g.carrier

    @property
    def exists(self) -> bool:
        """False once destroyed."""
        return self._g.exists

    @property
    def haywire(self) -> bool:
        """Gone haywire after a storm (E3)."""
        return self._g.haywire

    @property
    def active(self) -> bool:
        """Both gates of the pair exist and are placed (R11)."""
        return self._obs._game.gate_active(self._g.id)

    @property
    def destination(self) -> str | None:
        """Where a move through it leads (the partner's asteroid) when active, else None."""
        return self._obs._game.gates[self._g.partner].at if self.active else None


# Python classes may derive from it (a test's observation offering chosen actions); compiled, a class must say so
@mypyc_attr(allow_interpreted_subclasses=True)
class Observation:
    """What the players may know about `game` now (R17), read lazily from the live game; O(1) to create.

    A bot must not keep an observation across turns expecting it to be frozen: it always shows the game as
    it is. `key` identifies the game and round, for caches that are valid for one round.
    """

    __slots__ = ("_game",)

    def __init__(self, game: Game) -> None:
        self._game = game

    # ----- the game -----
    @property
    def key(self) -> tuple[int, int]:
        """(identity of the game, round): a key for caches valid during one round of one game."""
        return (id(self._game), self._game.round)

    def same_game(self, other: Observation) -> bool:
        """True when both observe the very same game."""
        return self._game is other._game

    @property
    def round(self) -> int:
        """The current round (the first is 1)."""
        return self._game.round

    @property
    def status(self) -> str:
        """`running`, `won` or `lost`."""
        return self._game.status

    @property
    def turn(self) -> str | None:
        """The settler whose step it is (strict turns), else None."""
        return self._game.turn

    @property
    def options(self) -> Options:
        """The rule options in force."""
        return self._game.options

    @property
    def winnable(self) -> bool:
        """R16: whether a win is still possible in principle."""
        return self._game.winnable

    # ----- things -----
    def asteroid(self, aid: str) -> AsteroidView:
        """The asteroid `aid` (KeyError if there is none)."""
        return AsteroidView(self, self._game.asteroids[aid])

    def asteroid_ids(self) -> Iterator[str]:
        """Ids of every existing asteroid, in creation order. O(belt): avoid it per decision on big belts."""
        return (a.id for a in self._game.asteroids.values() if a.exists)

    @property
    def asteroid_count(self) -> int:
        """How many asteroids were ever created (exploded ones included)."""
        return len(self._game.asteroids)

    def settler(self, sid: str) -> SettlerView:
        """The settler `sid` (KeyError if there is none)."""
        return SettlerView(self._game.settlers[sid])

    def settler_ids(self) -> list[str]:
        """Ids of every settler in turn order, the dead included."""
        return list(self._game.settlers)

    def living_settlers(self) -> list[SettlerView]:
        """The living settlers, in turn order."""
        return [SettlerView(s) for s in self._game.settlers.values() if s.alive]

    def robot_at(self, rid: str) -> str | None:
        """Where robot `rid` is (None once destroyed)."""
        return self._game.robots[rid].at

    def robot_ids(self) -> list[str]:
        """Ids of the living robots."""
        return [r.id for r in self._game.robots.values() if r.alive]

    def ufo_at(self, uid: str) -> str | None:
        """Where UFO `uid` is (None once destroyed)."""
        return self._game.ufos[uid].at

    def ufo_ids(self) -> list[str]:
        """Ids of the living UFOs."""
        return [u.id for u in self._game.ufos.values() if u.alive]

    def gate(self, gid: str) -> GateView:
        """The gate `gid` (KeyError if there is none)."""
        return GateView(self, self._game.gates[gid])

    def gate_ids(self) -> list[str]:
        """Ids of every existing gate."""
        return [g.id for g in self._game.gates.values() if g.exists]

    # ----- questions -----
    def core(self, aid: str) -> str:
        """The core of `aid` as the players see it: a kind, `hollow` or `unknown` (R17)."""
        a = self._game.asteroids[aid]
        return a.core if a.surveyed or a.mantle == 0 else UNKNOWN

    def near(self, aid: str, round_no: int | None = None) -> bool:
        """Near the Sun in `round_no` (default: now). A pinned asteroid is assumed to stay pinned."""
        a = self._game.asteroids[aid]
        if a.orbit is None:
            return a.pinned == "near"
        return a.orbit.is_near(self._game.round if round_no is None else round_no)

    def next_near(self, aid: str, round_no: int | None = None) -> int | None:
        """The first round ≥ `round_no` (default: now) in which `aid` is near, or None if never."""
        a = self._game.asteroids[aid]
        start = self._game.round if round_no is None else round_no
        if a.orbit is None:
            return start if a.pinned == "near" else None
        return a.orbit.next_near(start)

    def storm_round(self, aid: str) -> int | None:
        """The first round at whose end a forecast storm hits `aid`, or None (R7)."""
        return self._game.storm_round(aid)

    def reacts_at(self, aid: str) -> int | None:
        """The round at whose end the exposed reactive core of `aid` reacts, or None (R6, E1)."""
        return self._game.reacts_at(aid)

    def reaction(self, aid: str) -> Reaction | None:
        """What the exposed reactive core of `aid` will do, and in how many rounds, or None (R6, E1)."""
        return self._game.reaction(aid)

    @property
    def forecasts(self) -> list[Forecast]:
        """The storms forecast and not yet hit (R7)."""
        return self._game.forecasts

    def exits(self, aid: str) -> list[tuple[str, str]]:
        """(move target, destination) for each neighbour and active gate of `aid`. O(degree)."""
        out = [(n, n) for n in self._game.asteroids[aid].neighbours]
        out.extend(self.gate_exits(aid))
        return out

    def neighbour_ids(self, aid: str) -> KeysView[str]:
        """Ids of the neighbours of `aid` (a live read-only view, O(1))."""
        return self._game.asteroids[aid].neighbours.keys()

    def gate_exits(self, aid: str) -> list[tuple[str, str]]:
        """(gate, destination asteroid) for each active gate orbiting `aid`."""
        game = self._game
        a = game.asteroids[aid]
        if not a.gates:
            return []
        out = []
        for gid in a.gates:
            if game.gate_active(gid):
                dest = game.gates[game.gates[gid].partner].at
                if dest is not None:
                    out.append((gid, dest))
        return out

    def gate_sites(self) -> set[str]:
        """Ids of the asteroids any gate orbits (active or not). O(gates)."""
        return {g.at for g in self._game.gates.values() if g.at is not None}

    def gate_exit_map(self) -> dict[str, list[tuple[str, str]]]:
        """`gate_exits` of every asteroid that has any: asteroid → [(gate, destination)]. O(gates)."""
        out: dict[str, list[tuple[str, str]]] = {}
        for g in self._game.gates.values():
            at = g.at
            if at is not None and at not in out:
                exits = self.gate_exits(at)
                if exits:
                    out[at] = exits
        return out

    def bare_core(self, aid: str) -> str | None:
        """The core of `aid` when its mantle is 0 (exposed, so public), else None."""
        a = self._game.asteroids[aid]
        return a.core if a.mantle == 0 else None

    def legal_actions(self, settler: str) -> list[Action]:
        """Every action `settler` may take now (empty when it cannot act). O(degree)."""
        return self._game.legal_actions(settler)

    def check(self, action: Action) -> Refusal | None:
        """Why the rules refuse `action` now, or None when they accept it. Changes nothing."""
        return self._game.check(action)

    def __repr__(self) -> str:
        return f"<Observation round {self.round} {self.status}>"
