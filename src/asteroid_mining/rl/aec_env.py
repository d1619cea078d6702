"""`SettlersEnv`: a PettingZoo AEC environment with one agent per settler (`s1`, `s2`, …).

Agents act in the game's strict turn order (R9a). The reward is the team's, given to every living agent at
each step (see `episode` and docs/ai.md). A settler that dies is terminated (and steps once more with `None`,
as PettingZoo asks); when the game is won or lost every agent is terminated, and after `max_rounds` truncated.
Observations are dicts: `observation` (the settler's own view, a float vector in [0, 1]) and `action_mask`
(all zeros when it is not that settler's step).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]  # pettingzoo ships no type information

from ..rules import Belt
from .episode import Episode, describe

ObsDict = dict[str, Any]


class SettlersEnv(AECEnv):  # type: ignore[misc]  # an untyped base class
    """One agent per settler of the team."""

    metadata: dict[str, Any] = {  # noqa: RUF012  (the base classes declare it so)
        "name": "asteroid_mining_v0", "render_modes": ["ansi"], "is_parallelizable": False,
    }

    def __init__(self, belt: str | Belt = "small", rules: str = "classic", settlers: int = 3,
                 max_rounds: int = 300, neighbour_slots: int = 16, render_mode: str | None = None,
                 difficulty: str | None = None, bots: Mapping[str, str] | None = None) -> None:
        """`difficulty`: a level applied to the belt; `bots`: seats bots play (`{"s2": "planner"}`), which are
        then no agents (see `Episode`). Bad values raise ValueError."""
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.episode = Episode(belt, rules, settlers, max_rounds, neighbour_slots, difficulty, bots)
        encoder = self.episode.encoder
        self.possible_agents = list(self.episode.learners)
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (encoder.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (encoder.n_actions,), dtype=np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(encoder.n_actions) for a in self.possible_agents}
        self._seeds = np.random.default_rng()
        self._skip_agent_selection: str | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same Dict space for every settler."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Discrete: see `encoding`."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; `seed` fixes the belt (for presets) and the game's dice."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = seed
        else:
            game_seed = int(self._seeds.integers(0, 2**31 - 1))
        game = self.episode.start(game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self.agent_selection = game.turn if game.turn in self.agents else self.agents[0]

    def observe(self, agent: str) -> ObsDict:
        """`agent`'s own view and its action mask."""
        vector, mask = self.episode.encode(agent)
        return {"observation": vector, "action_mask": mask}

    def step(self, action: int | None) -> None:
        """The selected settler takes `action` (None for a terminated one)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is playing: its action cannot be None")
        self._cumulative_rewards[agent] = 0.0
        outcome = self.episode.step(agent, int(action))
        game = self.episode.game
        assert game is not None
        self._clear_rewards()
        for a in self.agents:
            self.rewards[a] = outcome.reward
            self.infos[a] = {"illegal": outcome.illegal} if a == agent else {}
        for a in outcome.deaths:
            if a in self.terminations:
                self.terminations[a] = True
        if outcome.terminated:
            self.terminations = dict.fromkeys(self.agents, True)
        elif outcome.truncated:
            self.truncations = dict.fromkeys(self.agents, True)
        self._accumulate_rewards()
        dead = [a for a in self.agents if self.terminations[a] or self.truncations[a]]
        if dead:
            # PettingZoo: finished agents step once more (with None) before they leave
            self._skip_agent_selection = game.turn if game.turn in self.agents else None
            self.agent_selection = dead[0]
        else:
            self.agent_selection = game.turn if game.turn in self.agents else agent

    def render(self) -> str | None:
        """A few lines of text about the game (render_mode `ansi`)."""
        game = self.episode.game
        if self.render_mode != "ansi" or game is None:
            return None
        return describe(game, self.agent_selection)

    def close(self) -> None:
        """Nothing to release."""


def env(**kwargs: Any) -> SettlersEnv:
    """PettingZoo's usual factory: `SettlersEnv(**kwargs)`."""
    return SettlersEnv(**kwargs)
