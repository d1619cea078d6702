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

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from ..rules import Belt
from .encoding import Mask, Vector
from .episode import Episode, final_mask


class BatchEnv:
    """`n` games on the same belt and options, each with its own seed."""

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

    def reset(self, seed: int | None = None) -> tuple[Vector, Mask]:
        """New games in every row: with `seed`, row i plays seed `seed + i` and later games draw their seeds from
        a generator seeded with `seed` (so a run is reproducible)."""
        self._rng = np.random.default_rng(seed)
        for i in range(self.n):
            self._start(i, seed + i if seed is not None else self._draw())
        return self.observations, self.masks

    def _draw(self) -> int:
        return int(self._rng.integers(0, 2**31 - 1))

    def _start(self, i: int, seed: int) -> None:
        episode = self.episodes[i]
        game = episode.start(seed)
        self.seeds[i] = seed
        settler = game.turn if game.turn in episode.learners else episode.learners[0]
        self.settler[i] = settler
        self.observations[i], self.masks[i] = episode.encode(settler)

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
        observations, masks, settlers = self.observations, self.masks, self.settler
        rewards, terminated, truncated = self.rewards, self.terminated, self.truncated
        for i, episode in enumerate(self.episodes):
            outcome = episode.step(settlers[i], picks[i])
            rewards[i] = outcome.reward
            terminated[i] = outcome.terminated
            truncated[i] = outcome.truncated
            game = episode.game
            assert game is not None
            # the settler whose turn it is next, as `TeamEnv` observes it (the one that acted when the game
            # ended in the bots' turns)
            settler = game.turn if game.turn in episode.learners else settlers[i]
            assert settler is not None
            if outcome.terminated or outcome.truncated:
                self.final_observation[i] = episode.encode(settler)[0]
                self._start(i, self._draw())
                continue
            settlers[i] = settler
            observations[i], masks[i] = episode.encode(settler)
        return observations, masks, rewards, terminated, truncated
