"""`TeamEnv`: a Gymnasium environment where one agent plays the whole team.

Each step acts for the settler whose turn it is (strict turns, R9a); robots, UFOs and the end of the round run
by themselves between steps. Observations are dicts: `observation` (a float vector in [0, 1], see
`encoding`) and `action_mask` (1 for each action the rules accept now); the mask is also in `info` and from
`action_masks()` (for MaskablePPO). Rewards: see `episode` and docs/ai.md.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..rules import Belt
from .encoding import Mask
from .episode import Episode, describe

ObsDict = dict[str, Any]


class TeamEnv(gym.Env[ObsDict, np.int64]):
    """One agent acting for every settler of the team, in turn."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012  (as the base class)

    def __init__(self, belt: str | Belt = "small", rules: str = "classic", settlers: int = 3,
                 max_rounds: int = 300, neighbour_slots: int = 16, render_mode: str | None = None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.episode = Episode(belt, rules, settlers, max_rounds, neighbour_slots)
        encoder = self.episode.encoder
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (encoder.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (encoder.n_actions,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(encoder.n_actions)
        self._settler = "s1"

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """A new game; `seed` fixes the belt (for presets) and the game's dice."""
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        game = self.episode.start(game_seed)
        self._settler = game.turn or "s1"
        observation = self._observe()
        return observation, self._info(observation["action_mask"])

    def step(self, action: np.int64 | int) -> tuple[ObsDict, SupportsFloat, bool, bool, dict[str, Any]]:
        """The settler whose turn it is takes `action`."""
        outcome = self.episode.step(self._settler, int(action))
        game = self.episode.game
        assert game is not None
        if game.turn is not None:
            self._settler = game.turn
        observation = self._observe()
        info = self._info(observation["action_mask"])
        info["illegal"] = outcome.illegal
        info["deaths"] = list(outcome.deaths)
        return observation, float(outcome.reward), outcome.terminated, outcome.truncated, info

    def action_masks(self) -> Mask:
        """The legal actions of the settler whose turn it is (for MaskablePPO)."""
        return self.episode.encoder.mask(self.episode.obs, self._settler)

    def render(self) -> str | None:
        """A few lines of text about the game (render_mode `ansi`)."""
        if self.render_mode != "ansi" or self.episode.game is None:
            return None
        return describe(self.episode.game, self._settler)

    def _observe(self) -> ObsDict:
        vector, mask = self.episode.encode(self._settler)
        return {"observation": vector, "action_mask": mask}

    def _info(self, mask: Mask) -> dict[str, Any]:
        game = self.episode.game
        assert game is not None
        return {"settler": self._settler, "round": game.round, "status": game.status, "action_mask": mask.copy()}
