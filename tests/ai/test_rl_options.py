"""The environments' options (difficulty, bots in seats), the Parallel API, the final step's mask in vector
environments with either autoreset mode, and the batched environment."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from pettingzoo.test import parallel_api_test  # type: ignore[import-untyped]

from asteroid_mining.ai import Observation, make_bot
from asteroid_mining.rl import BatchEnv, Episode, ParallelSettlersEnv, TeamEnv
from asteroid_mining.rl.encoding import FIXED_ACTIONS


def test_pettingzoo_parallel_api_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(ParallelSettlersEnv("tutorial", max_rounds=30), num_cycles=300)


def test_parallel_api_test_with_deaths_and_a_bot_seat() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(ParallelSettlersEnv("small", rules="extended", max_rounds=60, difficulty="brutal",
                                              bots={"s3": "greedy"}), num_cycles=400)


def test_parallel_env_only_the_acting_settler_acts() -> None:
    env = ParallelSettlersEnv("small", max_rounds=20)
    obs, infos = env.reset(seed=5)
    game = env.episode.game
    assert game is not None
    for _ in range(30):
        acting = [a for a in env.agents if infos[a]["acting"]]
        assert acting == [game.turn]
        for a in env.agents:
            if a != game.turn:
                assert obs[a]["action_mask"].tolist() == [1] + [0] * (len(obs[a]["action_mask"]) - 1)
        mask = obs[acting[0]]["action_mask"]
        move = int(np.flatnonzero(mask[FIXED_ACTIONS:])[0]) + FIXED_ACTIONS
        before = {s.id: s.at for s in game.settlers.values()}
        # the others "move" too, but their actions are ignored
        obs, _, _, _, infos = env.step(dict.fromkeys(env.agents, move))
        after = {s.id: s.at for s in game.settlers.values()}
        assert [s for s in before if before[s] != after[s]] in ([acting[0]], [])
        if not env.agents:
            break


@pytest.mark.parametrize("mode", [AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP])
def test_vector_env_masks_are_never_empty(mode: AutoresetMode) -> None:
    # a masked policy samples from every row's mask at every step: the finished game's last mask (next-step
    # mode) and the new game's first (same-step mode) must each allow an action
    envs = SyncVectorEnv([lambda: TeamEnv("small", max_rounds=15)] * 2, autoreset_mode=mode)
    try:
        obs, _ = envs.reset(seed=[1, 2])
        rng = np.random.default_rng(0)
        ended = 0
        for _ in range(200):
            masks = obs["action_mask"]
            assert masks.any(axis=1).all()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, _, terminated, truncated, info = envs.step(actions)
            done = terminated | truncated
            ended += int(done.sum())
            if mode is AutoresetMode.SAME_STEP and done.any():
                finals = info["final_obs"]
                for i in np.flatnonzero(done):
                    assert finals[i]["action_mask"].tolist()[0] == 1
        assert ended >= 2
    finally:
        envs.close()


def test_team_env_final_mask_is_wait_alone() -> None:
    env = TeamEnv("small", max_rounds=5)
    obs, _ = env.reset(seed=3)
    while True:
        obs, _, terminated, truncated, info = env.step(0)
        if terminated or truncated:
            break
    assert obs["action_mask"][0] == 1 and obs["action_mask"][1:].sum() == 0
    assert np.array_equal(env.action_masks(), obs["action_mask"])
    assert np.array_equal(info["action_mask"], obs["action_mask"])


def test_difficulty_option_reaches_the_game() -> None:
    plain = TeamEnv("small")
    brutal = TeamEnv("small", difficulty="brutal")
    plain.reset(seed=4)
    brutal.reset(seed=4)
    assert plain.episode.game is not None and brutal.episode.game is not None
    assert brutal.episode.game.options.storm_warning == 0
    assert plain.episode.game.options.storm_warning != 0


def test_bots_play_their_seats_and_the_agent_the_others() -> None:
    env = TeamEnv("small", bots={"s2": "planner", "s3": "planner"}, max_rounds=200)
    obs, info = env.reset(seed=8)
    game = env.episode.game
    assert game is not None
    planner = make_bot("planner", 8)
    moves = {"s2": 0, "s3": 0}
    steps = 0
    while True:
        assert info["settler"] == "s1"
        before = {s: game.settlers[s].at for s in moves}
        action = planner.choose(Observation(game), "s1")
        # the planner's choice for s1, as an index: the first legal index giving the same action
        o = Observation(game)
        index = next(i for i in np.flatnonzero(obs["action_mask"])
                     if env.episode.encoder.action(o, "s1", int(i)) == action)
        obs, _, terminated, truncated, info = env.step(int(index))
        steps += 1
        for s in moves:
            moves[s] += before[s] != game.settlers[s].at
        if terminated or truncated:
            break
    assert game.status == "won"  # three planners, one of them through the environment
    assert moves["s2"] > 0 and moves["s3"] > 0


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"bots": {"s4": "planner"}}, "bots['s4']: no such seat"),
    ({"bots": {"s2": "nobody"}}, "bots['s2']: unknown bot 'nobody'"),
    ({"bots": {"s1": "random", "s2": "random", "s3": "random"}}, "bots: every seat is a bot's"),
    ({"difficulty": "impossible"}, "unknown difficulty 'impossible'"),
    ({"rules": "chess"}, "unknown rules 'chess'"),
    ({"belt": "nowhere"}, "unknown belt 'nowhere'"),
])
def test_bad_options_are_clear_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("[", r"\[").replace("(", r"\(")):
        TeamEnv(**kwargs)  # type: ignore[arg-type]


def test_batch_env_rows_are_the_games_of_their_seeds() -> None:
    batch = BatchEnv(3, "small", max_rounds=12)
    singles = [Episode("small", max_rounds=12) for _ in range(3)]
    obs, masks = batch.reset(seed=20)
    for i, e in enumerate(singles):
        game = e.start(20 + i)
        vector, mask = e.encode(game.turn or "s1")
        assert np.array_equal(obs[i], vector) and np.array_equal(masks[i], mask)
    rng = np.random.default_rng(3)
    restarted = 0
    for _ in range(120):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        expected = []
        for i, e in enumerate(singles):
            outcome = e.step(batch.settler[i], int(actions[i]))
            expected.append(outcome)
        obs, masks, rewards, terminated, truncated = batch.step(actions)
        assert masks.any(axis=1).all()
        for i, (e, outcome) in enumerate(zip(singles, expected, strict=True)):
            assert rewards[i] == np.float32(outcome.reward)
            assert terminated[i] == outcome.terminated and truncated[i] == outcome.truncated
            if outcome.terminated or outcome.truncated:
                restarted += 1
                assert np.array_equal(batch.final_observation[i], e.encode(batch_settler_before(e))[0])
                e.start(int(batch.seeds[i]))
            now = e.game
            assert now is not None
            assert np.array_equal(obs[i], e.encode(now.turn or "s1")[0])
    assert restarted >= 3


def batch_settler_before(e: Episode) -> str:
    game = e.game
    assert game is not None
    return game.turn or "s1"


def test_batch_env_is_reproducible_from_its_seed() -> None:
    def run() -> list[float]:
        batch = BatchEnv(4, "small", max_rounds=8)
        obs, masks = batch.reset(seed=1)
        rng = np.random.default_rng(0)
        total = []
        for _ in range(80):
            obs, masks, rewards, *_ = batch.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            total.append(float(obs.sum()) + float(rewards.sum()))
        return total

    assert run() == run()


def test_batch_env_refuses_bad_actions() -> None:
    batch = BatchEnv(2, "tutorial")
    batch.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions must be 2 integers"):
        batch.step(np.array([0, 0, 0]))
    with pytest.raises(ValueError, match=r"actions must be in 0…26"):
        batch.step(np.array([0, 99]))


def test_checkers_pass_with_bots_in_seats_and_a_difficulty() -> None:
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test

    from asteroid_mining.rl import SettlersEnv

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(TeamEnv("tutorial", difficulty="hard", bots={"s1": "greedy"}))
        aec = SettlersEnv("small", rules="extended", max_rounds=60, difficulty="brutal", bots={"s2": "random"})
        assert aec.possible_agents == ["s1", "s3"]
        api_test(aec, num_cycles=300)


def test_batch_env_rows_share_the_difficulty_and_the_bots() -> None:
    batch = BatchEnv(3, "small", difficulty="brutal", bots={"s3": "greedy"})
    batch.reset(seed=2)
    for e in batch.episodes:
        assert e.game is not None and e.game.options.storm_warning == 0
        assert e.learners == ["s1", "s2"]
    assert set(batch.settler) <= {"s1", "s2"}
