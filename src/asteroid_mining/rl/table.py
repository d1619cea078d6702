"""`BeltTable`: what an observation needs of every asteroid, as numpy rows kept up to date from the engine.

A step changes a handful of asteroids, and the engine names them (`Game.take_touched`): only those rows are
rewritten, so a step costs the same on a belt of 80 asteroids or of 100,000. A row holds the features that
change only when the engine touches the asteroid (its mantle, its core as players know it, who is on it, its
links), laid out as in the observation; what changes with the round, the settler or the team (near or far from
the Sun, storms, teammates, needed cores, the way there) is filled in for the rows an observation gathers.
Two columns of the whole belt, `codes` and `shelters`, give the guidance features' targets (`hops.Hops.guide`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import numpy.typing as npt

from ..ai.observation import UNKNOWN, AsteroidView, Observation
from ..rules import KINDS, Game, Orbit
from ..rules.materials import HOLLOW

CORE_CODES = (*KINDS, HOLLOW, UNKNOWN)
"""The core one-hot order of the observation."""
CODE_OF = {code: i for i, code in enumerate(CORE_CODES)}
GUIDES = ("mate", "cargo", "need", "unknown", "shelter")
"""The targets the guidance features measure moves to (`encoding.GUIDANCE_FEATURE_LIST`), in order."""
GUIDE_AT = 14 + len(CORE_CODES)
"""The first guidance column of an asteroid's row (two per target: moves to it, and whether the exit is closer)."""
ASTEROID_FEATURES = GUIDE_AT + 2 * len(GUIDES)
"""Features of one asteroid in an observation (see `Encoder`)."""
MAX_MANTLE = 5
"""Mantles are scaled by this (and clipped to 1)."""

Rows = npt.NDArray[np.intp]
Floats = npt.NDArray[np.floating[Any]]
"""Features: float64 in a table of its own, float32 in a batch's (rounded once either way, as the vector is)."""
Pending = tuple[list[int], list[tuple[int, ...]]]
"""Rows to write (`BeltTable.sink`): their positions, and what `rows_of` makes them of."""


def asteroid_row(a: AsteroidView, code: int | None = None) -> list[float]:
    """The features of an asteroid that only the engine's changes to it change; the others are left 0.

    `code`: `CODE_OF[a.core]`, when the caller has it already."""
    row = [0.0] * ASTEROID_FEATURES
    row[0] = 1.0
    row[2] = min(1.0, a.mantle / MAX_MANTLE)
    row[5] = 1.0 if a.shelter else 0.0
    row[9] = min(1.0, len(a.robots) / 3)
    row[10] = min(1.0, len(a.ufos) / 3)
    row[13] = min(1.0, a.degree / 20)
    row[14 + (CODE_OF[a.core] if code is None else code)] = 1.0
    return row


def rows_of(counts: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """`BeltTable.numbers` and `asteroid_row` of many asteroids at once, from what `BeltTable.refresh` reads of
    each (one row each: `NUMBERS` numbers, then mantle, shelter, robots, UFOs, degree): the same float64
    operations, rounded once to float32."""
    rows = np.zeros((len(counts), ASTEROID_FEATURES), dtype=np.float32)
    rows[:, 0] = 1.0
    rows[:, 2] = np.minimum(1.0, counts[:, NUMBERS] / MAX_MANTLE)
    rows[:, 5] = counts[:, NUMBERS + 1]
    rows[:, 9] = np.minimum(1.0, counts[:, NUMBERS + 2] / 3)
    rows[:, 10] = np.minimum(1.0, counts[:, NUMBERS + 3] / 3)
    rows[:, 13] = np.minimum(1.0, counts[:, NUMBERS + 4] / 20)
    rows[np.arange(len(counts)), 14 + counts[:, 1]] = 1.0
    return counts[:, :NUMBERS], rows


class Gathered:
    """The rows of a few asteroids, with what the observation fills in for them (plain lists: a few items)."""

    __slots__ = ("core", "features", "index", "near", "settlers")

    def __init__(self, features: Floats, settlers: list[int], core: list[int],
                 near: list[tuple[bool, bool]], index: list[int]) -> None:
        self.features = features
        """One row per asteroid (a copy, to fill in)."""
        self.settlers = settlers
        """Settlers on each."""
        self.core = core
        """Index into `CORE_CODES` of each core as players know it."""
        self.near = near
        """Near the Sun this round and the next, for each."""
        self.index = index
        """The creation index of each (its row in the table and in `hops.Hops`)."""

    @classmethod
    def of(cls, obs: Observation, ids: list[str]) -> Gathered:
        """The rows of these asteroids read from the observation itself (without a table)."""
        views = [obs.asteroid(aid) for aid in ids]
        r = obs.round
        return cls(
            np.array([asteroid_row(a) for a in views], dtype=np.float64).reshape(len(ids), ASTEROID_FEATURES),
            [len(a.settlers) for a in views],
            [CODE_OF[a.core] for a in views],
            [(a.near_in(r), a.near_in(r + 1)) for a in views],
            [a.index for a in views],
        )


def belt_columns(obs: Observation) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.bool_]]:
    """`BeltTable.codes` and `BeltTable.shelters` read from the observation itself (without a table): O(belt).
    Asteroids gone from the belt are hollow and no shelter here (they are out of reach whatever they hold)."""
    codes = np.full(obs.asteroid_count, CODE_OF[HOLLOW], dtype=np.int8)
    shelters = np.zeros(obs.asteroid_count, dtype=np.bool_)
    for aid in obs.asteroid_ids():
        a = obs.asteroid(aid)
        codes[a.index] = CODE_OF[a.core]
        shelters[a.index] = a.shelter
    return codes, shelters


_UNKNOWN_CODE = CODE_OF[UNKNOWN]
Refresh = Callable[..., tuple[int, int]]
"""`rl._native.refresh`: what `BeltTable.refresh` does, in C, for a table in a batch's arrays (see `native`)."""

NUMBERS = 5
"""The columns of `BeltTable.numbers`: settlers on the asteroid, its core code, and its orbit's period, near-window
and phase (`rules.Orbit`; an asteroid without an orbit: period 1, window 1 if pinned near, else 0)."""
Numbers = npt.NDArray[np.int64]


class BeltTable:
    """The rows of every asteroid of one game, indexed by the asteroids' creation order."""

    def __init__(self, game: Game, obs: Observation, features: Floats | None = None,
                 numbers: Numbers | None = None, native: Refresh | None = None) -> None:
        """The table of `game` (seen through `obs`), every row filled, the game's touched ids taken.

        `features` and `numbers`: where to keep `features` and `numbers` (arrays of the right shapes, views of a
        batch's storage that gathers the rows of many games at once, `rl.batch`); else arrays of their own.
        `native`: see the attribute (float32 `features` only)."""
        self.obs = obs
        self.game = game
        ids = list(game.asteroids)
        self.row: dict[str, int] = {aid: i for i, aid in enumerate(ids)}
        n = len(ids)
        self.features = np.zeros((n, ASTEROID_FEATURES), dtype=np.float64) if features is None else features
        self.numbers: Numbers = np.zeros((n, NUMBERS), dtype=np.int64) if numbers is None else numbers
        """What the batched observations compute from, one row per asteroid (see `NUMBERS`)."""
        self.settlers = [0] * n
        self.core = [0] * n
        self.orbit: list[Orbit | None] = [None] * n
        self.pinned_near = [False] * n
        self.codes = np.zeros(n, dtype=np.int8)
        """`core` as an array (the guidance features' targets read it whole)."""
        self.shelters = np.zeros(n, dtype=np.bool_)
        """Which asteroids are shelters (R4)."""
        self._sheltered = [False] * n
        self.exists = [True] * n
        self.version = 0
        """Counts the changes of `codes` and `shelters` (the guidance features' targets, kept while it stays)."""
        self.gone = 0
        """Asteroids that have left the belt (exploded, R8): their links went with them (`hops.Hops`' key)."""
        self.sink: Pending | None = None
        """When set (`rl.batch`), `refresh` appends the rows it rewrites here, numbered from `base`, rather than
        writing them: the batch writes every game's rows in one go before it reads them."""
        self.base = 0
        self.native = native
        """When set (`rl.batch`, with `rl._native` built), `refresh` is this C function: it writes the rows at once
        into `features` and `numbers` (arrays of the batch's, float32) and brings the lists up to date, reading
        the engine's asteroids as `AsteroidView` shows them (the same rows `rows_of` makes)."""
        game.take_touched()
        self.refresh(ids)

    def refresh(self, ids: Iterable[str]) -> None:
        """Rewrite the rows of these ids (ids of other things are passed over)."""
        native = self.native
        if native is not None:
            changed, gone = native(ids, self.game.asteroids, self.row, self.settlers, self.core, self.orbit,
                                   self.pinned_near, self._sheltered, self.exists, self.codes, self.shelters,
                                   self.features, self.numbers, CODE_OF, _UNKNOWN_CODE)
            self.version += changed
            self.gone += gone
            return
        row_of, asteroid, sheltered, sink = self.row, self.obs.asteroid, self._sheltered, self.sink
        at: list[int] = []
        values: list[list[float]] = []
        numbers: list[tuple[int, ...]] = []
        for tid in ids:
            i = row_of.get(tid)
            if i is None:
                continue
            a = asteroid(tid)
            code = CODE_OF[a.core]
            at.append(i)
            settlers = self.settlers[i] = len(a.settlers)
            shelter = a.shelter
            if self.core[i] != code or sheltered[i] != shelter:  # (a list: numpy's scalars are slow to read)
                self.version += 1
                self.codes[i] = code
                self.shelters[i] = sheltered[i] = shelter
            self.core[i] = code
            if self.exists[i] and not a.exists:
                self.exists[i] = False
                self.gone += 1
            orbit = a.orbit
            self.orbit[i] = orbit
            pinned = self.pinned_near[i] = a.pinned == "near"
            number = ((settlers, code, 1, 1 if pinned else 0, 0) if orbit is None
                      else (settlers, code, orbit.period, orbit.window, orbit.phase))
            if sink is None:
                values.append(asteroid_row(a, code))
                numbers.append(number)
            else:  # what `rows_of` makes the row of, for the whole batch at once
                numbers.append((*number, a.mantle, shelter, len(a.robots), len(a.ufos), a.degree))
        if sink is not None:
            base = self.base
            sink[0].extend([base + i for i in at])
            sink[1].extend(numbers)
        elif len(at) == 1:
            self.features[at[0]] = values[0]
            self.numbers[at[0]] = numbers[0]
        elif at:
            self.features[at] = values  # the whole belt when the table is made: one conversion, not a row each
            self.numbers[at] = numbers

    def update(self) -> set[str]:
        """Rewrite the rows the engine has touched since the last update; the ids it touched (`Game.take_touched`:
        asteroids and every other thing)."""
        touched = self.game.take_touched()
        self.refresh(touched)
        return touched

    def gather(self, ids: list[str], round_no: int) -> Gathered:
        """The rows of these asteroids in round `round_no`."""
        row, orbits, settlers, core = self.row, self.orbit, self.settlers, self.core
        rows = [row[aid] for aid in ids]
        near = []
        for i in rows:
            orbit = orbits[i]
            if orbit is None:
                pinned = self.pinned_near[i]
                near.append((pinned, pinned))
            else:
                near.append((orbit.is_near(round_no), orbit.is_near(round_no + 1)))
        return Gathered(self.features[rows], [settlers[i] for i in rows], [core[i] for i in rows], near, rows)
