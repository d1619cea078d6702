"""Self-play: the simulation library and `asteroid-mining simulate` (output, exit codes, reproducibility)."""

from __future__ import annotations

import csv
import gc
import json
import subprocess
import sys
from pathlib import Path

import pytest

from asteroid_mining.ai.simulate import (
    PLAY_GC_THRESHOLDS,
    SimConfig,
    SimulationError,
    few_collections,
    iter_results,
    percentile,
    run,
    summarize,
    wilson,
)
from asteroid_mining.maps import BeltError


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`asteroid-mining simulate ARGS` as users run it: a separate process."""
    return subprocess.run([sys.executable, "-m", "asteroid_mining", "simulate", *args],
                          capture_output=True, text=True, timeout=120)


def test_wilson_interval() -> None:
    lo, hi = wilson(90, 100)
    assert lo == pytest.approx(0.8256, abs=1e-4)
    assert hi == pytest.approx(0.9448, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_percentile() -> None:
    assert percentile([], 90) is None
    assert percentile([5], 90) == 5
    assert percentile(list(range(1, 11)), 90) == pytest.approx(9.1)


def test_results_are_reproducible_from_the_seed() -> None:
    config = SimConfig(bots=("planner", "random"), games=3, belt="tutorial", seed=11)
    first, second = run(config), run(config)
    strip = [(r.bot, r.game, r.seed, r.outcome, r.rounds, r.deaths, r.units_lost) for r in first]
    assert strip == [(r.bot, r.game, r.seed, r.outcome, r.rounds, r.deaths, r.units_lost) for r in second]
    assert [r.seed for r in first] == [11, 12, 13, 11, 12, 13]


def test_a_result_counts_the_actions_and_mines_its_game_s_history_holds() -> None:
    """`result_of` counts on the history's records (`Game.history_counts`) what its JSON entries say, for a
    game played and for the same game read back from JSON (whose history may hold plain entries)."""
    from asteroid_mining.ai.playout import play_out
    from asteroid_mining.ai.random_bot import RandomBot
    from asteroid_mining.ai.simulate import result_of
    from asteroid_mining.maps.generator import generate_belt
    from asteroid_mining.rules import Game

    mined = 0
    for seed in range(4):
        game = Game.new(generate_belt("small", seed=seed), seed=seed)
        tally = play_out(game, RandomBot(seed), 300)
        for each in (game, Game.from_json(game.to_json())):
            history = each.history
            expected = (sum(1 for entry in history if "actor" in entry),
                        sum(1 for entry in history if entry.get("type") == "mine"))
            assert each.history_counts("mine") == expected
            assert each.history_counts("end_round")[1] == sum(1 for e in history if e.get("type") == "end_round")
        mined += expected[1]
        result = result_of(game, "random", "random", 0, seed, 300, tally, 0.0)
        assert (result.actions, result.gathered) == expected
    assert mined > 0  # (the random bot mines on these belts: the count is exercised)


def test_round_cap_is_a_timeout() -> None:
    (result,) = run(SimConfig(bots=("planner",), games=1, belt="small", max_rounds=3))
    assert result.outcome == "timeout"
    assert result.rounds == 3
    (summary,) = summarize([result])
    assert summary.timeouts == 1 and summary.wins == 0 and summary.win_rate == 0


def test_bad_configurations_are_refused_before_any_game(tmp_path: Path) -> None:
    with pytest.raises(SimulationError, match="known bots are random, greedy, planner"):
        iter_results(SimConfig(bots=("nobody",)))
    with pytest.raises(SimulationError, match="--games must be at least 1"):
        iter_results(SimConfig(games=0))
    with pytest.raises(SimulationError, match="unknown belt"):
        iter_results(SimConfig(belt="nowhere"))
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    with pytest.raises(BeltError):
        iter_results(SimConfig(belt=str(bad)))


def test_a_belt_file_is_played(tmp_path: Path) -> None:
    from asteroid_mining.maps import save_belt
    from asteroid_mining.maps.generator import generate_belt

    path = tmp_path / "belt.json"
    save_belt(generate_belt("tutorial", seed=3), path)
    results = run(SimConfig(bots=("planner",), games=2, belt=str(path)))
    assert all(r.outcome == "won" for r in results)


def test_cli_prints_a_table_per_bot_and_writes_csv(tmp_path: Path) -> None:
    out = tmp_path / "results.csv"
    done = cli("--games", "3", "--belt", "tutorial", "--bot", "planner", "--bot", "greedy", "--seed", "4",
               "--out", str(out))
    assert done.returncode == 0, done.stderr
    for word in ("planner", "greedy", "win rate", "95% CI", "median", "p90", "storm", "explosion",
                 "units lost"):
        assert word in done.stdout
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [(r["bot"], r["seed"]) for r in rows] == [("planner", "4"), ("planner", "5"), ("planner", "6"),
                                                      ("greedy", "4"), ("greedy", "5"), ("greedy", "6")]
    assert {r["outcome"] for r in rows} <= {"won", "lost", "timeout"}


def test_cli_json_is_the_same_with_jobs(tmp_path: Path) -> None:
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    args = ("--games", "4", "--belt", "tutorial", "--bot", "planner", "--bot", "random", "--seed", "2")
    assert cli(*args, "--out", str(one)).returncode == 0
    assert cli(*args, "--jobs", "2", "--out", str(two)).returncode == 0
    first, second = json.loads(one.read_text()), json.loads(two.read_text())
    for doc in (first, second):  # the games' wall-clock time is the one figure that is not reproducible
        for game in doc["games"]:
            assert game.pop("seconds") > 0
    assert first["games"] == second["games"]
    assert first["config"]["bots"] == ["planner", "random"]
    assert [s["bot"] for s in first["summary"]] == ["planner", "random"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--bot", "chess"), "unknown bot 'chess': the known bots are random, greedy, planner"),
        (("--belt", "nowhere"), "unknown belt 'nowhere'"),
        (("--games", "0"), "--games must be at least 1, not 0"),
        (("--rules", "house"), "unknown rules 'house'"),
        (("--jobs", "0"), "--jobs must be at least 1"),
        (("--out", "results.txt"), "--out must end in .csv or .json"),
        (("--out", "/no/such/folder/results.csv"), "no such folder"),
        (("--settlers", "0"), "--settlers must be at least 1"),
    ],
)
def test_cli_bad_input_is_one_message_and_exit_2(args: tuple[str, ...], message: str) -> None:
    done = cli(*args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.count("error:") == 1


def test_cli_invalid_belt_file_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "asteroid-mining/belt", "version": 1}', encoding="utf-8")
    done = cli("--belt", str(bad))
    assert done.returncode == 2
    assert f"{bad} is not a valid belt" in done.stderr
    assert "Traceback" not in done.stderr


def test_games_are_played_with_few_collections_and_the_thresholds_come_back(tmp_path: Path) -> None:
    before = gc.get_threshold()
    with few_collections():
        assert gc.get_threshold() == PLAY_GC_THRESHOLDS
    assert gc.get_threshold() == before
    # a bot that says what it sees (its game is an error result naming it), then the thresholds after the run
    spy = tmp_path / "spy.py"
    spy.write_text("import gc\n\nclass Spy:\n    name = 'spy'\n\n    def __init__(self, seed):\n        pass\n\n"
                   "    def choose(self, obs, settler):\n        raise RuntimeError(str(gc.get_threshold()))\n",
                   encoding="utf-8")
    [result] = run(SimConfig(bots=(f"{spy}:Spy",), games=1, belt="small"))
    assert result.error == f"RuntimeError: {PLAY_GC_THRESHOLDS}"
    assert gc.get_threshold() == before
