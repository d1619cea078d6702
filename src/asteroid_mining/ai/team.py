"""What the team still needs for a win (R14), and who is already getting what.

Everything here is derived from the observation at each call; the only memory is the claims a planner keeps
for the settlers it controls, which are re-checked against the game every time they are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from ..rules import KINDS, WIN_TARGET
from .observation import Observation, SettlerView


def team_needs(obs: Observation) -> dict[str, int]:
    """Units of each kind the living settlers still lack for a win, counting their cargo alone."""
    need = dict.fromkeys(KINDS, WIN_TARGET)
    for s in obs.living_settlers():
        for kind, n in s.cargo.items():
            need[kind] -= n
    return {k: max(0, n) for k, n in need.items()}


@dataclass(frozen=True, slots=True)
class Claim:
    """A settler is on its way to get one unit of `kind` (None: to survey) from `target`, by round `finish`."""

    target: str
    kind: str | None
    finish: int


def covering_group(settlers: list[SettlerView]) -> list[SettlerView] | None:
    """The smallest group of settlers whose cargo together holds 3 of every kind (fewest units first)."""
    for size in range(1, len(settlers) + 1):
        best: tuple[int, tuple[SettlerView, ...]] | None = None
        for group in combinations(settlers, size):
            if all(sum(s.cargo[k] for s in group) >= WIN_TARGET for k in KINDS):
                units = sum(s.carry_total for s in group)
                if best is None or units < best[0]:
                    best = (units, group)
        if best is not None:
            return list(best[1])
    return None
