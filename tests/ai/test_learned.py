"""The `learned` bot (rl/learned.py) and the pieces of `asteroid-mining train` (rl/train.py).

None of these needs torch: the shipped policy plays with numpy alone. The one test of a whole training run is
in test_training_run.py, collected only where the learn extra is installed (tests/ai/conftest.py).
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import fisher_exact

from asteroid_mining.ai import Observation, make_bot
from asteroid_mining.ai.simulate import SimConfig, run
from asteroid_mining.rl import Encoder, observation_size
from asteroid_mining.rl.learned import WEIGHTS, LearnedBot, PolicyError, feature_version, load_policy, sidecar_of
from asteroid_mining.rl.train import (
    CURVE_FIELDS,
    EXTRA_MISSING,
    TrainConfig,
    TrainError,
    evaluate,
    policy_of,
    save_policy,
    sidecar,
    write_curve,
)
from asteroid_mining.rules import Refused

from .conftest import small_game

SIDECAR = json.loads(sidecar_of(WEIGHTS).read_text(encoding="utf-8"))


def test_the_shipped_policy_loads_and_is_small() -> None:
    policy = load_policy()
    assert policy.activation in ("relu", "tanh")
    assert WEIGHTS.stat().st_size < 400_000
    assert policy.weights[0].shape[0] == observation_size(policy.slots)
    assert policy.weights[-1].shape[1] == Encoder(policy.slots).n_actions


def test_the_sidecar_matches_the_observation_of_today() -> None:
    # a feature added, removed or moved changes these: the shipped policy must then be trained again
    assert SIDECAR["observation_size"] == observation_size(SIDECAR["slots"])
    assert SIDECAR["feature_version"] == feature_version(SIDECAR["slots"])
    assert SIDECAR["command"].startswith("asteroid-mining train ")
    assert isinstance(SIDECAR["seed"], int)


def test_learned_is_a_built_in_bot() -> None:
    bot = make_bot("learned", 4)
    assert isinstance(bot, LearnedBot) and bot.name == "learned"


def test_a_server_seats_it_without_the_learning_extras() -> None:
    # the server's bot seats: a game on a server installed by `make play` (no gymnasium, no torch) plays it
    code = """
import sys
for blocked in ("gymnasium", "pettingzoo", "torch", "sb3_contrib", "stable_baselines3"):
    sys.modules[blocked] = None
from asteroid_mining.maps.generator import generate_belt
from asteroid_mining.rules import CLASSIC, Game
from asteroid_mining.server.bots import available_bots, make_player
assert "learned" in available_bots(), available_bots()
game = Game.new(generate_belt("small", seed=2), CLASSIC, seed=2, settlers=3)
player = make_player("learned", 2)
for _ in range(30):
    action = player(game, game.turn)
    assert game.check(action) is None, action
    game.apply(action)
print("played", game.round)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0 and "played" in done.stdout, done.stderr


def _policy_files(tmp_path: Path, **changes: object) -> Path:
    arrays = {k: v for k, v in np.load(WEIGHTS).items()}
    path = save_policy(arrays, {**SIDECAR, **changes}, tmp_path / "p.npz")
    return path


def test_a_policy_for_another_observation_is_refused_by_name(tmp_path: Path) -> None:
    path = _policy_files(tmp_path, observation_size=SIDECAR["observation_size"] + 2)
    with pytest.raises(PolicyError, match=r"p\.json: learned-v2 was trained on observations of .* train it again"):
        load_policy(path)
    path = _policy_files(tmp_path, feature_version="000000000000")
    with pytest.raises(PolicyError, match="train it again"):
        load_policy(path)


LEARNED_V1 = {
    "format": "asteroid-mining policy 1", "observation_size": 355, "feature_version": "2dab7e0166ac", "slots": 16,
    "max_rounds": 300, "activation": "relu", "layers": 3,
    "command": "asteroid-mining train --out runs/learned-v1 --seed 1 --belt small --difficulty normal --imitate "
               "300000 --dagger 0 --steps 600000 --threads 1", "seed": 1,
}
"""The sidecar of the first shipped policy, made before the guidance features (`rl.hops`)."""


def test_the_first_policy_is_refused_by_name(tmp_path: Path) -> None:
    # learned-v1 saw 355 features: the guidance columns came after it, so it cannot play today's observation
    assert WEIGHTS.name == "learned-v2.npz" and SIDECAR["version"] == "learned-v2"
    assert not (WEIGHTS.parent / "learned-v1.npz").exists()
    old = tmp_path / "learned-v1.npz"
    sidecar_of(old).write_text(json.dumps(LEARNED_V1), encoding="utf-8")
    with pytest.raises(PolicyError, match=r"learned-v1\.json: learned-v1 was trained on observations of 355 "
                                          r"features \(table 2dab7e0166ac\), the game's are 525 .*learned-v2\): "
                                          "train it again"):
        load_policy(old)


@pytest.mark.parametrize(("changes", "message"), [
    ({"layers": "3"}, r"layers: missing or not a int"),
    ({"activation": "gelu"}, r"activation: 'gelu' is not one of relu, tanh"),
    ({"layers": 9}, r"no array w\d"),
])
def test_a_damaged_sidecar_is_named(tmp_path: Path, changes: dict[str, object], message: str) -> None:
    with pytest.raises(PolicyError, match=message):
        load_policy(_policy_files(tmp_path, **changes))


def test_missing_and_damaged_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="no sidecar"):
        load_policy(tmp_path / "none.npz")
    path = _policy_files(tmp_path)
    path.write_bytes(b"not a zip")
    with pytest.raises(PolicyError, match=r"p\.npz: not a weights file"):
        load_policy(path)


def test_it_plays_legal_moves_only_and_deterministically() -> None:
    histories = []
    for _ in range(2):
        game = small_game(3)
        bot, obs = make_bot("learned", 0), Observation(game)
        moves = 0
        while game.status == "running" and game.round <= 60:
            settler = game.turn
            assert settler is not None
            action = bot.choose(obs, settler)
            assert game.check(action) is None, action
            try:
                game.apply(action)
            except Refused as refused:  # pragma: no cover - the check above says why
                pytest.fail(f"refused {action}: {refused}")
            moves += 1
        assert moves > 0
        histories.append(game.history)
    assert histories[0] == histories[1]


SEEDS = 200
"""Fixed seeds of the comparison with the random bot (small belt, easy, a cap of 100 rounds: short games)."""


def test_it_beats_the_random_bot_by_more_than_chance() -> None:
    def wins(bot: str) -> int:
        config = SimConfig(bots=(bot,), games=SEEDS, belt="small", seed=5_000, max_rounds=100, difficulty="easy")
        return sum(g.outcome == "won" for g in run(config))

    learned, random = wins("learned"), wins("random")
    # one-sided Fisher exact test: the chance that win counts this far apart come from equal win rates
    p = fisher_exact([[learned, SEEDS - learned], [random, SEEDS - random]], alternative="greater").pvalue
    assert p < 1e-6, (learned, random, p)


# ----- the pieces of `train` that need no torch -----

def test_train_refuses_bad_arguments_by_name(tmp_path: Path) -> None:
    cases = [
        ({"steps": -1}, "--steps must be 0 or more"),
        ({"steps": 0, "imitate": 0}, "nothing to train"),
        ({"dagger": -1}, "--dagger must be 0 or more"),
        ({"envs": 0}, "--envs must be at least 1"),
        ({"eval_every": 0}, "--eval-every must be at least 1"),
        ({"hidden": ()}, "--hidden"),
        ({"learning_rate": 2.0}, "--learning-rate"),
        ({"rules": "chess"}, "--rules: unknown rules 'chess'"),
        ({"belt": "nowhere"}, "--belt/--difficulty: unknown belt 'nowhere'"),
        ({"difficulty": "insane"}, "--belt/--difficulty"),
    ]
    for changes, message in cases:
        with pytest.raises(TrainError, match=message):
            TrainConfig(tmp_path / "out", **changes).check()  # type: ignore[arg-type]
    (tmp_path / "file").write_text("x")
    with pytest.raises(TrainError, match="is a file, not a directory"):
        TrainConfig(tmp_path / "file").check()
    assert not (tmp_path / "out").exists()


def test_without_the_extra_train_says_so_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from asteroid_mining.cli import app

    for module in ("torch", "sb3_contrib"):
        monkeypatch.setitem(sys.modules, module, None)  # import fails as if it were not installed
    with pytest.raises(SystemExit) as done:
        app(["train", "--out", str(tmp_path / "out"), "--steps", "10"])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err == f"asteroid-mining: error: {EXTRA_MISSING}\n"
    assert "pip install asteroid-mining[learn]" in err
    assert not (tmp_path / "out").exists()


def test_the_learning_curve_files(tmp_path: Path) -> None:
    rows = [
        {"step": 1000, "phase": "imitation", "seconds": 1.5, "episodes": 0, "train_win_rate": "",
         "train_reward": "", "eval_games": 4, "eval_wins": 1, "eval_win_rate": 0.25},
        {"step": 2000, "phase": "reinforcement", "seconds": 3.0, "episodes": 7, "train_win_rate": 0.25,
         "train_reward": 0.5, "eval_games": 4, "eval_wins": 2, "eval_win_rate": 0.5},
    ]
    csv_path, png_path = write_curve(rows, tmp_path / "run", "test")
    with csv_path.open(encoding="utf-8") as f:
        read = list(csv.DictReader(f))
    assert tuple(read[0]) == CURVE_FIELDS
    assert [r["eval_win_rate"] for r in read] == ["0.25", "0.5"] and read[0]["train_reward"] == ""
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_an_exported_policy_plays_as_its_file_does(tmp_path: Path) -> None:
    config = TrainConfig(tmp_path, belt="small", difficulty="easy", eval_games=2, command="asteroid-mining train x")
    arrays = {k: v for k, v in np.load(WEIGHTS).items()}
    meta = sidecar(config, SIDECAR["layers"], SIDECAR["activation"])
    assert meta["observation_size"] == observation_size() and meta["command"] == "asteroid-mining train x"
    path = save_policy(arrays, meta, tmp_path / "mine.npz")
    from_file, in_memory = load_policy(path), policy_of(arrays, meta)
    game = small_game(8)
    vector = Encoder(from_file.slots).observe(Observation(game), "s1")
    assert np.array_equal(from_file.logits(vector), in_memory.logits(vector))
    assert evaluate(from_file, config) == evaluate(in_memory, config)


def test_the_learn_extra_is_installed_by_no_make_goal(tmp_path: Path) -> None:
    from tests.test_makefile import PYPROJECT, dry_run, installed, name

    learn = {name(r) for r in PYPROJECT["optional-dependencies"]["learn"]}
    assert {"torch", "sb3-contrib", "stable-baselines3"} <= learn
    assert "torch==2.13.0" in PYPROJECT["optional-dependencies"]["learn"]
    for goal in ("play", "test", "setup"):
        assert not installed(dry_run(tmp_path / goal, goal)) & {"torch", "sb3-contrib", "stable-baselines3"}
