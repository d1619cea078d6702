"""`simulate --record` (Parquet datasets), the per-game fields of `--out`, bots shown by name, and the versioned
benchmark (`simulate --benchmark`), reproducible from its version whatever the number of processes."""

from __future__ import annotations

import csv
import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest

from asteroid_mining.ai.benchmark import PROTOCOLS, results, row
from asteroid_mining.ai.simulate import GameResult, SimConfig, SimulationError, iter_results, run
from asteroid_mining.maps.resolve import belt_source
from asteroid_mining.rl import feature_names, observation_size
from asteroid_mining.rl.record import FORMAT, file_name
from asteroid_mining.rules import Game, action_from_json


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "asteroid_mining", "simulate", *args], capture_output=True,
                          text=True, timeout=180, cwd=cwd)


def reproducible(r: GameResult) -> dict[str, Any]:
    """A result without its timings (wall-clock and thinking time: the only figures that vary)."""
    return {k: v for k, v in dataclasses.asdict(r).items() if k not in ("seconds", "think_seconds")}


def test_recording_changes_no_result_and_writes_every_step(tmp_path: Path) -> None:
    config = SimConfig(bots=("planner", "random"), games=2, belt="small", seed=3, max_rounds=40)
    plain = run(config)
    recorded = run(dataclasses.replace(config, record=str(tmp_path)))
    assert [reproducible(r) for r in plain] == [reproducible(r) for r in recorded]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        file_name(b, g) for b in ("planner", "random") for g in range(2))
    for r in recorded:
        table = pq.read_table(tmp_path / file_name(r.bot, r.game))
        assert table.schema.metadata[b"format"].decode() == FORMAT
        assert json.loads(table.schema.metadata[b"feature_names"]) == feature_names()
        assert table.num_rows == r.decisions == r.actions
        assert table["seed"].to_pylist() == [r.seed] * table.num_rows
        assert set(table["outcome"].to_pylist()) == {r.outcome}
        ends = np.flatnonzero(table["terminated"].to_numpy(zero_copy_only=False)
                              | table["truncated"].to_numpy(zero_copy_only=False))
        assert ends.tolist() == [table.num_rows - 1]  # the last step, and only it, ends the episode
        # the recorded actions replay the very game: same end, same rounds
        resolved = belt_source("small")(r.seed)
        game = Game.new(resolved.belt, resolved.options_for("classic"), seed=r.seed, settlers=3)
        for text in table["action_json"].to_pylist():
            game.apply(action_from_json(json.loads(text)))
        assert (game.status if game.status != "running" else "timeout") == r.outcome
        # an action's index, when it has one, is allowed by the mask recorded with it
        masks = table["action_mask"].combine_chunks().flatten().to_numpy().reshape(table.num_rows, -1)
        actions = table["action"].to_numpy()
        has = actions >= 0
        assert has.mean() > 0.9
        assert (masks[np.flatnonzero(has), actions[has]] == 1).all()


def test_the_documented_three_lines_load_a_dataset(tmp_path: Path) -> None:
    run(SimConfig(bots=("greedy",), games=2, belt="tutorial", seed=1, max_rounds=30, record=str(tmp_path)))
    import pyarrow.parquet as pq  # the three lines of docs/ai.md, with this test's folder
    steps = pq.read_table(str(tmp_path))
    obs = steps["observation"].combine_chunks().flatten().to_numpy().reshape(len(steps), -1)
    assert obs.shape == (len(steps), observation_size()) and len(steps) > 0
    assert ((obs >= 0) & (obs <= 1)).all()
    assert sorted(set(steps["game"].to_pylist())) == [0, 1]


def test_recorded_datasets_are_the_same_with_jobs(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    config = SimConfig(bots=("random",), games=3, belt="tutorial", seed=8, max_rounds=25)
    run(dataclasses.replace(config, record=str(one)))
    run(dataclasses.replace(config, record=str(two)), jobs=2)
    for path in sorted(one.iterdir()):
        assert pq.read_table(path).equals(pq.read_table(two / path.name))


def test_record_needs_an_existing_folder(tmp_path: Path) -> None:
    with pytest.raises(SimulationError, match=r"--record .*: no such folder"):
        iter_results(SimConfig(record=str(tmp_path / "missing")))
    done = cli("--games", "1", "--belt", "tutorial", "--record", str(tmp_path / "missing"))
    assert done.returncode == 2 and "no such folder" in done.stderr and "Traceback" not in done.stderr


def test_out_records_each_games_rounds_actions_cause_and_time(tmp_path: Path) -> None:
    out = tmp_path / "games.csv"
    done = cli("--games", "2", "--belt", "small", "--bot", "random", "--seed", "0", "--max-rounds", "60",
               "--out", str(out))
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    direct = run(SimConfig(bots=("random",), games=2, belt="small", seed=0, max_rounds=60))
    for r, g in zip(rows, direct, strict=True):
        assert (r["outcome"], int(r["rounds"]), int(r["actions"]), r["cause"]) == (g.outcome, g.rounds, g.actions,
                                                                                   g.cause)
        assert float(r["seconds"]) > 0
        assert r["cause"] == {"won": "", "timeout": "timeout"}.get(g.outcome, r["cause"])
        if g.outcome == "lost":
            assert set(r["cause"].split(", ")) == {c for c, n in g.deaths.items() if n}


def test_a_bot_in_a_file_is_shown_by_its_name(tmp_path: Path) -> None:
    deep = tmp_path / "a_rather_long_folder_name" / "and_another_one_inside_it"
    deep.mkdir(parents=True)
    (deep / "mine.py").write_text(
        "from asteroid_mining.ai.random_bot import RandomBot\n\n\n"
        "class Mine(RandomBot):\n    name = 'my-bot'\n", encoding="utf-8")
    done = cli("--games", "1", "--belt", "tutorial", "--max-rounds", "10", "--bot", f"{deep / 'mine.py'}:Mine",
               "--bot", "random")
    assert done.returncode == 0, done.stderr
    assert "my-bot" in done.stdout
    assert "and_another_one" not in done.stdout


def _benchmark(jobs: int) -> list[dict[str, Any]]:
    return [reproducible(r) for r in sorted(results(PROTOCOLS["v1"], "random", jobs, games=1),
                                           key=lambda r: r.seed)]


def test_benchmark_is_reproducible_from_its_version_whatever_the_jobs() -> None:
    first = _benchmark(1)
    assert len(first) == len(PROTOCOLS["v1"].cells)
    assert first == _benchmark(1)
    assert first == _benchmark(2)
    cells = PROTOCOLS["v1"].cells
    assert [g["seed"] for g in first] == [c.first for c in cells]


def test_benchmark_command_prints_a_leaderboard_row(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    done = cli("--benchmark", "v1", "--games", "1", "--bot", "random", "--jobs", "2", "--out", str(out))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1].startswith("| bot | benchmark | games | win rate (95% CI)")
    doc = json.loads(out.read_text(encoding="utf-8"))
    played = [GameResult(**{**g, "deaths": g["deaths"]}) for g in doc["games"]]
    assert lines[3] == row(PROTOCOLS["v1"], "random", played).line()
    assert lines[3].startswith("| random | v1 | 8 | 0.0% (0.0–32.4%) |")
    assert doc["config"]["version"] == "v1"


@pytest.mark.parametrize(("args", "message"), [
    (("--benchmark", "v0"), "unknown benchmark 'v0': use v1"),
    (("--benchmark", "v1", "--belt", "small"), "--benchmark fixes the belts"),
    (("--benchmark", "v1", "--games", "0"), "--games must be at least 1"),
])
def test_benchmark_bad_input(args: tuple[str, ...], message: str) -> None:
    done = cli(*args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
