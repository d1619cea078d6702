"""Events: what happened, as small frozen records with a sentence for players and a JSON form.

The same objects drive the scenario runner's output, the browser's animations and event log, replays and bots.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .records import field_names


class _EventBase:
    """Shared behaviour of every event: its JSON form.

    Each class sets its name after its body: compiled by mypyc, a class variable declared in a dataclass's
    body would reach `dataclasses` as an ordinary field.
    """

    __slots__ = ()
    type: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        """The event as a JSON object with its `type`."""
        out: dict[str, Any] = {"type": self.type}
        for name in field_names(type(self)):
            value = getattr(self, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True, slots=True)
class Moved(_EventBase):
    """An actor flew to another asteroid, maybe through a gate (`via`)."""

    actor: str
    origin: str
    target: str
    via: str | None = None

    def text(self) -> str:
        """The event in words."""
        if self.via:
            return f"{self.actor} travelled from {self.origin} through gate {self.via} to {self.target}"
        return f"{self.actor} moved from {self.origin} to {self.target}"


Moved.type = "moved"


@dataclass(frozen=True, slots=True)
class Drilled(_EventBase):
    """An actor drilled one layer of an asteroid's mantle."""

    actor: str
    asteroid: str
    before: int
    after: int

    def text(self) -> str:
        """The event in words."""
        return f"{self.actor} drilled {self.asteroid} (mantle {self.before} -> {self.after})"


Drilled.type = "drilled"


@dataclass(frozen=True, slots=True)
class Mined(_EventBase):
    """A settler mined the core of an asteroid, or a UFO took it."""

    actor: str
    asteroid: str
    kind: str

    def text(self) -> str:
        """The event in words."""
        return f"{self.actor} mined {self.kind} from {self.asteroid}"


Mined.type = "mined"


@dataclass(frozen=True, slots=True)
class Deposited(_EventBase):
    """A settler put a unit into a hollow core."""

    actor: str
    asteroid: str
    kind: str

    def text(self) -> str:
        """The event in words."""
        return f"{self.actor} deposited {self.kind} into {self.asteroid}"


Deposited.type = "deposited"


@dataclass(frozen=True, slots=True)
class RobotBuilt(_EventBase):
    """A settler built a robot."""

    actor: str
    robot: str
    asteroid: str

    def text(self) -> str:
        """The event in words."""
        return f"{self.actor} built robot {self.robot} on {self.asteroid}"


RobotBuilt.type = "robot_built"


@dataclass(frozen=True, slots=True)
class GatesBuilt(_EventBase):
    """A settler built a linked pair of gates and carries them."""

    actor: str
    first: str
    second: str

    def text(self) -> str:
        """The event in words."""
        return f"{self.actor} built the gate pair {self.first} and {self.second}"


GatesBuilt.type = "gates_built"


@dataclass(frozen=True, slots=True)
class GatePlaced(_EventBase):
    """A settler put a gate into orbit; `active` when its partner was already placed."""

    actor: str
    gate: str
    asteroid: str
    active: bool

    def text(self) -> str:
        """The event in words."""
        tail = " (the pair is now active)" if self.active else ""
        return f"{self.actor} placed gate {self.gate} around {self.asteroid}{tail}"


GatePlaced.type = "gate_placed"


@dataclass(frozen=True, slots=True)
class Waited(_EventBase):
    """An actor did nothing."""

    actor: str

    def text(self) -> str:
        """The event in words."""
        return f"{self.actor} waited"


Waited.type = "waited"


@dataclass(frozen=True, slots=True)
class Sublimated(_EventBase):
    """Exposed ice near the Sun sublimated: the core is hollow, the unit gone (R6a)."""

    asteroid: str

    def text(self) -> str:
        """The event in words."""
        return f"the ice of {self.asteroid} sublimated"


Sublimated.type = "sublimated"


@dataclass(frozen=True, slots=True)
class Exposure(_EventBase):
    """Exposed uranium near the Sun was counted (R6b); at `fuse` the asteroid explodes."""

    asteroid: str
    count: int
    fuse: int

    def text(self) -> str:
        """The event in words."""
        return f"the uranium of {self.asteroid} is exposed near the Sun ({self.count} of {self.fuse})"


Exposure.type = "exposure"


@dataclass(frozen=True, slots=True)
class Exploded(_EventBase):
    """An asteroid exploded and left the belt (R8)."""

    asteroid: str

    def text(self) -> str:
        """The event in words."""
        return f"{self.asteroid} exploded"


Exploded.type = "exploded"


@dataclass(frozen=True, slots=True)
class Died(_EventBase):
    """A settler died (R10); `cause` is `explosion` or `storm`."""

    actor: str
    asteroid: str
    cause: str

    def text(self) -> str:
        """The event in words."""
        if self.cause == "storm":
            return f"{self.actor} died in a solar storm on {self.asteroid}"
        return f"{self.actor} died in the explosion of {self.asteroid}"


Died.type = "died"


@dataclass(frozen=True, slots=True)
class Destroyed(_EventBase):
    """A robot or UFO was destroyed; `cause` is `explosion` or `storm`."""

    actor: str
    asteroid: str
    cause: str

    def text(self) -> str:
        """The event in words."""
        if self.cause == "storm":
            return f"{self.actor} was destroyed by a solar storm on {self.asteroid}"
        return f"{self.actor} was destroyed in the explosion of {self.asteroid}"


Destroyed.type = "destroyed"


@dataclass(frozen=True, slots=True)
class Landed(_EventBase):
    """A robot survived an explosion and landed on a former neighbour (R8)."""

    actor: str
    origin: str
    target: str

    def text(self) -> str:
        """The event in words."""
        return f"{self.actor} was thrown from {self.origin} and landed on {self.target}"


Landed.type = "landed"


@dataclass(frozen=True, slots=True)
class GateDestroyed(_EventBase):
    """A gate was destroyed (its partner is destroyed with it)."""

    gate: str

    def text(self) -> str:
        """The event in words."""
        return f"gate {self.gate} was destroyed"


GateDestroyed.type = "gate_destroyed"


@dataclass(frozen=True, slots=True)
class StormForecast(_EventBase):
    """A solar storm was forecast (R7): it hits `asteroids` in the end-of-round phase of `round`."""

    round: int
    asteroids: tuple[str, ...]
    sector: tuple[float, float] | None = None

    def text(self) -> str:
        """The event in words."""
        where = ", ".join(self.asteroids) if len(self.asteroids) <= 8 else f"{len(self.asteroids)} asteroids"
        return f"a solar storm is forecast to hit {where} at the end of round {self.round}"


StormForecast.type = "storm_forecast"


@dataclass(frozen=True, slots=True)
class StormHit(_EventBase):
    """A solar storm hit these asteroids (R7)."""

    asteroids: tuple[str, ...]

    def text(self) -> str:
        """The event in words."""
        where = ", ".join(self.asteroids) if len(self.asteroids) <= 8 else f"{len(self.asteroids)} asteroids"
        return f"a solar storm hit {where}"


StormHit.type = "storm"


@dataclass(frozen=True, slots=True)
class SunChanged(_EventBase):
    """An asteroid was pinned near or far from the Sun."""

    asteroid: str
    near: bool

    def text(self) -> str:
        """The event in words."""
        return f"{self.asteroid} is now {'near' if self.near else 'far from'} the Sun"


SunChanged.type = "sun"


@dataclass(frozen=True, slots=True)
class WentHaywire(_EventBase):
    """A gate hit by a storm went haywire for good (E3)."""

    gate: str

    def text(self) -> str:
        """The event in words."""
        return f"gate {self.gate} went haywire"


WentHaywire.type = "haywire"


@dataclass(frozen=True, slots=True)
class Drifted(_EventBase):
    """A haywire gate drifted to a neighbouring asteroid (E3)."""

    gate: str
    origin: str
    target: str

    def text(self) -> str:
        """The event in words."""
        return f"haywire gate {self.gate} drifted from {self.origin} to {self.target}"


Drifted.type = "drifted"


@dataclass(frozen=True, slots=True)
class RoundStarted(_EventBase):
    """A new round began (R12 step 2)."""

    round: int

    def text(self) -> str:
        """The event in words."""
        return f"round {self.round} begins"


RoundStarted.type = "round"


@dataclass(frozen=True, slots=True)
class Won(_EventBase):
    """The settlers on an asteroid built the base (R14)."""

    asteroid: str

    def text(self) -> str:
        """The event in words."""
        return f"the settlers on {self.asteroid} built the base: the game is won"


Won.type = "won"


@dataclass(frozen=True, slots=True)
class Lost(_EventBase):
    """Every settler is dead (R15)."""


    def text(self) -> str:
        """The event in words."""
        return "every settler is dead: the game is lost"


Lost.type = "lost"


Event = (
    Moved | Drilled | Mined | Deposited | RobotBuilt | GatesBuilt | GatePlaced | Waited | Sublimated | Exposure
    | Exploded | Died | Destroyed | Landed | GateDestroyed | StormForecast | StormHit | SunChanged | WentHaywire
    | Drifted | RoundStarted | Won | Lost
)
"""Any event."""
