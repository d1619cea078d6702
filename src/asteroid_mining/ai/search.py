"""Bounded breadth-first search over the belt as the players see it (moves and active gates).

Every search is capped in depth and in asteroids visited, so a decision costs the same on a belt of 30 or of
20,000 asteroids; a hub's several hundred links are read once, when the hub itself is expanded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import chain

from .observation import Observation

Passable = Callable[[str, int], bool]
"""`passable(asteroid, distance)`: may the search step onto this asteroid, reached at this distance?"""


@dataclass(slots=True)
class Reach:
    """What a search from `origin` found: distances, the first move of a shortest path, visiting order."""

    origin: str
    dist: dict[str, int] = field(default_factory=dict)
    first: dict[str, str] = field(default_factory=dict)
    """Asteroid → the move target (a neighbour or a gate) of the first step towards it."""
    order: list[str] = field(default_factory=list)
    complete: bool = True
    """False when a cap stopped the search before it ran out of asteroids."""

    def step_towards(self, aid: str) -> str | None:
        """The move target of the first step towards `aid`, or None (unreached, or `aid` is the origin)."""
        return self.first.get(aid)


def search(
    obs: Observation,
    origin: str,
    max_depth: int = 12,
    max_nodes: int = 700,
    passable: Passable | None = None,
) -> Reach:
    """Breadth-first from `origin`, never deeper than `max_depth` moves nor past `max_nodes` asteroids."""
    reach = Reach(origin)
    dist, first, order = reach.dist, reach.first, reach.order
    dist[origin] = 0
    order.append(origin)
    i = 0
    neighbour_ids, gate_exits = obs.neighbour_ids, obs.gate_exits
    while i < len(order):
        aid = order[i]
        i += 1
        d = dist[aid]
        if d >= max_depth:
            reach.complete = False
            continue
        step = None if d == 0 else first[aid]
        # a neighbour is reached by moving to it, an active gate's far side by moving through the gate
        exits = chain(((dest, dest) for dest in neighbour_ids(aid)), gate_exits(aid))
        for target, dest in exits:
            if dest in dist or (passable is not None and not passable(dest, d + 1)):
                continue
            dist[dest] = d + 1
            first[dest] = step or target
            order.append(dest)
            if len(order) >= max_nodes:
                reach.complete = False
                return reach
    return reach
