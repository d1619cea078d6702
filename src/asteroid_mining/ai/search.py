"""Bounded breadth-first search over the belt as the players see it (moves and active gates).

Every search is capped in depth and in asteroids visited, so a decision costs the same on a belt of 30 or of
20,000 asteroids; a hub's several hundred links are read once, when the hub itself is expanded.

A search may be *lazy* (`search(..., lazy=True)`): it then expands asteroids only as far as its reader asks
(`walk` hands out the asteroids in visiting order, expanding as it goes; `step_towards` expands until it finds
its target). What it finds is the same as the eager search's, in the same order; only the part nobody asks for
is never computed. The planner mostly needs the few nearest asteroids of a belt, so most of a search is saved.
A lazy search reads the game when it expands: it is valid while the game does not change (one decision).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from .observation import Observation

Passable = Callable[[str, int], bool]
"""`passable(asteroid, distance)`: may the search step onto this asteroid, reached at this distance?"""


class Reach:
    """What a search from `origin` found: distances, the first move of a shortest path, visiting order.

    `dist`, `first`, `order` and `complete` are the whole search's (reading them finishes a lazy search).
    """

    __slots__ = ("_complete", "_dist", "_first", "_gates", "_max_depth", "_max_nodes", "_neighbours", "_next",
                 "_open", "_order", "_passable", "origin")

    def __init__(self, obs: Observation, origin: str, max_depth: int, max_nodes: int,
                 passable: Passable | None) -> None:
        self.origin = origin
        self._dist: dict[str, int] = {origin: 0}
        self._first: dict[str, str] = {}
        self._order: list[str] = [origin]
        self._complete = True
        self._max_depth = max_depth
        self._max_nodes = max_nodes
        self._passable = passable
        self._neighbours = obs.neighbour_ids
        # the gates are few: their exits are read once, not asked for at every asteroid
        self._gates = obs.gate_exit_map()
        self._next = 0
        """Index in `_order` of the next asteroid to expand."""
        self._open = True
        """More asteroids may still be found."""

    # ----- the whole search -----
    @property
    def dist(self) -> dict[str, int]:
        """Asteroid → moves from the origin."""
        self._grow(None, None)
        return self._dist

    @property
    def first(self) -> dict[str, str]:
        """Asteroid → the move target (a neighbour or a gate) of the first step towards it."""
        self._grow(None, None)
        return self._first

    @property
    def order(self) -> list[str]:
        """The asteroids found, in visiting order (nearest first)."""
        self._grow(None, None)
        return self._order

    @property
    def complete(self) -> bool:
        """False when a cap stopped the search before it ran out of asteroids."""
        self._grow(None, None)
        return self._complete

    def finish(self) -> Reach:
        """Expand everything the caps allow (a lazy search becomes a finished one); returns itself."""
        self._grow(None, None)
        return self

    # ----- lazy reading -----
    def walk(self) -> Iterator[tuple[str, int]]:
        """(asteroid, distance) in visiting order, expanding the search only as far as the reader goes."""
        order, dist = self._order, self._dist
        i = 0
        while True:
            if i >= len(order):
                if not self._open:
                    return
                self._grow(i, None)
                if i >= len(order):
                    return
            aid = order[i]
            yield aid, dist[aid]
            i += 1

    def step_towards(self, aid: str) -> str | None:
        """The move target of the first step towards `aid`, or None (unreached, or `aid` is the origin)."""
        if aid not in self._dist:
            self._grow(None, aid)
        return self._first.get(aid)

    def distance(self, aid: str) -> int | None:
        """Moves from the origin to `aid`, or None when the search does not reach it."""
        if aid not in self._dist:
            self._grow(None, aid)
        return self._dist.get(aid)

    def _grow(self, index: int | None, target: str | None) -> None:
        """Expand asteroids until the `index`-th one is found, or `target` is, or (both None) to the end.

        The eager search's loop, resumable: the same asteroids are found in the same order.
        """
        if not self._open:
            return
        order, dist, first = self._order, self._dist, self._first
        neighbours, gates, passable = self._neighbours, self._gates, self._passable
        max_depth, max_nodes = self._max_depth, self._max_nodes
        i = self._next
        while i < len(order):
            if (index is not None and index < len(order)) or (target is not None and target in dist):
                self._next = i
                return
            aid = order[i]
            i += 1
            d = dist[aid]
            if d >= max_depth:
                self._complete = False
                continue
            step = first.get(aid)  # None at the origin: the step is the move itself
            near = d + 1
            # a neighbour is reached by moving to it, an active gate's far side by moving through the gate; the
            # two loops are written out rather than sharing a helper, as this is the innermost loop of every
            # planner decision
            for dest in neighbours(aid):
                if dest in dist or (passable is not None and not passable(dest, near)):
                    continue
                dist[dest] = near
                first[dest] = step or dest
                order.append(dest)
                if len(order) >= max_nodes:
                    self._complete = False
                    self._open = False
                    return
            exits = gates.get(aid)
            if exits is not None:
                for gate, dest in exits:
                    if dest in dist or (passable is not None and not passable(dest, near)):
                        continue
                    dist[dest] = near
                    first[dest] = step or gate
                    order.append(dest)
                    if len(order) >= max_nodes:
                        self._complete = False
                        self._open = False
                        return
        self._next = i
        self._open = False


def search(
    obs: Observation,
    origin: str,
    max_depth: int = 12,
    max_nodes: int = 700,
    passable: Passable | None = None,
    lazy: bool = False,
) -> Reach:
    """Breadth-first from `origin`, never deeper than `max_depth` moves nor past `max_nodes` asteroids.

    Lazy, it expands only as far as it is read (see the module's documentation); eager, it is done at once.
    """
    reach = Reach(obs, origin, max_depth, max_nodes, passable)
    return reach if lazy else reach.finish()
