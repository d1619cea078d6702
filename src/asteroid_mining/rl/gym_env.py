"""`TeamEnv`: a Gymnasium environment where one agent plays the whole team.

Each step acts for the settler whose turn it is (strict turns, R9a); robots, UFOs and the end of the round run
by themselves between steps. Observations are dicts: `observation` (a float vector in [0, 1], see
`encoding`) and `action_mask` (1 for each action the rules accept now); the mask is also in `info` and from
`action_masks()` (for MaskablePPO). Rewards: see `episode` and docs/ai.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from ..rules import Belt
from .encoding import Mask
from .episode import Episode, describe, final_mask

ObsDict = dict[str, Any]


class TeamEnv(gym.Env[ObsDict, np.int64]):
    """One agent acting for every settler of the team, in turn."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012  (as the base class)

    def __init__(self, belt: str | Belt = "small", rules: str = "classic", settlers: int = 3,
                 max_rounds: int = 300, neighbour_slots: int = 16, render_mode: str | None = None,
                 difficulty: str | None = None, bots: Mapping[str, str] | None = None) -> None:
        """`difficulty`: a level (`easy` … `brutal`) applied to the belt; `bots`: seats bots play (`{"s2":
        "planner"}`), the agent acting for the others (see `Episode`). Bad values raise ValueError."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.episode = Episode(belt, rules, settlers, max_rounds, neighbour_slots, difficulty, bots)
        encoder = self.episode.encoder
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (encoder.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (encoder.n_actions,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(encoder.n_actions)
        self._settler = self.episode.learners[0]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """A new game; `seed` fixes the belt (for presets) and the game's dice."""
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(0, 2**31 - 1))
        game = self.episode.start(game_seed)
        self._settler = game.turn or self.episode.learners[0]
        observation = self._observe()
        return observation, self._info(observation["action_mask"])

    def step(self, action: np.int64 | int) -> tuple[ObsDict, SupportsFloat, bool, bool, dict[str, Any]]:
        """The settler whose turn it is takes `action`."""
        outcome = self.episode.step(self._settler, int(action))
        game = self.episode.game
        assert game is not None
        if game.turn in self.episode.learners:  # (a bot's seat when the game ended in the bots' turns)
            self._settler = game.turn
        observation = self._observe()
        if outcome.terminated or outcome.truncated:
            # the last observation's mask: `wait` alone, never all zeros (a masked policy cannot sample from an
            # empty mask, and a vector env's next step, which only resets this one, still samples an action)
            observation["action_mask"] = final_mask(self.episode.encoder.n_actions)
        info = self._info(observation["action_mask"])
        info["illegal"] = outcome.illegal
        info["deaths"] = list(outcome.deaths)
        return observation, float(outcome.reward), outcome.terminated, outcome.truncated, info

    def action_masks(self) -> Mask:
        """The legal actions of the settler whose turn it is (for MaskablePPO); `wait` alone once the game is
        over or cut short."""
        game = self.episode.game
        assert game is not None, "call reset() first"
        if game.status != "running" or game.round > self.episode.max_rounds:
            return final_mask(self.episode.encoder.n_actions)
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
