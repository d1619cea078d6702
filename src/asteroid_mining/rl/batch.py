"""`BatchEnv`: N games stepped in one call, numpy arrays in and out (one agent plays every team, as `TeamEnv`).

    env = BatchEnv(64, belt="small")
    obs, mask = env.reset(seed=0)             # (64, size) float32, (64, n_actions) int8
    obs, mask, reward, terminated, truncated = env.step(actions)   # actions: (64,) integers

A game that ends is started again in the same step (a new seed from the batch's generator): the arrays then
hold the new game's first observation, and `final_observation[i]` the finished game's last one (for
bootstrapping a truncated game's value). `settler[i]` is the settler each row's observation and mask are for.
The output arrays are the batch's own, overwritten by the next call: copy what you keep.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from functools import partial

import numpy as np
import numpy.typing as npt

from ..ai.observation import Observation
from ..rules import ACTION_TYPES, KINDS, Belt, Game, Move, Refused, Wait
from ..rules.events import Died
from ..rules.materials import CARGO_LIMIT, GATE_LIMIT, WIN_TARGET
from . import _native
from .encoding import (
    _AT_INDEX,
    _FIXED_INDEX,
    _PAIRS,
    _SAFE_TO_EXPOSE,
    _VARIED,
    _WANTS,
    FIXED_ACTIONS,
    GLOBAL_FEATURES,
    Mask,
    Vector,
)
from .episode import DEATH_REWARD, ILLEGAL_REWARD, LOSS_REWARD, SHAPING, WIN_REWARD, Episode, final_mask
from .hops import FAR, LIMIT, Distances, Moves, gate_key
from .table import (
    _UNKNOWN_CODE,
    ASTEROID_FEATURES,
    CODE_OF,
    CORE_CODES,
    GUIDE_AT,
    NUMBERS,
    Floats,
    Numbers,
    Pending,
    rows_of,
)

POOLED = 512
"""Games on belts of at most this many asteroids keep their tables and moves in the batch's arrays, and their
observations are filled for the whole batch at once (see `BatchEnv`); a larger belt turns the batch to each
game's own `Episode.encode` (its moves are worked out on demand, `hops.Hops`)."""
NATIVE_LIMIT = 64
"""The most settlers, and rows of an observation (the settler's asteroid and the exit slots), the C loop takes
(`rl._native`); a batch with more uses the numpy path."""
_SAFE = np.array(_SAFE_TO_EXPOSE, dtype=np.float32)
_COUNTS = 8 + 2 * len(KINDS)
"""Counts a game gives `BatchEnv._observe` for the game's features: the round, alive, living settlers, settlers,
everything carried, gates carried, needs and cargo by kind, units carried, the degree of the settler's asteroid."""
_NEVER = (False,) * (len(CORE_CODES) - len(KINDS))
"""Whether the core codes after the kinds (hollow, unknown) are needed."""
_SCALED = _PAIRS[:, 0, 0]
"""A `<target>_hops` feature for each count of moves (`encoding._PAIRS`)."""
_VARIED_C = {kind: (at.first, at.field, at.over == "kinds") for kind, at in _VARIED.items()}
"""`encoding._VARIED` as `_native.observe` reads it: each action class's first index, field, and whether it is
over the kinds (else over the gates the settler carries)."""
_DECODE = tuple((ACTION_TYPES[at.name], 0 if at.field is None else 1 if at.over == "kinds" else 2, index - at.first)
                for index, at in enumerate(_AT_INDEX))
"""`encoding._AT_INDEX` as `_native.step` decodes an index below `FIXED_ACTIONS` (`Encoder.action`): the action's
record, what its one field takes (0: no field, 1: a kind, 2: a gate the settler carries), and the index's offset."""
_SCALED_C = np.ascontiguousarray(_SCALED)
"""The same in one block (`_native.observe` reads it through the buffer protocol)."""


def _moves_by(game: Game, obs: Observation) -> Moves:
    """What fills every row of `game`'s matrix of moves in C (`hops.Hops.native`)."""
    moves_of = _native.moves_of
    assert moves_of is not None

    def fill(matrix: Distances) -> None:
        assert moves_of is not None
        moves_of(matrix, game.asteroids, obs.gate_exit_map(), LIMIT, FAR)

    return fill


class BatchEnv:
    """`n` games on the same belt and options, each with its own seed.

    Each game's step is the engine's, through its `Episode`; the observations are then filled for the whole
    batch at once, column by column: every game's asteroid table (`table.BeltTable`) and matrix of moves
    (`hops.Hops`) live in arrays of the batch (one block per game), so the rows of every game's settler and
    exit slots are one gather, the features that change with the round, the settler and the team a few numpy
    operations over all of them, and the guidance features one gather from the matrices. They are, bit for bit,
    what `Episode.encode` gives each game (tests/ai/test_rl_batch.py).
    """

    def __init__(self, n: int, belt: str | Belt = "small", rules: str = "classic", settlers: int = 3,
                 max_rounds: int = 300, neighbour_slots: int = 16, difficulty: str | None = None,
                 bots: Mapping[str, str] | None = None) -> None:
        """The options of `TeamEnv`, for each of `n` games; bad values raise ValueError."""
        if n < 1:
            raise ValueError(f"n must be at least 1, not {n}")
        first = Episode(belt, rules, settlers, max_rounds, neighbour_slots, difficulty, bots)
        # the others share the first one's checked belt source (a belt file is read once, not n times)
        self.episodes = [first, *(Episode(first.belts, rules, settlers, max_rounds, neighbour_slots, None, bots)
                                  for _ in range(n - 1))]
        encoder = self.episodes[0].encoder
        self.n = n
        self.observation_size = encoder.size
        self.n_actions = encoder.n_actions
        self.observations: Vector = np.zeros((n, encoder.size), dtype=np.float32)
        self.masks: Mask = np.zeros((n, encoder.n_actions), dtype=np.int8)
        self.rewards = np.zeros(n, dtype=np.float32)
        self.terminated = np.zeros(n, dtype=np.bool_)
        self.truncated = np.zeros(n, dtype=np.bool_)
        self.final_observation: Vector = np.zeros((n, encoder.size), dtype=np.float32)
        """The last observation of each game that ended in the last step (rows of the others are stale)."""
        self.settler = [""] * n
        self.seeds: npt.NDArray[np.int64] = np.zeros(n, dtype=np.int64)
        """The seed of each row's game."""
        self._rng = np.random.default_rng()
        self._final_mask = final_mask(encoder.n_actions)
        self._rows = 1 + encoder.slots
        """Asteroid rows of an observation: the settler's own, then the exit slots."""
        self._others = max(1, settlers - 1)
        """Columns of the guidance gather for the other settlers (the nearest of them is taken)."""
        # the batch's arrays: `_size` asteroids a game, grown when a game has more (`_grow`)
        self._size = 0
        self._features: Floats = np.zeros((1, ASTEROID_FEATURES), dtype=np.float32)
        self._numbers: Numbers = np.zeros((1, NUMBERS), dtype=np.int64)
        self._matrices: Distances = np.zeros((n, 0, 5), dtype=np.uint8)
        self._pooled = True
        """Whether every game keeps its table and moves in the batch's arrays (else `Episode.encode`)."""
        self._in_pool = [False] * n
        self._pending: Pending = ([], [])
        """Table rows rewritten by the games' steps, to write before the observations read them (`_flush`)."""
        self._games = np.arange(n)[:, None]
        self._offsets = np.zeros((n, 1), dtype=np.intp)
        self._cells = np.zeros((n, 1, 1), dtype=np.intp)
        """Where each game's matrix starts in the flat `_matrices`."""
        self._max_rounds = max_rounds
        # (the C loop keeps a row's slots and a team's places in small arrays of its own: `NATIVE_LIMIT`)
        self._fits = self._rows <= NATIVE_LIMIT and settlers <= NATIVE_LIMIT
        self._native = _native.observe is not None and self._fits
        width = self._rows
        self._scratch = (np.zeros(n * width, dtype=np.int64), np.zeros(n * (self._others + 4), dtype=np.int64),
                         np.zeros(n, dtype=np.int64), np.zeros(n * len(CORE_CODES), dtype=np.int8),
                         np.zeros(n * _COUNTS, dtype=np.int64), np.zeros(n * width, dtype=np.uint8),
                         np.zeros(n * width, dtype=np.uint8), np.zeros(n * width, dtype=np.float64))
        """The C loop's scratch (`_native.observe`): what the numpy path's loop gathers in `_observe`, the slots'
        rows, the guidance's targets, the rounds, the needed cores, the counts, and the slots' ways through a gate,
        storms and their urgency."""
        for i, episode in enumerate(self.episodes):
            episode.storage = partial(self._storage, i)
            episode.table_native = _native.refresh if self._native else None

    @property
    def native(self) -> bool:
        """Whether the games step and the observations are filled in C (`rl._native`: when it is built and up to
        date), else in Python and numpy: the same arrays, bit for bit. Set it to False (before `reset`) for the
        numpy path."""
        return self._native

    @native.setter
    def native(self, on: bool) -> None:
        if on and _native.observe is None:
            raise ValueError(f"the C loop is not in use: {_native.problem}")
        if on and not self._fits:
            raise ValueError(f"the C loop takes at most {NATIVE_LIMIT} settlers and {NATIVE_LIMIT - 1} exit slots")
        self._native = on
        for episode in self.episodes:
            episode.table_native = _native.refresh if on else None

    def _storage(self, i: int, count: int) -> tuple[Floats, Numbers, Distances | None]:
        """Where game `i`, new, with `count` asteroids keeps its table and moves (`Episode.storage`)."""
        self._flush()  # (rows of the game it replaces may wait there; rows are moved when the arrays grow)
        if count > POOLED:
            self._pooled = False
            self._in_pool[i] = False
            return (np.zeros((count, ASTEROID_FEATURES), dtype=np.float32),
                    np.zeros((count, NUMBERS), dtype=np.int64), None)
        if count > self._size:
            self._grow(count + count // 4)
        size = self._size
        self._in_pool[i] = True
        return (self._features[i * size: i * size + count], self._numbers[i * size: i * size + count],
                self._matrices[i, :count, : count + 4])

    def _grow(self, size: int) -> None:
        """Room for `size` asteroids a game: new arrays, the games' tables and moves copied and moved there.
        The features' last row is all zeros and the matrices' last column all `FAR` (what the gathers of empty
        slots and missing targets read)."""
        n, old = self.n, self._size
        # float32, as the vector: a feature is rounded once, when it is written, as `Episode.encode` rounds it
        features = np.zeros((n * size + 1, ASTEROID_FEATURES), dtype=np.float32)
        numbers = np.zeros((n * size + 1, NUMBERS), dtype=np.int64)
        numbers[-1] = (0, 0, 1, 0, 0)  # never near the Sun
        matrices = np.full((n, size, size + 5), FAR, dtype=np.uint8)
        for i, episode in enumerate(self.episodes):
            table, hops = episode.table, episode.hops
            if table is None or hops is None or not self._in_pool[i]:
                continue
            count = len(table.row)
            features[i * size: i * size + count] = self._features[i * old: i * old + count]
            numbers[i * size: i * size + count] = self._numbers[i * old: i * old + count]
            table.features = features[i * size: i * size + count]
            table.numbers = numbers[i * size: i * size + count]
            hops.move_to(matrices[i, :count, : count + 4])
            table.base = i * size
        self._features, self._numbers, self._matrices, self._size = features, numbers, matrices, size
        self._offsets = np.arange(n)[:, None] * size
        self._cells = (np.arange(n) * size * (size + 5))[:, None, None]

    def reset(self, seed: int | None = None) -> tuple[Vector, Mask]:
        """New games in every row: with `seed`, row i plays seed `seed + i` and later games draw their seeds from
        a generator seeded with `seed` (so a run is reproducible)."""
        self._rng = np.random.default_rng(seed)
        for i in range(self.n):
            self._start(i, seed + i if seed is not None else self._draw())
        self._observe()
        return self.observations, self.masks

    def _draw(self) -> int:
        return int(self._rng.integers(0, 2**31 - 1))

    def _start(self, i: int, seed: int) -> None:
        """A new game in row `i` (its observation is filled with the others', `_observe`)."""
        episode = self.episodes[i]
        game = episode.start(seed)
        if self._in_pool[i]:
            assert episode.table is not None
            episode.table.sink = self._pending
            episode.table.base = i * self._size
            assert episode.hops is not None
            episode.hops.native = _moves_by(game, episode.obs) if self.native else None
        self.seeds[i] = seed
        self.settler[i] = game.turn if game.turn in episode.learners else episode.learners[0]

    def step(self, actions: npt.ArrayLike) -> tuple[Vector, Mask, npt.NDArray[np.float32], npt.NDArray[np.bool_],
                                                     npt.NDArray[np.bool_]]:
        """Row i's settler takes `actions[i]`; finished games start again (see the module's doc)."""
        chosen = np.asarray(actions)
        if chosen.shape != (self.n,) or not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError(f"actions must be {self.n} integers (shape ({self.n},)), not shape {chosen.shape} "
                             f"of {chosen.dtype}")
        if self.n and (chosen.min() < 0 or chosen.max() >= self.n_actions):
            raise ValueError(f"actions must be in 0…{self.n_actions - 1}")
        picks = chosen.tolist()
        settlers = self.settler
        rewards, terminated, truncated = self.rewards, self.terminated, self.truncated
        step = _native.step
        if step is not None and self.native:
            # every game steps in C, those with no bots in their seats and their tables in the batch's arrays
            # without a call into Python (`_native.step`: the same games and rewards as `Episode.advance`); the
            # games that ended start again here, in order (the seeds are drawn in the order of the rows)
            eligible = [pooled and not episode.bot_seats
                        for pooled, episode in zip(self._in_pool, self.episodes, strict=True)]
            for i, settler in step(self.episodes, settlers, picks, eligible, rewards, terminated, truncated,
                                   FIXED_ACTIONS, Refused, Wait, Died, KINDS, CODE_OF, _UNKNOWN_CODE, WIN_TARGET,
                                   SHAPING, DEATH_REWARD, ILLEGAL_REWARD, WIN_REWARD, LOSS_REWARD, self._max_rounds,
                                   _DECODE, Move, self._rows - 1):
                self._flush()
                self.final_observation[i] = self.episodes[i].encode(settler)[0]
                self._start(i, self._draw())
            self._observe()
            return self.observations, self.masks, rewards, terminated, truncated
        for i, episode in enumerate(self.episodes):
            reward, ended, cut = episode.advance(settlers[i], picks[i])
            rewards[i] = reward
            terminated[i] = ended
            truncated[i] = cut
            game = episode.game
            assert game is not None
            # the settler whose turn it is next, as `TeamEnv` observes it (the one that acted when the game
            # ended in the bots' turns)
            settler = game.turn if game.turn in episode.learners else settlers[i]
            assert settler is not None
            if ended or cut:
                self._flush()
                self.final_observation[i] = episode.encode(settler)[0]
                self._start(i, self._draw())
                continue
            settlers[i] = settler
        self._observe()
        return self.observations, self.masks, rewards, terminated, truncated

    def _flush(self) -> None:
        """Write the table rows the games' steps rewrote (`BeltTable.sink`) into the batch's arrays."""
        at, counts = self._pending
        if at:
            self._numbers[at], self._features[at] = rows_of(np.array(counts, dtype=np.int64))
            at.clear()
            counts.clear()

    def _observe(self) -> None:
        """Every row's observation and mask, for its settler (`settler`), as `Episode.encode` gives them."""
        self._flush()
        if not self._pooled:
            for i, episode in enumerate(self.episodes):
                self.observations[i], self.masks[i] = episode.encode(self.settler[i])
            return
        n, width, size, n_actions, others_n = self.n, self._rows, self._size, self.n_actions, self._others
        observe = _native.observe
        if observe is not None and self.native:
            observe(self.episodes, self.settler, KINDS, gate_key, _WANTS, _native.static_columns, Move, _FIXED_INDEX,
                    _VARIED_C, FIXED_ACTIONS, self.observations, self.masks, self._features, self._numbers,
                    self._matrices, _SAFE, _SCALED_C, *self._scratch, n, width, size, others_n, n_actions,
                    self._max_rounds, len(CORE_CODES), len(KINDS), ASTEROID_FEATURES, GUIDE_AT, GLOBAL_FEATURES,
                    GATE_LIMIT, WIN_TARGET, CARGO_LIMIT, _COUNTS)
            return
        pad = n * size  # the features' row of zeros
        far = size + 4  # the matrices' column of `FAR`
        blank = [far] * (others_n + 4)
        # typed arrays rather than lists: numpy reads them without converting each item
        rows = array("q", [pad]) * (n * width)  # rows of the batch's features: settler's asteroid, exit slots
        via: list[int] = []  # the slots whose way is through a gate
        sel = array("q")  # each game's guidance targets: the others' rows, cargo's, the static columns
        rounds = array("q", [0]) * n
        wants_rows = array("b")
        on = array("q")  # positions of the masks' ones
        counts = array("q")  # what the game's features are worked out from, `_COUNTS` a game
        storms: list[int] = []  # rows with a storm forecast, and its urgency
        urgency: list[float] = []
        settlers = self.settler
        for i, episode in enumerate(self.episodes):
            settler = settlers[i]
            obs = episode.obs
            game = episode.game
            table, hops = episode.table, episode.hops
            assert game is not None and table is not None and hops is not None
            exits = episode.exits(settler)
            base = i * n_actions
            on.extend([base + k for k in episode.encoder.mask_indices(obs, settler, exits)])
            need = episode._need
            row_of = table.row
            # the game's and the settler's features (`Encoder.globals`) and the guidance features' first targets
            # (`encoding.targets`), in one pass over the team
            team = game.settlers
            me = team[settler]
            at = me.at
            living = 0
            others: list[int] = []
            loads: dict[int, int] = {}
            for s in team.values():
                if s.alive:
                    living += 1
                    place = s.at
                    if place is not None:
                        j = row_of[place]
                        if s.id != settler:
                            others.append(j)
                        loads[j] = loads.get(j, 0) + s.carry_total
            r = rounds[i] = game.round
            cargo = me.cargo
            counts.extend((r, me.alive, living, len(team), not any(need.values()), len(me.gates),
                           *[need[kind] for kind in KINDS], *[cargo[kind] for kind in KINDS], me.carry_total,
                           -1 if at is None else len(game.asteroids[at].neighbours)))
            # (`need` holds the kinds in `KINDS`' order, `Episode._moved`; hollow and unknown are never needed)
            wants = (*[units > 0 for units in need.values()], *_NEVER)
            wants_rows.extend(wants)
            if at is None:
                sel.extend(blank)
                continue
            first, offset = i * width, i * size
            rows[first] = offset + row_of[at]
            if exits:
                rows[first + 1: first + 1 + len(exits)] = array("q", [offset + row_of[dest] for _, dest in exits])
                if game.asteroids[at].gates:  # (only a gate's exit leads elsewhere than its target)
                    via += [k for k, (target, dest) in enumerate(exits, first + 1) if target != dest]
            # the moves' matrix for the links now and its static columns for the needs now (`Episode.encode`)
            hops.sync((table.gone, gate_key(obs) if game.gates else ()))  # (no gate: no gate's exit)
            hops.static((wants, table.version), _WANTS[wants], table.codes, table.shelters)
            # the most units; among equals the first settler's in turn order (dicts keep the order of insertion)
            most = max(loads, key=loads.__getitem__) if loads else far
            count = hops.n
            sel.extend(others)
            sel.extend([far] * (others_n - len(others)))
            sel.extend((most, count, count + 1, count + 2))
            if game.forecasts:
                storm_round = game.storm_round
                for k, aid in enumerate([at, *(dest for _, dest in exits)], first):
                    storm = storm_round(aid)
                    if storm is not None:
                        storms.append(k)
                        urgency.append(1.0 / (1 + max(0, storm - r)))
        self._fill_numpy(rows, via, sel, rounds, wants_rows, on, counts, storms, urgency)

    def _fill_numpy(self, rows: array[int], via: list[int], sel: array[int], rounds: array[int],
                    wants_rows: array[int], on: array[int], counts: array[int], storms: list[int],
                    urgency: list[float]) -> None:
        """The observations and masks from what `_observe`'s loop gathered, in numpy over the whole batch (what
        `_native.observe` does in C)."""
        n, width, size, others_n = self.n, self._rows, self._size, self._others
        pad = n * size
        max_rounds = self._max_rounds
        where = np.frombuffer(rows, dtype=np.int64).reshape(n, width)
        absent = where == pad
        out = self.observations
        features = self._features.take(where, axis=0)  # (n, width, ASTEROID_FEATURES), a copy to fill in
        numbers = self._numbers.take(where, axis=0)
        settled, code = numbers[..., 0], numbers[..., 1]
        period, window, phase = numbers[..., 2], numbers[..., 3], numbers[..., 4]
        now = np.frombuffer(rounds, dtype=np.int64)[:, None]
        near_now = (now - 1 + phase) % period < window  # `rules.Orbit.is_near`
        near_next = (now + phase) % period < window
        flat = features.reshape(n * width, ASTEROID_FEATURES)
        if via:  # (the column is 0 in the table)
            flat[via, 1] = 1.0
        features[..., 3] = near_now
        features[..., 4] = near_next
        if storms:
            flat[storms, 6] = 1.0
            flat[storms, 7] = urgency
        # teammates: everyone on it but the settler itself (on its own asteroid)
        features[..., 8] = np.minimum(1.0, (settled - (where == where[:, :1])) / 3)
        wanted = np.frombuffer(wants_rows, dtype=np.bool_)
        features[..., 11] = wanted.take(code + self._games * len(CORE_CODES))
        features[..., 12] = _SAFE[code, np.where(near_now, 0, 2 - near_next.view(np.uint8))]  # the wait: 0, 1, later
        # the guidance: one gather from every game's matrix, the nearest of the others, then each target's moves
        # and whether the row's asteroid is closer than the settler's
        local = np.minimum(where - self._offsets, size - 1)  # (empty slots read any row: zeroed below)
        targets = np.frombuffer(sel, dtype=np.int64).reshape(n, 1, others_n + 4)
        found = self._matrices.reshape(-1).take(self._cells + local[:, :, None] * (size + 5) + targets)
        if others_n > 1:
            moves = found[..., others_n - 1:]
            moves[..., 0] = found[..., :others_n].min(axis=2)
        else:
            moves = found
        features[..., GUIDE_AT::2] = _SCALED[moves]
        features[..., GUIDE_AT + 1::2] = moves < moves[:, :1, :]
        features[absent] = 0.0
        # the game's and the settler's features from their counts, as `Encoder.globals` works them out (the same
        # float64 operations, then rounded once to float32)
        c = np.frombuffer(counts, dtype=np.int64).reshape(n, _COUNTS)
        kinds = len(KINDS)
        top = out[:, :GLOBAL_FEATURES]
        top[:, 0] = np.minimum(1.0, c[:, 0] / max_rounds)
        top[:, 1] = c[:, 1]
        top[:, 2] = c[:, 2] / np.maximum(1, c[:, 3])
        top[:, 3] = c[:, 4]
        top[:, 4] = c[:, 5] / GATE_LIMIT
        top[:, 5: 5 + kinds] = c[:, 6: 6 + kinds] / WIN_TARGET
        top[:, 5 + kinds: 5 + 2 * kinds] = c[:, 6 + kinds: 6 + 2 * kinds] / CARGO_LIMIT
        top[:, 5 + 2 * kinds] = c[:, 6 + 2 * kinds] / CARGO_LIMIT
        degree = c[:, 7 + 2 * kinds]
        top[:, 6 + 2 * kinds] = np.where(degree < 0, 0.0, np.minimum(1.0, degree / 100))
        out[:, GLOBAL_FEATURES:] = features.reshape(n, width * ASTEROID_FEATURES)
        masks = self.masks
        masks.fill(0)
        if on:
            masks.reshape(-1)[np.frombuffer(on, dtype=np.int64)] = 1
