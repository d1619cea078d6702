"""The game's state: plain records of everything in the belt, and the container that indexes them.

Records are mutable and owned by the engine; other layers read them and never write them.
Destroyed things stay in their dicts (their ids stay taken) with `exists`/`alive` false.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from .materials import HOLLOW, KINDS
from .options import Options
from .orbit import Orbit


def _empty_cargo() -> dict[str, int]:
    return dict.fromkeys(KINDS, 0)


class _Record:
    """What every thing of the belt shares: the `kind` of thing it is, one value per class.

    Each class sets its `kind` after its body: compiled by mypyc, a class variable declared in a dataclass's
    body would reach `dataclasses` as an ordinary field.
    """

    __slots__ = ()
    kind: ClassVar[str]


@dataclass(slots=True, eq=False)
class Asteroid(_Record):
    """An asteroid (R1): mantle, core, orbit or pin (R5), and who is on or around it."""

    id: str
    index: int
    mantle: int
    core: str
    orbit: Orbit | None
    pinned: str | None
    """`near`/`far` when pinned (R5), else None and the orbit decides."""
    position: tuple[float, float] | None = None
    exists: bool = True
    exposures: int = 0
    """Exposures of a radioactive core counted so far (R6b); reset when the unit leaves the core."""
    surveyed: bool = False
    neighbours: dict[str, None] = field(default_factory=dict)
    gates: dict[str, None] = field(default_factory=dict)
    settlers: dict[str, None] = field(default_factory=dict)
    robots: dict[str, None] = field(default_factory=dict)
    ufos: dict[str, None] = field(default_factory=dict)
    moves_text: str | None = None
    """The JSON text of the choices of moves to each neighbour (`json_text`), once written; None until then and
    whenever the links change. The links change only through `link`, `unlink_all` and `set_links`, which forget
    it: nobody else writes `neighbours`."""

    def __init__(self, id: str, index: int, mantle: int, core: str, orbit: Orbit | None,
                 pinned: str | None, position: tuple[float, float] | None = None, exists: bool = True,
                 exposures: int = 0, surveyed: bool = False) -> None:
        # written out: compiled, it is native code (a belt of 100,000 asteroids makes as many); the one
        # `dataclasses` would generate stays interpreted. The sets of ids start empty.
        self.id = id
        self.index = index
        self.mantle = mantle
        self.core = core
        self.orbit = orbit
        self.pinned = pinned
        self.position = position
        self.exists = exists
        self.exposures = exposures
        self.surveyed = surveyed
        self.neighbours = {}
        self.gates = {}
        self.settlers = {}
        self.robots = {}
        self.ufos = {}
        self.moves_text = None

    def link(self, other: Asteroid) -> None:
        """Make this asteroid and `other` neighbours (R2); linking twice changes nothing."""
        self.neighbours[other.id] = None
        other.neighbours[self.id] = None
        self.moves_text = other.moves_text = None

    def unlink_all(self, asteroids: dict[str, Asteroid]) -> list[str]:
        """Remove every link of this asteroid (on both ends; `asteroids` holds its neighbours); the ids of the
        former neighbours, in order."""
        former = list(self.neighbours)
        for other in former:
            neighbour = asteroids[other]
            del neighbour.neighbours[self.id]
            neighbour.moves_text = None
        self.neighbours.clear()
        self.moves_text = None
        return former

    def set_links(self, links: dict[str, None]) -> None:
        """Take `links` as the neighbours (a saved game's, read back: each end lists the other)."""
        self.neighbours = links
        self.moves_text = None

    @property
    def exposed(self) -> bool:
        """The core is exposed: the mantle is 0 (R3)."""
        return self.mantle == 0

    @property
    def shelter(self) -> bool:
        """Drilled through with a hollow core (R4)."""
        return self.exists and self.mantle == 0 and self.core == HOLLOW


Asteroid.kind = "asteroid"


@dataclass(slots=True, eq=False)
class Settler(_Record):
    """A settler in a one-person spaceship (R9–R11)."""

    id: str
    index: int
    at: str | None
    alive: bool = True
    cargo: dict[str, int] = field(default_factory=_empty_cargo)
    gates: list[str] = field(default_factory=list)

    @property
    def carry_total(self) -> int:
        """Units of material in the cargo hold (gates do not count)."""
        # a loop, not `sum(...)`: compiled, it is native code (`sum` goes through the interpreter's builtin),
        # and every decision of a settler asks it
        total = 0
        for n in self.cargo.values():
            total += n
        return total


Settler.kind = "settler"


@dataclass(slots=True, eq=False)
class Robot(_Record):
    """An AI robot (R13): moves and drills, carries nothing."""

    id: str
    index: int
    at: str | None
    alive: bool = True
    ai: bool = True


Robot.kind = "robot"


@dataclass(slots=True, eq=False)
class Ufo(_Record):
    """A UFO (E2): takes exposed cores, wanders, never drills; its hold has no limit."""

    id: str
    index: int
    at: str | None
    alive: bool = True
    ai: bool = True
    cargo: dict[str, int] = field(default_factory=_empty_cargo)

    @property
    def carry_total(self) -> int:
        """Units in the UFO's hold."""
        total = 0
        for n in self.cargo.values():  # a loop, as `Settler.carry_total`
            total += n
        return total


Ufo.kind = "ufo"


@dataclass(slots=True, eq=False)
class Gate(_Record):
    """One gate of a linked pair (R11): carried by a settler or orbiting an asteroid."""

    id: str
    index: int
    partner: str
    at: str | None = None
    carrier: str | None = None
    exists: bool = True
    haywire: bool = False


Gate.kind = "gate"


@dataclass(frozen=True, slots=True)
class Forecast:
    """A storm scheduled to hit `asteroids` in the end-of-round phase of `round` (R7)."""

    round: int
    asteroids: tuple[str, ...]
    sector: tuple[float, float] | None = None
    """(start angle, width) in degrees for a storm over a sector of a laid-out belt."""

    def __init__(self, round: int, asteroids: tuple[str, ...], sector: tuple[float, float] | None = None) -> None:
        # written out: compiled, it is native code (the one `dataclasses` would generate stays interpreted)
        object.__setattr__(self, "round", round)
        object.__setattr__(self, "asteroids", asteroids)
        object.__setattr__(self, "sector", sector)


class Recorded(Protocol):
    """An accepted input kept in the history as it was given (an action), written as JSON when read."""

    def to_json(self) -> dict[str, Any]:
        """The input's JSON form."""
        ...


def history_json(history: list[dict[str, object] | Recorded]) -> list[dict[str, object]]:
    """The history as JSON objects: applied actions are kept as records and written out only when asked."""
    return [entry if isinstance(entry, dict) else entry.to_json() for entry in history]


Thing = Asteroid | Settler | Robot | Ufo | Gate
"""Anything with an id."""

GAME_STATUSES = ("running", "won", "lost")


@dataclass(slots=True, eq=False)
class GameState:
    """Everything in a game. Indexes (`hot`, `watch`, `storm_at`, counters) are derived and rebuilt on load."""

    options: Options
    rng: random.Random
    scripted: bool
    storm_sector: float = 30.0
    round: int = 1
    status: str = "running"
    turn: str | None = None
    asteroids: dict[str, Asteroid] = field(default_factory=dict)
    settlers: dict[str, Settler] = field(default_factory=dict)
    robots: dict[str, Robot] = field(default_factory=dict)
    ufos: dict[str, Ufo] = field(default_factory=dict)
    gates: dict[str, Gate] = field(default_factory=dict)
    things: dict[str, Thing] = field(default_factory=dict)
    """Every id ever used, to the thing it names."""
    forecasts: list[Forecast] = field(default_factory=list)
    history: list[dict[str, object] | Recorded] = field(default_factory=list)
    """Accepted inputs (actions and round ends), for replays."""
    # --- derived indexes ---
    settler_order: list[str] = field(default_factory=list)
    living: int = 0
    core_units: dict[str, int] = field(default_factory=_empty_cargo)
    """Units of each kind in the cores of existing asteroids (R16)."""
    cargo_units: dict[str, int] = field(default_factory=_empty_cargo)
    """Units of each kind in living settlers' cargo (R16)."""
    hot: dict[str, None] = field(default_factory=dict)
    """Asteroids near the Sun with an exposed radioactive core: counted at each round start (R6b)."""
    watch: dict[int, list[str]] = field(default_factory=dict)
    """Round → far asteroids with an exposed reactive core whose orbit brings them near then (R6)."""
    storm_at: dict[str, int] = field(default_factory=dict)
    """Asteroid → the first round a forecast storm hits it."""
    angles: list[float] = field(default_factory=list)
    angle_ids: list[str] = field(default_factory=list)
    """Asteroids of a laid-out belt sorted by their angle seen from the Sun, for storm sectors (R7)."""
    next_name: dict[str, int] = field(default_factory=dict)
    touched: set[str] = field(default_factory=set)
    """Ids of the things whose view entry may have changed since `Game.take_touched` last took them."""

    def is_near(self, asteroid: Asteroid) -> bool:
        """True when the asteroid is near the Sun in the current round (R5)."""
        if asteroid.orbit is None:
            return asteroid.pinned == "near"
        return asteroid.orbit.is_near(self.round)

    def gate_active(self, gate: Gate) -> bool:
        """A gate is active when it and its partner exist and both orbit an asteroid (R11)."""
        if not gate.exists or gate.at is None:
            return False
        partner = self.gates[gate.partner]
        return partner.exists and partner.at is not None

    def fresh_ids(self, prefix: str, count: int) -> list[str]:
        """The `count` lowest-numbered ids `prefixN` not taken.

        Ids are never freed, so the lowest free number only grows: the search resumes where it last began.
        """
        n = self.next_name.get(prefix, 1)
        found: list[str] = []
        while len(found) < count:
            if f"{prefix}{n}" not in self.things:
                if not found:
                    self.next_name[prefix] = n
                found.append(f"{prefix}{n}")
            n += 1
        return found

    def next_index(self) -> int:
        """The creation index of the next new thing (creation order decides R8's and R9's orders)."""
        return len(self.things)

    @property
    def running(self) -> bool:
        """True until the game is won or lost."""
        return self.status == "running"
