"""TeamEnv in Gymnasium's vector environments, and observations from the touched-rows table."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

from asteroid_mining.ai import Observation
from asteroid_mining.rl import TeamEnv
from asteroid_mining.rl.table import BeltTable


def _team() -> TeamEnv:
    return TeamEnv("small", max_rounds=40)


@pytest.mark.parametrize("vector", [SyncVectorEnv, AsyncVectorEnv])
def test_team_env_runs_in_a_vector_env(vector: type[SyncVectorEnv] | type[AsyncVectorEnv]) -> None:
    envs = vector([_team, _team])
    try:
        obs, _ = envs.reset(seed=[3, 4])
        encoder = TeamEnv("small").episode.encoder
        size = encoder.size
        assert obs["observation"].shape == (2, size)
        rng = np.random.default_rng(0)
        finished = 0
        for _ in range(400):
            masks = obs["action_mask"]
            assert masks.shape == (2, encoder.n_actions)
            # a finished game's last observation allows `wait` alone: the next step only resets it
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
            obs, rewards, terminated, truncated, _ = envs.step(actions)
            assert obs["observation"].shape == (2, size) and rewards.shape == (2,)
            assert ((obs["observation"] >= 0) & (obs["observation"] <= 1)).all()
            finished += int(np.sum(terminated | truncated))
        assert finished >= 2  # 40-round games end within 400 steps: the environments reset themselves
    finally:
        envs.close()


def test_vector_envs_agree_with_a_single_env() -> None:
    single = _team()
    envs = SyncVectorEnv([_team])
    try:
        obs, _ = single.reset(seed=9)
        vobs, _ = envs.reset(seed=9)
        rng = np.random.default_rng(1)
        for _ in range(60):
            assert np.array_equal(obs["observation"], vobs["observation"][0])
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            obs, _, terminated, truncated, _ = single.step(action)
            vobs, *_ = envs.step(np.array([action]))
            if terminated or truncated:
                break
    finally:
        envs.close()


@pytest.mark.parametrize("rules", ["classic", "extended"])
def test_table_observations_equal_the_direct_ones(rules: str) -> None:
    # the table keeps only what the engine touched up to date: over random play with storms, explosions and
    # UFOs, every observation and mask must equal the one read from the game itself
    env = TeamEnv("small", rules=rules)
    obs, info = env.reset(seed=11)
    rng = np.random.default_rng(2)
    encoder = env.episode.encoder
    for _ in range(1500):
        game = env.episode.game
        assert game is not None
        direct = encoder.observe(Observation(game), info["settler"])
        assert np.array_equal(obs["observation"], direct)
        assert np.array_equal(obs["action_mask"], encoder.mask(Observation(game), info["settler"]))
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            obs, info = env.reset(seed=int(rng.integers(0, 10_000)))


def test_the_table_rewrites_only_touched_rows() -> None:
    env = TeamEnv("small")
    env.reset(seed=2)
    game = env.episode.game
    table = env.episode.table
    assert game is not None and isinstance(table, BeltTable)
    before = table.features.copy()
    game.take_touched()  # nothing reported: a row changed behind the table's back stays as it was
    row = table.row[next(iter(game.asteroids))]
    table.features[row] = 0.5
    table.update()
    assert (table.features[row] == 0.5).all()
    table.refresh([next(iter(game.asteroids))])
    assert np.array_equal(table.features, before)
