"""A whole (tiny) training run of `asteroid-mining train`: it needs the learn extra (torch, sb3-contrib), which
the test suite never installs; tests/ai/conftest.py collects this file only where the extra is importable and
says so in the report's header otherwise."""

from __future__ import annotations

import csv
from pathlib import Path

from asteroid_mining.rl import observation_size
from asteroid_mining.rl.learned import load_policy
from asteroid_mining.rl.train import TrainConfig


def test_a_short_training_run_writes_everything(tmp_path: Path) -> None:
    from asteroid_mining.rl.train import train

    out = tmp_path / "run"
    config = TrainConfig(out, steps=64, imitate=200, dagger=1, envs=2, eval_every=32, eval_games=1, seed=3,
                         difficulty="easy", hidden=(16,), command="asteroid-mining train --steps 64")
    best = train(config, echo=lambda line: None)
    assert best == out / "policy.npz" and load_policy(best).weights[0].shape == (observation_size(), 16)
    assert (out / "curve.png").is_file() and (out / "config.json").is_file()
    steps = [int(r["step"]) for r in csv.DictReader((out / "curve.csv").open(encoding="utf-8"))]
    assert steps[:2] == [100, 200] and steps[-1] >= 200 + 64  # the planner's moves, one DAgger round, then PPO
    assert sorted(p.name for p in (out / "checkpoints").glob("*.npz")) == sorted(f"step-{s}.npz" for s in steps)
