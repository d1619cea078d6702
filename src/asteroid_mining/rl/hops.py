"""`Hops`: moves between asteroids over the links and active gates, as players see them (R17: no hidden cores).

The observation's guidance features (`encoding.GUIDANCE`) say, for the settler's asteroid and each exit slot's
destination, how many moves it lies from the nearest teammate, the team's meeting point, a needed core, an
unsurveyed asteroid and a shelter. They are read off rows of a distance matrix: row *i* holds the moves from the
asteroid of creation index *i* to every other one (the links are symmetric, so it is also the moves to it).

Rows are worked out on demand (scipy's breadth-first `dijkstra` over the belt's links, in C, a few at a time,
never deeper than `LIMIT` moves) and kept until the links change. Links change only when an asteroid explodes
(its links go with it, R8) or a gate pair comes into or out of service: the caller hands `sync` a key that
changes then (`Episode`: the belt table's count of asteroids gone and the active gates; the `learned` bot: the
same, read from the observation), and the rows are thrown away when it does. On the small belt every row is
known after a few steps, and a step costs a gather of a few rows and a minimum over a few columns.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

import numpy as np
import numpy.typing as npt
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from ..ai.observation import UNKNOWN, Observation
from .table import CODE_OF

LIMIT = 40
"""Moves a row is worked out to (beyond: unreachable, `FAR`): bounds a row's cost on the largest belts."""
FAR = 255
"""The distance of an asteroid out of reach (or beyond `LIMIT`)."""
HOPS_SCALE = 16
"""The guidance features' moves are divided by this (and clipped to 1)."""
TARGETS = 5
"""The targets of `Hops.guide`, in order: the other settlers, the asteroid where the team carries the most, the
needed known cores, the unsurveyed asteroids, the shelters (`table.GUIDES`)."""

Distances = npt.NDArray[np.uint8]
StaticColumns = Callable[[Distances, npt.NDArray[np.bool_], npt.NDArray[np.int8], npt.NDArray[np.bool_], int, int],
                         None]
"""Writes `Hops.static`'s three columns into a whole matrix (`rl._native.static_columns`): the matrix, the wants,
codes and shelters, the unknown core's code and `FAR`."""
Moves = Callable[[Distances], None]
"""Fills every row of a game's matrix of moves (`rl.batch`: `rl._native.moves_of` over the game's asteroids)."""


def links_key(obs: Observation) -> Hashable:
    """A key that changes whenever the links as players see them change: the asteroids still there and the
    active gates' exits. O(belt): `Episode` keeps a cheaper one from its table."""
    return (sum(1 for _ in obs.asteroid_ids()), gate_key(obs))


def gate_key(obs: Observation) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """The active gates' exits, as a key (O(gates): usually empty)."""
    return tuple((at, tuple(exits)) for at, exits in obs.gate_exit_map().items())


FULL = 1024
"""Belts of at most this many asteroids get every row at once (one call, an n × n matrix of bytes)."""


class Hops:
    """Moves between the asteroids of one game, kept until the links change (see the module)."""

    __slots__ = ("_buffer", "_graph", "_key", "_matrix", "_rows", "_static", "_static_key", "_targets", "n", "native",
                 "obs")

    def __init__(self, obs: Observation, buffer: Distances | None = None) -> None:
        """The moves of the game `obs` sees. `buffer`: where to keep the matrix (n × (n + 4) bytes, a view of a
        batch's storage that gathers from the matrices of many games at once, `rl.batch`), on belts of at most
        `FULL` asteroids; else an array of its own."""
        self.obs = obs
        self._buffer = buffer
        self.n = obs.asteroid_count
        """Asteroids ever created: the rows' length (indices are creation indices, `AsteroidView.index`)."""
        self._key: Hashable = None
        self._graph: csr_matrix | None = None
        self._matrix: Distances | None = None
        """On belts of at most `FULL` asteroids: every row, then `static`'s four columns (n × (n + 4))."""
        self._rows: dict[int, Distances] = {}
        """The rows worked out so far, on larger belts."""
        self._static: Distances | None = None
        """On larger belts: `static`'s four columns (n × 4)."""
        self._static_key: Hashable = None
        self._targets: list[npt.NDArray[np.bool_] | None] = [None, None, None]
        """The targets each of `static`'s columns was worked out for (None: not since the links changed)."""
        self.native: Moves | None = None
        """When set (`rl.batch`, with `rl._native` built): the C breadth-first search that fills every row of the
        matrix at once (`_full`) over the game's links, in place of scipy's over a sparse matrix (the same moves)."""

    def sync(self, key: Hashable) -> None:
        """The links' key now (`links_key`): a new one throws the rows away."""
        if key != self._key:
            self._key = key
            self._graph = None
            self._matrix = None
            self._rows = {}
            self._static = None
            self._static_key = None
            self._targets = [None, None, None]

    def _build(self) -> csr_matrix:
        """The belt's links and active gates as a sparse adjacency matrix (creation indices)."""
        src, dst = self._links()
        data = np.ones(len(src), dtype=np.float64)
        return csr_matrix((data, (np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64))),
                          shape=(self.n, self.n))

    def _links(self) -> tuple[list[int], list[int]]:
        """The belt's links and active gates' exits: their sources and destinations (creation indices)."""
        obs = self.obs
        index = {aid: obs.asteroid(aid).index for aid in obs.asteroid_ids()}
        src: list[int] = []
        dst: list[int] = []
        for aid, i in index.items():
            for other in obs.neighbour_ids(aid):
                src.append(i)
                dst.append(index[other])
        for at, exits in obs.gate_exit_map().items():
            for _, dest in exits:
                src.append(index[at])
                dst.append(index[dest])
        return src, dst

    def _search(self, sources: list[int], nearest: bool = False) -> Distances:
        """Breadth-first from each of `sources` (in C): their rows, or with `nearest` the one row of moves to
        the nearest of them."""
        if self._graph is None:
            self._graph = self._build()
        found = dijkstra(self._graph, directed=True, indices=sources, unweighted=True, limit=LIMIT,
                         min_only=nearest)
        return np.where(np.isfinite(found), found, FAR).astype(np.uint8)

    def _full(self) -> Distances:
        """Every row and the four static columns (belts of at most `FULL` asteroids)."""
        matrix = self._matrix
        if matrix is None:
            n = self.n
            if self._buffer is None:
                matrix = np.full((n, n + 4), FAR, dtype=np.uint8)
            else:
                matrix = self._buffer
                matrix[...] = FAR
            if self.native is not None:
                self.native(matrix)
            else:
                matrix[:, :n] = self._search(list(range(n)))
            self._matrix = matrix
        return matrix

    def move_to(self, buffer: Distances) -> None:
        """Keep the matrix in `buffer` from now on (a batch's storage grown), what is known of it copied."""
        if self._matrix is not None:
            buffer[...] = self._matrix
            self._matrix = buffer
        self._buffer = buffer

    def rows(self, indices: Sequence[int]) -> Distances:
        """Moves from each of these asteroids (creation indices) to every asteroid: shape (len, n), `FAR` where
        out of reach (the links are symmetric: also the moves from every asteroid to each of these)."""
        if self.n <= FULL:
            return self._full()[list(indices), : self.n]
        cache = self._rows
        missing = list(dict.fromkeys(i for i in indices if i not in cache))
        if missing:
            for i, row in zip(missing, self._search(missing), strict=True):
                cache[i] = row
        return np.stack([cache[i] for i in indices])

    def static(self, key: Hashable, wants: npt.NDArray[np.bool_], codes: npt.NDArray[np.int8],
               shelters: npt.NDArray[np.bool_], columns_by: StaticColumns | None = None) -> Distances:
        """Moves from every asteroid to the nearest known needed core (`wants`: whether each core code is
        needed), unsurveyed asteroid and shelter, then a column of `FAR`: shape (n, 4), `FAR` when none is in
        reach. Worked out again only when `key` (the needs and a version of the columns) or the links change;
        on a belt of at most `FULL` asteroids they are the last four columns of the matrix, which is returned
        whole when nothing changed."""
        n = self.n
        full = n <= FULL
        if full:
            if key == self._static_key and self._matrix is not None:
                return self._matrix  # (the columns are its last four; `guide` reads them there)
            columns = self._full()[:, n:]
        elif self._static is None:
            columns = self._static = np.full((n, 4), FAR, dtype=np.uint8)
        else:
            columns = self._static
        if key != self._static_key and full and columns_by is not None:
            self._static_key = key
            columns_by(self._full(), wants, codes, shelters, _UNKNOWN_CODE, FAR)
            self._targets = [None, None, None]  # (what the columns were last worked out for is not kept here)
        elif key != self._static_key:
            self._static_key = key
            known = self._targets
            for j, targets in enumerate((wants[codes], codes == _UNKNOWN_CODE, shelters)):
                last = known[j]
                if last is not None and np.array_equal(last, targets):
                    continue  # (a key changes with any of the three: most often one column's targets did)
                known[j] = targets.copy()  # (`shelters` is the caller's, changed in place)
                where = np.flatnonzero(targets)
                if not len(where):
                    columns[:, j] = FAR
                elif full:
                    columns[:, j] = self._full()[where, :n].min(axis=0)
                else:  # one search from all of them at once
                    columns[:, j] = self._search(where.tolist(), nearest=True)
        return columns

    def guide(self, indices: list[int], others: list[int], cargo: int | None, key: Hashable,
              wants: npt.NDArray[np.bool_], codes: npt.NDArray[np.int8], shelters: npt.NDArray[np.bool_]
              ) -> Distances:
        """The moves from each of these asteroids to each target (`TARGETS`): the nearest of `others` (the other
        settlers' asteroids), `cargo` (the asteroid where the team carries the most), then `static`'s three.
        Shape (len, 5), `FAR`: none in reach."""
        n = self.n
        static = self.static(key, wants, codes, shelters)
        far = n + 3
        sel = [*(others or [far]), far if cargo is None else cargo, n, n + 1, n + 2]
        rows = np.array(indices, dtype=np.intp)
        if n <= FULL:
            found = self._full()[rows[:, None], sel]
        else:  # the targets' rows (symmetric: the moves from these asteroids to them), then the static columns
            found = np.empty((len(indices), len(sel)), dtype=np.uint8)
            for j, target in enumerate(sel[:-3]):
                found[:, j] = FAR if target == far else self.rows([target])[0, rows]
            found[:, -3:] = static[rows, :3]
        m = max(1, len(others))
        if m == 1:
            return found
        moves = found[:, m - 1:]
        moves[:, 0] = found[:, :m].min(axis=1)
        return moves


_UNKNOWN_CODE = CODE_OF[UNKNOWN]

__all__ = ["FAR", "FULL", "HOPS_SCALE", "LIMIT", "TARGETS", "Distances", "Hops", "gate_key", "links_key"]
