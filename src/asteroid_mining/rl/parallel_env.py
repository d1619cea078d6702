"""`ParallelSettlersEnv`: the PettingZoo Parallel API over the same game as `SettlersEnv` (one agent per settler).

The game is turn-based (R9a): each `step` takes an action from every living agent, and the settler whose turn it
is acts with its own; the others' actions are ignored (their masks allow `wait` alone, so a masked sampler picks
it). `infos[agent]["acting"]` says which agent acts next. Every living agent gets the team's reward of each
step. A settler that dies is terminated and leaves `agents`; when the game is won or lost every agent is
terminated, after `max_rounds` every agent is truncated. Observations are as in `SettlersEnv`: dicts of
`observation` (the settler's own view) and `action_mask`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv  # type: ignore[import-untyped]  # pettingzoo ships no type information

from ..rules import Belt
from .episode import Episode, describe, final_mask

ObsDict = dict[str, Any]


class ParallelSettlersEnv(ParallelEnv):  # type: ignore[misc]  # an untyped base class
    """One agent per settler; each step, the settler whose turn it is acts."""

    metadata: dict[str, Any] = {"name": "asteroid_mining_parallel_v0", "render_modes": ["ansi"]}  # noqa: RUF012

    def __init__(self, belt: str | Belt = "small", rules: str = "classic", settlers: int = 3,
                 max_rounds: int = 300, neighbour_slots: int = 16, render_mode: str | None = None,
                 difficulty: str | None = None, bots: Mapping[str, str] | None = None) -> None:
        """The options of `SettlersEnv`; bad values raise ValueError."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.episode = Episode(belt, rules, settlers, max_rounds, neighbour_slots, difficulty, bots)
        encoder = self.episode.encoder
        self.possible_agents: list[str] = list(self.episode.learners)
        self.agents: list[str] = []
        self._obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (encoder.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (encoder.n_actions,), dtype=np.int8),
        })
        self._action_space = spaces.Discrete(encoder.n_actions)
        self._seeds = np.random.default_rng()
        self._acting: str | None = None

    @cache  # noqa: B019  (PettingZoo asks for the same space object at each call; the env lives as long)
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The same Dict space for every settler."""
        return self._obs_space

    @cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Discrete: see `encoding`."""
        return self._action_space

    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, ObsDict], dict[str, dict[str, Any]]]:
        """A new game; `seed` fixes the belt (for presets) and the game's dice."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = seed
        else:
            game_seed = int(self._seeds.integers(0, 2**31 - 1))
        game = self.episode.start(game_seed)
        self.agents = self.possible_agents[:]
        self._acting = game.turn if game.turn in self.agents else None
        return self._observe(), self._infos()

    def step(self, actions: Mapping[str, Any]) -> tuple[dict[str, ObsDict], dict[str, float], dict[str, bool],
                                                         dict[str, bool], dict[str, dict[str, Any]]]:
        """The acting settler takes its action from `actions` (a missing one is `wait`); the others' are
        ignored."""
        agent = self._acting
        if agent is None or not self.agents:
            raise ValueError("the game is over: call reset()")
        outcome = self.episode.step(agent, int(actions.get(agent, 0)))
        game = self.episode.game
        assert game is not None
        living = self.agents
        rewards = dict.fromkeys(living, float(outcome.reward))
        terminated = {a: outcome.terminated or a in outcome.deaths for a in living}
        truncated = dict.fromkeys(living, outcome.truncated)
        self.agents = [a for a in living if not (terminated[a] or truncated[a])]
        self._acting = game.turn if game.turn in self.agents else None
        observations = self._observe(living)
        infos = self._infos(living)
        infos[agent]["illegal"] = outcome.illegal
        return observations, rewards, terminated, truncated, infos

    def _observe(self, agents: list[str] | None = None) -> dict[str, ObsDict]:
        out: dict[str, ObsDict] = {}
        n = self.episode.encoder.n_actions
        for a in self.agents if agents is None else agents:
            vector, mask = self.episode.encode(a)
            if a != self._acting:
                mask = final_mask(n)  # `wait` alone: the action of an agent whose turn it is not is ignored
            out[a] = {"observation": vector, "action_mask": mask}
        return out

    def _infos(self, agents: list[str] | None = None) -> dict[str, dict[str, Any]]:
        return {a: {"acting": a == self._acting} for a in (self.agents if agents is None else agents)}

    def render(self) -> str | None:
        """A few lines of text about the game (render_mode `ansi`)."""
        game = self.episode.game
        if self.render_mode != "ansi" or game is None:
            return None
        return describe(game, self._acting)

    def close(self) -> None:
        """Nothing to release."""


def parallel_env(**kwargs: Any) -> ParallelSettlersEnv:
    """PettingZoo's usual factory: `ParallelSettlersEnv(**kwargs)`."""
    return ParallelSettlersEnv(**kwargs)
