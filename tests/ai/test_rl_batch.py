"""`BatchEnv` gives, bit for bit, what each game's own `Episode` gives step by step (`Episode.step`,
`Episode.encode`): observations, masks, rewards, flags, the finished games' last observations, seeds and
settlers, over a few hundred steps of random masked actions on belts with gates, storms, UFOs and bot seats."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from asteroid_mining.rl import BatchEnv, Episode, _native
from asteroid_mining.rl import batch as batch_module
from asteroid_mining.rl.encoding import Mask, Vector
from asteroid_mining.rules import ENGINE
from asteroid_mining.rules._engine import EngineError, build_tag


@pytest.fixture(autouse=True, params=["native", "numpy"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test here runs on both paths of `BatchEnv`'s observations: the C loop (`rl._native`, when it is
    built) and numpy."""
    if request.param == "native" and _native.problem is not None:
        pytest.skip(f"the C loop is not in use: {_native.problem}")
    if request.param == "numpy":
        monkeypatch.setattr(_native, "observe", None)
        monkeypatch.setattr(_native, "static_columns", None)
        monkeypatch.setattr(_native, "moves_of", None)
        monkeypatch.setattr(_native, "step", None)
    return str(request.param)


def test_the_c_loop_is_built_beside_the_compiled_engine(path: str) -> None:
    """`make compiled` builds the C loop with the engine, so the tests above really run it wherever the engine
    is compiled (a build that failed silently would leave only the numpy path tested)."""
    if ENGINE == "compiled":
        assert _native.problem is None
        assert BatchEnv(1, "tutorial").native == (path == "native")


class Reference:
    """N games stepped one by one through the per-game path, as `BatchEnv` describes them (its seeds, its
    resets, whose observation each row is)."""

    def __init__(self, n: int, belt: str, rules: str, max_rounds: int, difficulty: str | None,
                 bots: Mapping[str, str] | None, settlers: int = 3, slots: int = 16) -> None:
        self.episodes = [Episode(belt, rules, settlers, max_rounds, slots, difficulty, bots) for _ in range(n)]
        size, actions = self.episodes[0].encoder.size, self.episodes[0].encoder.n_actions
        self.observations = np.zeros((n, size), dtype=np.float32)
        self.masks = np.zeros((n, actions), dtype=np.int8)
        self.final_observation = np.zeros((n, size), dtype=np.float32)
        self.settler = [""] * n
        self.seeds = [0] * n
        self.rng = np.random.default_rng()

    def start(self, i: int, seed: int) -> None:
        episode = self.episodes[i]
        game = episode.start(seed)
        self.seeds[i] = seed
        self.settler[i] = game.turn if game.turn in episode.learners else episode.learners[0]
        self.observations[i], self.masks[i] = episode.encode(self.settler[i])

    def reset(self, seed: int) -> tuple[Vector, Mask]:
        self.rng = np.random.default_rng(seed)
        for i in range(len(self.episodes)):
            self.start(i, seed + i)
        return self.observations, self.masks

    def step(self, actions: np.ndarray[Any, Any]) -> tuple[Vector, Mask, np.ndarray[Any, Any],
                                                           np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        n = len(self.episodes)
        rewards = np.zeros(n, dtype=np.float32)
        terminated = np.zeros(n, dtype=np.bool_)
        truncated = np.zeros(n, dtype=np.bool_)
        for i, episode in enumerate(self.episodes):
            outcome = episode.step(self.settler[i], int(actions[i]))
            rewards[i], terminated[i], truncated[i] = outcome.reward, outcome.terminated, outcome.truncated
            game = episode.game
            assert game is not None
            settler = game.turn if game.turn in episode.learners else self.settler[i]
            assert settler is not None
            if outcome.terminated or outcome.truncated:
                self.final_observation[i] = episode.encode(settler)[0]
                self.start(i, int(self.rng.integers(0, 2**31 - 1)))
                continue
            self.settler[i] = settler
            self.observations[i], self.masks[i] = episode.encode(settler)
        return self.observations, self.masks, rewards, terminated, truncated


CASES = {
    "small": dict(n=8, belt="small", rules="classic", max_rounds=40, difficulty=None, bots=None, seed=0),
    "tutorial": dict(n=6, belt="tutorial", rules="classic", max_rounds=60, difficulty=None, bots=None, seed=3),
    # a gate pair in service from the start (its exits in the slots, the guidance over it)
    "gates": dict(n=5, belt="puzzle-gates", rules="extended", max_rounds=50, difficulty=None, bots=None, seed=11),
    # storms forecast, UFOs, haywire gates, a planner in a seat (its turns between the learner's steps)
    "storms": dict(n=5, belt="small", rules="extended", max_rounds=60, difficulty="normal",
                   bots={"s3": "planner"}, seed=21),
    "storm-puzzle": dict(n=4, belt="puzzle-storm", rules="classic", max_rounds=80, difficulty=None, bots=None,
                         seed=5),
}


def compare(batch: BatchEnv, reference: Reference, seed: int, steps: int = 300,
            between: Callable[[int], None] | None = None) -> tuple[int, int, int]:
    """Step both with the same random masked actions (now and then one the rules may refuse), asserting every
    output equal; `between(step)` runs before each step. The games ended, and the steps whose observations
    held a gate's exit and a storm."""
    obs, masks = batch.reset(seed=seed)
    want_obs, want_masks = reference.reset(seed)
    assert obs.tobytes() == want_obs.tobytes() and masks.tobytes() == want_masks.tobytes()
    rng = np.random.default_rng(seed)
    ended = seen_gates = seen_storms = 0
    for step in range(steps):
        if between is not None:
            between(step)
        actions = (rng.random(masks.shape) * masks).argmax(axis=1)
        if step % 7 == 0:
            actions[0] = rng.integers(0, batch.n_actions)
        obs, masks, rewards, terminated, truncated = batch.step(actions)
        want = reference.step(actions)
        assert obs.tobytes() == want[0].tobytes(), f"observations differ at step {step}"
        assert masks.tobytes() == want[1].tobytes(), f"masks differ at step {step}"
        assert rewards.tobytes() == want[2].tobytes(), f"rewards differ at step {step}"
        assert terminated.tolist() == want[3].tolist() and truncated.tolist() == want[4].tolist()
        finished = terminated | truncated
        assert batch.final_observation[finished].tobytes() == reference.final_observation[finished].tobytes()
        assert batch.settler == reference.settler and batch.seeds.tolist() == reference.seeds
        ended += int(finished.sum())
        seen_gates += int(obs[:, 15 + 1::30].any())  # via_gate of any row
        seen_storms += int(obs[:, 15 + 6::30].any())
    return ended, seen_gates, seen_storms


@pytest.mark.parametrize("case", list(CASES))
def test_batch_env_equals_the_per_game_path_bit_for_bit(case: str) -> None:
    options = dict(CASES[case])
    n, seed = int(options.pop("n")), int(options.pop("seed"))  # type: ignore[call-overload]
    belt, rules = str(options["belt"]), str(options["rules"])
    max_rounds = int(options["max_rounds"])  # type: ignore[call-overload]
    difficulty = options["difficulty"]
    bots = options["bots"]
    batch = BatchEnv(n, belt, rules, max_rounds=max_rounds, difficulty=difficulty,  # type: ignore[arg-type]
                     bots=bots)  # type: ignore[arg-type]
    reference = Reference(n, belt, rules, max_rounds, difficulty, bots)  # type: ignore[arg-type]
    ended, seen_gates, seen_storms = compare(batch, reference, seed)
    # the streams compared hold what they are meant to: games that end and start again, and the features of
    # the belts chosen for them
    assert ended > 0
    if case in ("gates", "tutorial"):
        assert seen_gates
    if case in ("storms", "storm-puzzle"):
        assert seen_storms


@pytest.mark.parametrize(("settlers", "slots"), [(1, 16), (4, 16), (3, 3)])
def test_batch_env_equals_the_per_game_path_with_other_teams_and_slots(settlers: int, slots: int) -> None:
    # one settler (no teammate to guide to), four, and fewer exit slots than exits (the slots ranked)
    batch = BatchEnv(4, "small", settlers=settlers, max_rounds=40, neighbour_slots=slots)
    reference = Reference(4, "small", "classic", 40, None, None, settlers, slots)
    assert compare(batch, reference, seed=8, steps=200)[0] > 0


def test_batch_env_arrays_grown_mid_run_keep_every_game() -> None:
    # a game on a bigger belt than the batch's arrays hold moves every game's table and moves to larger ones
    batch = BatchEnv(3, "small", max_rounds=30)
    reference = Reference(3, "small", "classic", 30, None, None)

    def grow(step: int) -> None:
        if step in (40, 90):
            batch._grow(batch._size + 7)

    assert compare(batch, reference, seed=4, steps=150, between=grow)[0] > 0


def test_batch_env_on_belts_over_the_pooled_size_uses_each_games_encode(monkeypatch: pytest.MonkeyPatch) -> None:
    # what a belt of more than `POOLED` asteroids does, on a small one: each game's own `Episode.encode`
    monkeypatch.setattr(batch_module, "POOLED", 10)
    batch = BatchEnv(3, "tutorial", max_rounds=30)
    reference = Reference(3, "tutorial", "classic", 30, None, None)
    assert compare(batch, reference, seed=6, steps=150)[0] > 0
    assert not batch._pooled


def test_batch_env_rows_are_independent_of_the_batch_size() -> None:
    # a game's stream does not depend on the games beside it (the batch's shared arrays hold each row apart)
    one = BatchEnv(1, "small", max_rounds=30)
    four = BatchEnv(4, "small", max_rounds=30)
    obs1, masks1 = one.reset(seed=9)
    obs4, masks4 = four.reset(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(120):
        if one.seeds[0] != four.seeds[0]:
            break  # the first game ended: later seeds come from each batch's own draws
        action = (rng.random(masks1.shape[1]) * masks1[0]).argmax()
        assert obs1[0].tobytes() == obs4[0].tobytes() and masks1[0].tobytes() == masks4[0].tobytes()
        obs1, masks1, *_ = one.step(np.array([action]))
        obs4, masks4, *_ = four.step(np.array([action, 0, 0, 0]))


def test_batch_env_native_is_refused_when_the_c_loop_is_not_in_use(monkeypatch: pytest.MonkeyPatch) -> None:
    """Asking for the C loop where it is not built says why, rather than failing later in a step."""
    monkeypatch.setattr(_native, "observe", None)
    monkeypatch.setattr(_native, "problem", "not built (run `make compiled`; it needs a C compiler)")
    batch = BatchEnv(2, "tutorial")
    assert not batch.native
    with pytest.raises(ValueError, match="not built"):
        batch.native = True


def test_a_stale_or_missing_c_build_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The C loop is used only while its record matches its source and the interpreter: an edited `_batch.c`, a
    build for another Python or none at all leave the numpy path, saying why."""
    source, record = tmp_path / "_batch.c", tmp_path / "_native.json"
    source.write_text("/* the loop */\n", encoding="utf-8")
    monkeypatch.setattr(_native, "SOURCE", source)
    monkeypatch.setattr(_native, "RECORD", record)
    problem = _native.build_problem()
    assert problem is not None and problem.startswith("not built")
    record.write_text(json.dumps({"tag": build_tag(), "source": _native.source_hash()}), encoding="utf-8")
    assert _native.build_problem() is None
    source.write_text("/* the loop, edited */\n", encoding="utf-8")
    problem = _native.build_problem()
    assert problem is not None and problem.startswith("older than")
    record.write_text(json.dumps({"tag": "another", "source": _native.source_hash()}), encoding="utf-8")
    problem = _native.build_problem()
    assert problem is not None and problem.startswith("built for another interpreter")
    record.write_text("{", encoding="utf-8")
    problem = _native.build_problem()
    assert problem is not None and "unreadable" in problem


def test_the_engine_setting_governs_the_c_loop_as_every_build(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`ASTEROID_MINING_ENGINE` decides for the C loop as for the mypyc builds: `pure` leaves it unused whatever
    is built, `compiled` makes a build that cannot be used an error naming why (it fell back silently), `auto`
    falls back saying why, and any other value is an error."""
    monkeypatch.setattr(_native, "SOURCE", tmp_path / "_batch.c")
    monkeypatch.setattr(_native, "RECORD", tmp_path / "_native.json")  # (no build here)
    monkeypatch.setenv("ASTEROID_MINING_ENGINE", "pure")
    assert _native._load() == (None, "ASTEROID_MINING_ENGINE=pure")
    monkeypatch.setenv("ASTEROID_MINING_ENGINE", "auto")
    module, problem = _native._load()
    assert module is None and problem is not None and problem.startswith("not built")
    monkeypatch.setenv("ASTEROID_MINING_ENGINE", "compiled")
    with pytest.raises(EngineError, match="C loop cannot be used: not built"):
        _native._load()
    monkeypatch.setenv("ASTEROID_MINING_ENGINE", "fast")
    with pytest.raises(EngineError, match="must be auto, pure or compiled"):
        _native._load()


def test_batch_env_with_more_slots_than_the_c_loop_takes_uses_the_numpy_path(path: str) -> None:
    """More exit slots than the C loop keeps room for leave the numpy path in use rather than failing in a step."""
    batch = BatchEnv(2, "tutorial", neighbour_slots=80, max_rounds=20)
    assert not batch.native
    reference = Reference(2, "tutorial", "classic", 20, None, None, slots=80)
    assert compare(batch, reference, seed=2, steps=60)[0] >= 0
    with pytest.raises(ValueError, match="at most" if path == "native" else "not in use"):
        batch.native = True
