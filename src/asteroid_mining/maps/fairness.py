"""Is a belt fair to play? What a win needs, and a report of what a belt offers.

The generator builds to these measures and the tests hold it to them; `map check` prints them for any belt
(hand-made puzzles may break them on purpose, so they are warnings there, not errors).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..rules.belt import Belt
from ..rules.materials import GATES_COST, HOLLOW, KINDS, MATERIALS, ROBOT_COST, WIN_TARGET
from .graph import BeltArrays, component_labels, degrees, hops_from, hops_to_nearest, hub_mask

SHELTER_HOPS = 2
"""A fair belt has a hollow asteroid (a shelter to be, R4) within this many moves of almost every asteroid."""
SHELTER_SHARE = 0.95
"""…for at least this share of its asteroids."""
NEAR_SHARE = 0.9
"""A fair belt with orbits brings at least this share of its asteroids near the Sun at some round."""


def needed_units() -> dict[str, int]:
    """Units of each kind a comfortable win uses: the win itself (R14), one robot and one gate pair (R11)."""
    return {k: WIN_TARGET + ROBOT_COST.get(k, 0) + GATES_COST.get(k, 0) for k in KINDS}


@dataclass(frozen=True)
class FairnessReport:
    """What a belt offers to its players, measured."""

    asteroids: int
    links: int
    components: int
    hubs: int
    max_degree: int
    mean_degree: float
    units: dict[str, int]
    """Units of each kind in the cores."""
    usable: dict[str, int]
    """Units that can be mined without a reaction: not reactive on an asteroid that is always near the Sun."""
    needed: dict[str, int] = field(default_factory=needed_units)
    hollow: int = 0
    ready_shelters: int = 0
    """Hollow asteroids with mantle 0: shelters already (R4)."""
    shelter_share: float = 0.0
    """Share of asteroids with a hollow asteroid within `SHELTER_HOPS` moves."""
    near_share: float = 0.0
    """Share of asteroids near the Sun at some round (orbits with a near-window, or pinned near)."""
    has_orbits: bool = False
    start_kinds: int = 0
    """Material kinds within two moves of the start."""
    start_shelter: bool = False

    def warnings(self) -> list[str]:
        """What falls short of a fair belt, as sentences (empty for a fair one)."""
        out = []
        for kind in KINDS:
            if self.usable[kind] < self.needed[kind]:
                out.append(
                    f"only {self.usable[kind]} usable {kind} (a win with a robot and a gate pair takes "
                    f"{self.needed[kind]})"
                )
        if self.components > 1:
            out.append(f"the belt falls apart into {self.components} unconnected parts")
        if self.shelter_share < SHELTER_SHARE:
            out.append(f"only {self.shelter_share:.0%} of the asteroids have a hollow one within {SHELTER_HOPS} moves")
        if self.has_orbits and self.near_share < NEAR_SHARE:
            out.append(f"only {self.near_share:.0%} of the asteroids ever come near the Sun")
        return out


def fairness_report(belt: Belt) -> FairnessReport:
    """Measure a belt."""
    arrays = BeltArrays.of(belt)
    n = arrays.n
    deg = degrees(n, arrays.edges)
    components, _ = component_labels(n, arrays.edges)
    cores = [a.core for a in belt.asteroids]
    units = {k: cores.count(k) for k in KINDS}
    usable = dict(units)
    for a in belt.asteroids:
        orbit = a.orbit
        always_near = a.sun == "near" if orbit is None else orbit.window == orbit.period
        if a.core in MATERIALS and MATERIALS[a.core].reactive and always_near:
            usable[a.core] -= 1
    hollow = np.array([c == HOLLOW for c in cores])
    shelter_dist = hops_to_nearest(n, arrays.edges, hollow)
    near = [(a.orbit.window > 0) if a.orbit is not None else (a.sun == "near") for a in belt.asteroids]
    start = arrays.index[belt.start]
    from_start = hops_from(n, arrays.edges, start)
    start_kinds = len({cores[i] for i in np.flatnonzero(from_start <= 2).tolist()} & set(KINDS))
    start_spec = belt.asteroids[start]
    return FairnessReport(
        asteroids=n,
        links=len(arrays.edges),
        components=components,
        hubs=int(hub_mask(deg).sum()),
        max_degree=int(deg.max()) if n else 0,
        mean_degree=float(deg.mean()) if n else 0.0,
        units=units,
        usable=usable,
        hollow=int(hollow.sum()),
        ready_shelters=sum(1 for a in belt.asteroids if a.core == HOLLOW and a.mantle == 0),
        shelter_share=float(np.mean(shelter_dist <= SHELTER_HOPS)) if n else 0.0,
        near_share=float(np.mean(near)) if n else 0.0,
        has_orbits=any(a.orbit is not None for a in belt.asteroids),
        start_kinds=start_kinds,
        start_shelter=start_spec.core == HOLLOW and start_spec.mantle == 0,
    )
