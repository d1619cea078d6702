"""The learning environments: Gymnasium's and PettingZoo's checkers, masks, hidden cores, rewards, endings."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test  # type: ignore[import-untyped]

from asteroid_mining.ai import Observation, make_bot
from asteroid_mining.rl import Encoder, SettlersEnv, TeamEnv
from asteroid_mining.rl.encoding import CORE_CODES, feature_names
from asteroid_mining.rl.hops import Hops, links_key
from asteroid_mining.rl.table import GUIDES
from asteroid_mining.rules import Game, Options


def test_gymnasium_check_env() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(TeamEnv("tutorial"))


def test_pettingzoo_api_test() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(SettlersEnv("tutorial"), num_cycles=200)


def test_pettingzoo_api_test_extended_rules_with_deaths() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(SettlersEnv("small", rules="extended", max_rounds=60), num_cycles=400)


def test_gymnasium_make() -> None:
    import gymnasium

    env = gymnasium.make("AsteroidMining/Team-v0", belt="tutorial")
    obs, info = env.reset(seed=1)
    assert obs["observation"].shape == env.observation_space["observation"].shape  # type: ignore[index]
    assert info["settler"] == "s1"


def test_mask_is_exactly_the_legal_actions() -> None:
    env = TeamEnv("small", rules="extended")
    obs, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    encoder = env.episode.encoder
    for _ in range(300):
        game = env.episode.game
        assert game is not None
        settler = info["settler"]
        mask = obs["action_mask"]
        assert np.array_equal(mask, env.action_masks())
        o = Observation(game)
        for index in range(encoder.n_actions):
            legal = o.check(encoder.action(o, settler, index)) is None
            if mask[index]:
                assert legal, index
        assert mask[0] == 1  # wait is always possible
        obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not info["illegal"]
        if terminated or truncated:
            obs, info = env.reset(seed=int(rng.integers(100)))


def test_illegal_action_waits_and_costs() -> None:
    env = TeamEnv("tutorial")
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, _, _, info = env.step(illegal)
    assert info["illegal"]
    assert reward == pytest.approx(-0.01)


def test_observation_hides_unsurveyed_cores() -> None:
    game = Game.empty(Options(turns="strict"))
    game.add_asteroid("A", mantle=0)
    game.add_asteroid("B", mantle=3, core="uranium")
    game.add_asteroid("C", mantle=0, core="iron")
    game.link("A", "B")
    game.link("A", "C")
    game.add_settler("s1", "A")
    encoder = Encoder(slots=4)
    vector = encoder.observe(Observation(game), "s1")
    exits = encoder.exits(Observation(game), "s1")
    cores = {}
    names = feature_names(4)
    for i, (_, dest) in enumerate(exits):
        one_hot = [vector[names.index(f"exit{i}.core_{code}")] for code in CORE_CODES]
        cores[dest] = CORE_CODES[int(np.argmax(one_hot))]
    assert cores == {"B": "unknown", "C": "iron"}  # C is bare, so its core shows (R17)
    assert Observation(game).core("B") == "unknown"
    assert game.asteroids["B"].core == "uranium"


def test_the_planner_wins_through_the_env_and_is_rewarded() -> None:
    env = TeamEnv("small")
    bot = make_bot("planner")
    _, info = env.reset(seed=2)
    encoder = env.episode.encoder
    total = 0.0
    for _ in range(3000):
        game = env.episode.game
        assert game is not None
        o = Observation(game)
        wanted = bot.choose(o, info["settler"])
        index = next(i for i in range(encoder.n_actions) if encoder.action(o, info["settler"], i) == wanted
                     and env.action_masks()[i])
        _, reward, terminated, truncated, info = env.step(index)
        total += float(reward)
        if terminated or truncated:
            break
    assert terminated and info["status"] == "won"
    assert total == pytest.approx(1.0 + 0.05 * 12)


def test_truncated_at_the_round_cap() -> None:
    env = TeamEnv("tutorial", max_rounds=2)
    env.reset(seed=0)
    truncated = terminated = False
    steps = 0
    while not (truncated or terminated):
        _, _, terminated, truncated, _ = env.step(0)
        steps += 1
    assert truncated and not terminated
    assert steps == 6  # three settlers, two rounds


def test_aec_agents_follow_the_turn_order() -> None:
    env = SettlersEnv("tutorial")
    env.reset(seed=4)
    seen = []
    for agent in env.agent_iter(6):
        seen.append(agent)
        env.step(0)
    assert seen == ["s1", "s2", "s3", "s1", "s2", "s3"]


def test_core_package_does_not_import_the_rl_extra() -> None:
    code = ("import sys, asteroid_mining.ai, asteroid_mining.ai.simulate, asteroid_mining.rules, asteroid_mining.cli; "
            "print('gymnasium' in sys.modules or 'pettingzoo' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_guidance_counts_the_moves_to_each_target_and_hides_cores() -> None:
    # A - B - C - D in a line, and E hanging off A. s2 stands on D (a shelter) carrying 2 units; C's iron is
    # bare; B hides iron under its mantle and E hides carbon: neither counts as a needed core (R17)
    game = Game.empty(Options(turns="strict"))
    game.add_asteroid("A", mantle=2, core="hollow")
    game.add_asteroid("B", mantle=3, core="iron")
    game.add_asteroid("C", mantle=0, core="iron")
    game.add_asteroid("D", mantle=0, core="hollow")
    game.add_asteroid("E", mantle=2, core="carbon")
    game.link("A", "B", "E")
    game.link("B", "C")
    game.link("C", "D")
    game.add_settler("s1", "A")
    game.add_settler("s2", "D", {"carbon": 2})
    encoder = Encoder(slots=4)
    obs = Observation(game)
    assert [dest for _, dest in encoder.exits(obs, "s1")] == ["B", "E"]
    vector = encoder.observe(obs, "s1")
    names = feature_names(4)

    def row(prefix: str) -> dict[str, tuple[float, float]]:
        return {g: (float(vector[names.index(f"{prefix}.{g}_hops")]) * 16,
                    float(vector[names.index(f"{prefix}.{g}_closer")])) for g in GUIDES}

    # moves (× 16 undone) and whether the exit is closer than A
    assert row("here") == {"mate": (3, 0), "cargo": (3, 0), "need": (2, 0), "unknown": (1, 0), "shelter": (3, 0)}
    assert row("exit0") == {"mate": (2, 1), "cargo": (2, 1), "need": (1, 1), "unknown": (0, 1), "shelter": (2, 1)}
    assert row("exit1") == {"mate": (4, 0), "cargo": (4, 0), "need": (3, 0), "unknown": (0, 1), "shelter": (4, 0)}
    assert all(0.0 <= v <= 1.0 for v in vector)


def test_the_environment_keeps_the_distances_of_its_own_game() -> None:
    # the environment keeps its distances between steps and starts again with each game: its observations
    # equal ones made from scratch, game after game
    env = TeamEnv("small", difficulty="normal")
    for seed in (3, 4):
        obs, _ = env.reset(seed=seed)
        game = env.episode.game
        assert game is not None and game.turn is not None
        assert np.array_equal(obs["observation"], env.episode.encoder.observe(Observation(game), game.turn))


def test_distances_are_worked_out_again_when_the_links_change() -> None:
    game = Game.empty(Options(turns="strict"))
    for aid in "ABC":
        game.add_asteroid(aid)
    game.link("A", "B")
    game.link("B", "C")
    obs = Observation(game)
    hops = Hops(obs)
    hops.sync(links_key(obs))
    assert hops.rows([0]).tolist() == [[0, 1, 2]]
    game.link("A", "C")  # (set-up only: in play, links change with an explosion or a gate pair, which the key sees)
    hops.sync(links_key(obs))
    assert hops.rows([0]).tolist() == [[0, 1, 2]]  # the same key: the rows are kept
    hops.sync(("another key",))
    assert hops.rows([0]).tolist() == [[0, 1, 1]]
