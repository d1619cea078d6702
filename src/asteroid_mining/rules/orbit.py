"""Orbits: when an asteroid is near the Sun (R5)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Orbit:
    """An orbit `P/K/F`: near in round r iff `(r - 1 + F) mod P < K` (R5)."""

    period: int
    window: int
    phase: int

    def __post_init__(self) -> None:
        if self.period < 1:
            raise ValueError(f"orbit period must be at least 1, not {self.period}")
        if not 0 <= self.window <= self.period:
            raise ValueError(f"orbit near-window must be between 0 and {self.period}, not {self.window}")
        if not 0 <= self.phase < self.period:
            raise ValueError(f"orbit phase must be between 0 and {self.period - 1}, not {self.phase}")

    @classmethod
    def parse(cls, text: str) -> Orbit:
        """Read `P/K/F`; raises ValueError with a sentence on a malformed orbit."""
        parts = text.split("/")
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            raise ValueError(f"orbit must be P/K/F with whole numbers, not {text!r}")
        return cls(int(parts[0]), int(parts[1]), int(parts[2]))

    def __str__(self) -> str:
        return f"{self.period}/{self.window}/{self.phase}"

    def is_near(self, round_no: int) -> bool:
        """True when the asteroid is near the Sun in round `round_no` (rounds count from 1)."""
        return (round_no - 1 + self.phase) % self.period < self.window

    def next_near(self, round_no: int) -> int | None:
        """The first round ≥ `round_no` in which the asteroid is near, or None if never."""
        if self.window == 0:
            return None
        t = (round_no - 1 + self.phase) % self.period
        return round_no if t < self.window else round_no + self.period - t

    def next_change(self, round_no: int) -> int | None:
        """The first round after `round_no` in which near/far differs from `round_no`, or None."""
        if self.window in (0, self.period):
            return None
        t = (round_no - 1 + self.phase) % self.period
        return round_no + (self.window - t if t < self.window else self.period - t)
