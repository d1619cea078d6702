"""The backends of `simulate`: one process, `--jobs 2` and `--ray` give the same results for the same seed; a
worker that dies is retried; a game that raises is reported with its seed and the run goes on."""

from __future__ import annotations

import logging
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest

from asteroid_mining.ai.simulate import GameResult, SimConfig, SimulationError, iter_results, run

BOTS = '''
import os
from pathlib import Path

from asteroid_mining.ai import make_bot

MARKER = Path({marker!r})


class DiesOnce:
    """The planner, but the process playing seed 3 dies the first time (as a killed worker would)."""

    name = "dies-once"

    def __init__(self, seed: int = 0) -> None:
        self.seed, self.inner = seed, make_bot("planner", seed)

    def choose(self, obs, settler):
        if self.seed == 3 and not MARKER.exists():
            MARKER.write_text("died")
            os._exit(1)
        return self.inner.choose(obs, settler)


class RaisesOnSeed2:
    """The planner, but the game of seed 2 raises."""

    name = "raises"

    def __init__(self, seed: int = 0) -> None:
        self.seed, self.inner = seed, make_bot("planner", seed)

    def choose(self, obs, settler):
        if self.seed == 2:
            raise ValueError("a bug in the bot")
        return self.inner.choose(obs, settler)
'''


@pytest.fixture
def bots(tmp_path: Path) -> Path:
    path = tmp_path / "bots.py"
    path.write_text(BOTS.format(marker=str(tmp_path / "died")), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """One small local Ray cluster for the module: two CPUs, no dashboard, a temporary folder."""
    import ray  # in the dev extra: CI runs these tests

    with tempfile.TemporaryDirectory(prefix="am-ray-test-") as temp:
        ray.init(num_cpus=2, include_dashboard=False, _temp_dir=temp, log_to_driver=False, logging_level=logging.ERROR,
                 configure_logging=False)
        try:
            yield ray
        finally:
            ray.shutdown()


def comparable(results: list[GameResult]) -> list[dict[str, Any]]:
    """Everything but the time spent thinking and playing (wall-clock figures)."""
    return [{k: v for k, v in asdict(r).items() if k not in ("think_seconds", "seconds")} for r in results]


CONFIG = SimConfig(bots=("planner", "greedy"), games=6, belt="small", seed=21, difficulty="hard")


def test_the_same_results_with_jobs_1_jobs_2_and_ray(ray_cluster: Any) -> None:
    one = comparable(run(CONFIG, jobs=1))
    assert comparable(run(CONFIG, jobs=2)) == one
    assert comparable(run(CONFIG, jobs=2, ray="local")) == one  # the running cluster is used and left running
    assert ray_cluster.is_initialized()
    assert [r["seed"] for r in one] == [21, 22, 23, 24, 25, 26] * 2


def test_a_fixed_belt_travels_to_ray_workers(ray_cluster: Any) -> None:
    config = SimConfig(bots=("planner",), games=3, belt="puzzle-storm", seed=3, difficulty="easy")
    assert comparable(run(config, jobs=2, ray="local")) == comparable(run(config))


def test_a_worker_that_dies_is_retried_in_a_process_pool(bots: Path) -> None:
    config = SimConfig(bots=(f"{bots}:DiesOnce",), games=5, belt="small", seed=0)
    results = run(config, jobs=2)
    assert (bots.parent / "died").exists()
    planner = run(SimConfig(bots=("planner",), games=5, belt="small", seed=0))
    assert [r.outcome for r in results] == [r.outcome for r in planner]
    assert all(r.error is None for r in results)


def test_a_worker_that_dies_is_retried_on_ray(bots: Path, ray_cluster: Any) -> None:
    config = SimConfig(bots=(f"{bots}:DiesOnce",), games=5, belt="small", seed=0)
    results = run(config, jobs=2, ray="local")
    assert (bots.parent / "died").exists()
    planner = run(SimConfig(bots=("planner",), games=5, belt="small", seed=0))
    assert [(r.seed, r.outcome, r.rounds) for r in results] == [(r.seed, r.outcome, r.rounds) for r in planner]


@pytest.mark.parametrize("backend", [{"jobs": 1}, {"jobs": 2}, {"jobs": 2, "ray": "local"}])
def test_a_game_that_raises_is_reported_with_its_seed(bots: Path, backend: dict[str, Any],
                                                       request: pytest.FixtureRequest) -> None:
    if "ray" in backend:
        request.getfixturevalue("ray_cluster")
    results = run(SimConfig(bots=(f"{bots}:RaisesOnSeed2",), games=4, belt="small", seed=0), **backend)
    assert [r.outcome == "error" for r in results] == [False, False, True, False]
    failed = results[2]
    assert failed.seed == 2 and failed.error == "ValueError: a bug in the bot"


def test_ray_missing_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from asteroid_mining.cli import app

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(SimulationError, match=r"^--ray needs Ray: pip install 'asteroid-mining\[cluster\]'$"):
        iter_results(SimConfig(games=1), ray="local")
    done = CliRunner().invoke(app, ["simulate", "--games", "1", "--ray"])
    assert done.exit_code == 2
    assert done.output.strip() == ("asteroid-mining simulate: error: --ray needs Ray: pip install "
                                   "'asteroid-mining[cluster]'")


def test_an_unreachable_cluster_is_one_line() -> None:
    import socket

    with socket.socket() as s:  # a port nothing listens on any more
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(SimulationError, match=rf"^cannot reach the Ray cluster at 127.0.0.1:{port}: "):
        iter_results(SimConfig(games=1), ray=f"127.0.0.1:{port}")
    with pytest.raises(SimulationError, match="not an address of the form host:port"):
        iter_results(SimConfig(games=1), ray="nowhere")
