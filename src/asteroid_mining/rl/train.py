"""`asteroid-mining train`: a policy learned on `TeamEnv`, exported for the numpy-only `learned` bot.

The recipe (docs/ai.md, *A learned agent*):

1. *Imitation* (`imitate` moves): the planner plays games on the belt at the chosen difficulty; the policy
   network learns its moves (cross-entropy over the legal actions) and the value network the games' discounted
   returns. The planner is fast (a fraction of a millisecond a move), so this gives a working policy in minutes.
   Then `dagger` rounds of DAgger: the learner plays (the planner's move with probability 1/2, 1/4, …), the
   planner labels every position it reaches, and the network is fitted again to everything gathered so far.
2. *Reinforcement* (`steps`): sb3-contrib's MaskablePPO goes on from there on `TeamEnv` (one agent for the whole
   team, the action masks from the environment), its own games' rewards only.

Every `eval_every` steps (and after imitation) the policy is exported to numpy and plays `eval_games` fixed
games (seeds of their own, none of the benchmark's) through the `learned` bot's own code: the learning curve
(`curve.csv`, `curve.png`) and the checkpoints (`checkpoints/step-N.npz`, each with its sidecar) come from
those; the best of them is `policy.npz`.

The parts that need no torch (the arguments' checks, the curve's files, the evaluation, the export's sidecar)
are importable without the `learn` extra; `train` itself imports torch and sb3-contrib when called.
"""

from __future__ import annotations

import csv
import json
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..ai.registry import make_bot
from ..maps.resolve import ResolveError, belt_source
from ..rules import PRESETS as RULE_PRESETS
from ..rules import Game
from .encoding import DEFAULT_SLOTS, Encoder, observation_size
from .episode import Episode
from .learned import VERSION, LearnedBot, Policy, feature_version, sidecar_of

EXTRA_MISSING = "training needs the learn extra: pip install asteroid-mining[learn]"
"""The one line `train` fails with when torch or sb3-contrib is missing."""

EVAL_FIRST_SEED = 7_000_000
"""The evaluation games' first seed (the benchmark's are 1,000,000 to 1,200,000)."""

CURVE_FIELDS = ("step", "phase", "seconds", "episodes", "train_win_rate", "train_reward", "eval_games",
                "eval_wins", "eval_win_rate")
"""The columns of `curve.csv`."""


class TrainError(ValueError):
    """A training that cannot start: a bad argument (named), or the extra is missing."""


@dataclass
class TrainConfig:
    """What `train` does; `check` says what is wrong with it."""

    out: Path
    steps: int = 1_000_000
    """Reinforcement steps (MaskablePPO), after imitation."""
    imitate: int = 200_000
    """Planner moves to imitate first (0: none), shared among the first round and the DAgger rounds."""
    dagger: int = 3
    """DAgger rounds after the first: the learner plays, the planner labels."""
    seed: int = 0
    belt: str = "small"
    difficulty: str | None = "normal"
    rules: str = "classic"
    settlers: int = 3
    max_rounds: int = 300
    envs: int = 8
    """Games played side by side during reinforcement."""
    hidden: tuple[int, ...] = (128, 128)
    threads: int = 1
    """Torch's threads (the environments run in this process too)."""
    eval_every: int = 100_000
    eval_games: int = 40
    learning_rate: float = 1e-4
    command: str = field(default_factory=lambda: shlex.join(["asteroid-mining", *sys.argv[1:]]))
    """The command line, kept in the sidecars."""

    def check(self) -> None:
        """Raise TrainError naming the first bad argument."""
        for name in ("steps", "imitate"):
            if getattr(self, name) < 0:
                raise TrainError(f"--{name} must be 0 or more, not {getattr(self, name)}")
        if self.steps == 0 and self.imitate == 0:
            raise TrainError("--steps and --imitate are both 0: nothing to train")
        if self.dagger < 0:
            raise TrainError(f"--dagger must be 0 or more, not {self.dagger}")
        for name in ("envs", "threads", "eval_every", "eval_games", "settlers", "max_rounds"):
            if getattr(self, name) < 1:
                raise TrainError(f"--{name.replace('_', '-')} must be at least 1, not {getattr(self, name)}")
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise TrainError(f"--hidden must be positive layer widths, not {self.hidden}")
        if not 0 < self.learning_rate < 1:
            raise TrainError(f"--learning-rate must be between 0 and 1, not {self.learning_rate}")
        if self.rules not in RULE_PRESETS:
            raise TrainError(f"--rules: unknown rules {self.rules!r}: use {' or '.join(RULE_PRESETS)}")
        try:
            belt_source(self.belt, self.difficulty, files=True)
        except ResolveError as wrong:
            raise TrainError(f"--belt/--difficulty: {wrong}") from None
        if self.out.exists() and not self.out.is_dir():
            raise TrainError(f"--out: {self.out} is a file, not a directory")


# ----- the learning curve -----

def write_curve(rows: Sequence[dict[str, Any]], out: Path, title: str = "") -> tuple[Path, Path]:
    """`curve.csv` (columns `CURVE_FIELDS`) and `curve.png` (the evaluation's win rate and the training games'
    mean reward against the steps) in `out`; returns both paths."""
    out.mkdir(parents=True, exist_ok=True)
    csv_path, png_path = out / "curve.csv", out / "curve.png"
    with csv_path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=CURVE_FIELDS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: row.get(k, "") for k in CURVE_FIELDS})
    import matplotlib

    matplotlib.use("Agg")  # files only, never a window
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=100)
    evals = [r for r in rows if r.get("eval_games")]
    ax.plot([r["step"] for r in evals], [100 * r["eval_win_rate"] for r in evals], "o-", color="tab:blue",
            label="evaluation win rate (%)")
    ax.set_xlabel("steps (imitation, then reinforcement)")
    ax.set_ylabel("win rate (%)")
    ax.set_ylim(-2, 102)
    trained = [r for r in rows if r.get("train_reward") not in (None, "")]
    if trained:
        ax2 = ax.twinx()
        ax2.plot([r["step"] for r in trained], [r["train_reward"] for r in trained], color="tab:orange",
                 alpha=0.7, label="training games' mean reward")
        ax2.set_ylabel("mean reward per game")
        ax2.legend(loc="lower right")
    ax.legend(loc="upper left")
    ax.set_title(title or "learning curve")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(png_path)
    plt.close(fig)
    return csv_path, png_path


# ----- policies as numpy -----

def sidecar(config: TrainConfig, layers: int, activation: str, extra: dict[str, Any] | None = None
            ) -> dict[str, Any]:
    """The JSON sidecar of a policy trained with `config`: what `learned.load_policy` checks, and the recipe."""
    return {
        "format": "asteroid-mining policy 1",
        "version": VERSION,
        "observation_size": observation_size(DEFAULT_SLOTS),
        "feature_version": feature_version(DEFAULT_SLOTS),
        "slots": DEFAULT_SLOTS,
        "max_rounds": config.max_rounds,
        "activation": activation,
        "layers": layers,
        "command": config.command,
        "seed": config.seed,
        "belt": config.belt,
        "difficulty": config.difficulty,
        "rules": config.rules,
        "settlers": config.settlers,
        **(extra or {}),
    }


def save_policy(arrays: dict[str, np.ndarray[Any, Any]], meta: dict[str, Any], path: Path) -> Path:
    """Write a policy (`w0`, `b0`, … float32) and its sidecar; returns the weights' path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    as_float: dict[str, Any] = {k: np.asarray(v, dtype=np.float32) for k, v in arrays.items()}
    np.savez_compressed(path, **as_float)
    sidecar_of(path).write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return path


def policy_of(arrays: dict[str, np.ndarray[Any, Any]], meta: dict[str, Any]) -> Policy:
    """A playable policy from exported arrays (without going through files)."""
    layers = meta["layers"]
    return Policy(tuple(np.asarray(arrays[f"w{i}"], np.float32) for i in range(layers)),
                  tuple(np.asarray(arrays[f"b{i}"], np.float32) for i in range(layers)),
                  meta["activation"], meta["slots"], meta["max_rounds"], meta)


def evaluate(policy: Policy, config: TrainConfig, games: int | None = None,
             first_seed: int = EVAL_FIRST_SEED) -> int:
    """The games `policy` wins out of `games` (default `config.eval_games`) fixed ones, played by `LearnedBot`
    for every settler (as `simulate --bot learned` plays them)."""
    source = belt_source(config.belt, config.difficulty, files=True)
    bot = LearnedBot(policy=policy)
    from ..ai.observation import Observation

    wins = 0
    for seed in range(first_seed, first_seed + (games or config.eval_games)):
        resolved = source(seed)
        game = Game.new(resolved.belt, resolved.options_for(config.rules), seed=seed, settlers=config.settlers)
        obs = Observation(game)
        while game.status == "running" and game.round <= config.max_rounds:
            settler = game.turn
            assert settler is not None
            game.apply(bot.choose(obs, settler))
        wins += game.status == "won"
    return wins


# ----- imitation data -----

def demonstrations(config: TrainConfig, moves: int, first_seed: int,
                   tick: Callable[[int], None] = lambda n: None, player: Policy | None = None,
                   beta: float = 1.0
                   ) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """`moves` positions labelled with the planner's move, each as (observation, mask, action index, discounted
    return); a planner's move beyond the exit slots (no index stands for it) is played but not kept.

    With a `player` (DAgger), the planner's move is played with probability `beta` and the player's otherwise:
    the positions are those the learner reaches, its mistakes included, and the labels say how the planner goes
    on from there."""
    episode = Episode(config.belt, config.rules, config.settlers, config.max_rounds, DEFAULT_SLOTS,
                      config.difficulty)
    size, n_act = observation_size(DEFAULT_SLOTS), Encoder(DEFAULT_SLOTS).n_actions
    xs = np.zeros((moves, size), dtype=np.float16)  # features in [0, 1]: half precision holds them well enough
    masks = np.zeros((moves, n_act), dtype=np.bool_)
    acts = np.zeros(moves, dtype=np.int64)
    rets = np.zeros(moves, dtype=np.float32)
    n, seed, gamma = 0, first_seed, 0.995
    rng = np.random.default_rng(first_seed)
    while n < moves:
        game = episode.start(seed)
        planner = make_bot("planner", seed)
        seed += 1
        start, rewards = n, []
        while game.status == "running" and game.round <= config.max_rounds and n < moves:
            settler = game.turn
            assert settler is not None
            obs = episode.obs
            action = planner.choose(obs, settler)
            vector, mask = episode.encode(settler)
            exits = episode.exits(settler)
            index = episode.encoder.index(obs, settler, action, exits)
            if player is not None and mask.any() and rng.random() >= beta:
                outcome = episode.step(settler, player.act(vector, mask))
            else:
                outcome = episode.apply(settler, action)
            if index >= 0 and mask[index]:
                xs[n], masks[n], acts[n] = vector, mask.astype(bool), index
                rewards.append(float(outcome.reward))
                n += 1
                tick(1)
            elif rewards:
                rewards[-1] += float(outcome.reward)
        g = 0.0
        for i in range(len(rewards) - 1, -1, -1):
            g = rewards[i] + gamma * g
            rets[start + i] = g
    return xs, masks, acts, rets


# ----- training (needs the extra) -----

def _require_extra() -> None:
    try:
        import sb3_contrib  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        raise TrainError(EXTRA_MISSING) from None


def train(config: TrainConfig, echo: Callable[[str], None] = print) -> Path:
    """Train as the module's docstring says; returns the best policy's path (`out/policy.npz`)."""
    config.check()
    _require_extra()
    return _train(config, echo)


def vec_env(config: TrainConfig) -> Any:  # pragma: no cover - needs the extra
    """`config.envs` `TeamEnv` games in an sb3 `DummyVecEnv`, seeded: the vector alone as observation, the masks
    from `action_masks` (as MaskablePPO asks)."""
    import gymnasium as gym
    from gymnasium import spaces
    from stable_baselines3.common.vec_env import DummyVecEnv

    from .gym_env import TeamEnv

    class Flat(gym.ObservationWrapper[Any, Any, Any]):
        """TeamEnv with the vector alone as observation (the mask comes from `action_masks`)."""

        def __init__(self, env: TeamEnv) -> None:
            super().__init__(env)
            self.observation_space = spaces.Box(0.0, 1.0, (env.episode.encoder.size,), dtype=np.float32)

        def observation(self, observation: dict[str, Any]) -> Any:
            return observation["observation"]

        def action_masks(self) -> Any:
            return self.env.unwrapped.action_masks()  # type: ignore[attr-defined]

    def make() -> gym.Env[Any, Any]:
        return Flat(TeamEnv(config.belt, config.rules, config.settlers, config.max_rounds, DEFAULT_SLOTS,
                            difficulty=config.difficulty))

    venv = DummyVecEnv([make] * config.envs)
    venv.seed(config.seed)
    return venv


def _train(config: TrainConfig, echo: Callable[[str], None]) -> Path:  # pragma: no cover - needs the extra
    import torch
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    np.random.seed(config.seed)
    out = config.out
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps({**asdict(config), "out": str(out)}, indent=2) + "\n",
                                     encoding="utf-8")

    venv = vec_env(config)
    activation = "relu"
    rollout = max(8, min(512, config.steps // config.envs))
    model = MaskablePPO(
        # a rollout of 512 moves per game (a short run: fewer, so that it stops near its --steps)
        "MlpPolicy", venv, learning_rate=config.learning_rate, n_steps=rollout,
        batch_size=min(512, rollout * config.envs), n_epochs=4,
        gamma=0.995, gae_lambda=0.95, clip_range=0.1, ent_coef=0.001, seed=config.seed, verbose=0,
        device="cpu",
        policy_kwargs={"net_arch": {"pi": list(config.hidden), "vf": list(config.hidden)},
                       "activation_fn": torch.nn.ReLU},
    )
    policy = model.policy
    layers = len(config.hidden) + 1

    def export() -> dict[str, np.ndarray[Any, Any]]:
        linears = [m for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
        linears.append(policy.action_net)
        arrays: dict[str, np.ndarray[Any, Any]] = {}
        for i, lin in enumerate(linears):
            arrays[f"w{i}"] = lin.weight.detach().cpu().numpy().T.copy()
            arrays[f"b{i}"] = lin.bias.detach().cpu().numpy().copy()
        return arrays

    rows: list[dict[str, Any]] = []
    started = time.monotonic()
    best: tuple[float, int] = (-1.0, -1)
    stats = {"episodes": 0, "wins": 0, "reward": 0.0}

    def checkpoint(step: int, phase: str) -> None:
        nonlocal best
        arrays = export()
        meta = sidecar(config, layers, activation, {"step": step, "phase": phase,
                                                    "seconds": round(time.monotonic() - started, 1)})
        wins = evaluate(policy_of(arrays, meta), config)
        rate = wins / config.eval_games
        meta["eval"] = {"games": config.eval_games, "wins": wins, "first_seed": EVAL_FIRST_SEED}
        save_policy(arrays, meta, out / "checkpoints" / f"step-{step}.npz")
        episodes = stats["episodes"]
        rows.append({"step": step, "phase": phase, "seconds": round(time.monotonic() - started, 1),
                     "episodes": episodes,
                     "train_win_rate": round(stats["wins"] / episodes, 4) if episodes else "",
                     "train_reward": round(stats["reward"] / episodes, 4) if episodes else "",
                     "eval_games": config.eval_games, "eval_wins": wins, "eval_win_rate": rate})
        stats.update(episodes=0, wins=0, reward=0.0)
        write_curve(rows, out, f"{config.belt}, {config.difficulty or 'as generated'}, seed {config.seed}")
        if rate > best[0]:
            best = (rate, step)
            save_policy(arrays, meta, out / "policy.npz")
        echo(f"step {step:,} ({phase}): {wins}/{config.eval_games} evaluation games won")

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, transient=False) as progress:
        if config.imitate:
            optimiser = torch.optim.Adam(policy.parameters(), lr=1e-3)
            gen = torch.Generator().manual_seed(config.seed)
            data: list[tuple[Any, ...]] = []
            share = config.imitate // (1 + config.dagger)
            done = 0
            for round_ in range(1 + config.dagger):
                moves = share if round_ < config.dagger else config.imitate - done
                task = progress.add_task("planner's moves" if round_ == 0 else f"DAgger round {round_}",
                                         total=moves)
                player = None if round_ == 0 else policy_of(export(), sidecar(config, layers, activation))

                def advance(n: int, task: Any = task) -> None:
                    progress.advance(task, n)

                data.append(demonstrations(config, moves, config.seed * 1_000_003 + 10_000_000 + 100_000 * round_,
                                           advance, player, beta=0.5 ** round_))
                done += moves
                # kept in half precision (a million positions are 1 GB so), each minibatch widened as it is used
                x_all = torch.from_numpy(np.concatenate([d[0] for d in data]))
                m_all = torch.from_numpy(np.concatenate([d[1] for d in data]))
                a_all = torch.from_numpy(np.concatenate([d[2] for d in data]))
                r_all = torch.from_numpy(np.concatenate([d[3] for d in data]))
                epochs = 8 if round_ == 0 else 4
                fit = progress.add_task("imitation", total=epochs)
                for _epoch in range(epochs):
                    order = torch.randperm(len(a_all), generator=gen)
                    for lo in range(0, len(order), 1024):
                        idx = order[lo: lo + 1024]
                        latent_pi, latent_vf = policy.mlp_extractor(x_all[idx].float())
                        logits = policy.action_net(latent_pi).masked_fill(~m_all[idx], -1e8)
                        loss = torch.nn.functional.cross_entropy(logits, a_all[idx])
                        loss = loss + 0.5 * torch.nn.functional.mse_loss(
                            policy.value_net(latent_vf).squeeze(-1), r_all[idx])
                        optimiser.zero_grad()
                        loss.backward()
                        optimiser.step()
                    progress.advance(fit)
                del x_all
                checkpoint(done, "imitation" if round_ == 0 else f"dagger {round_}")

        if config.steps:
            task = progress.add_task("MaskablePPO", total=config.steps)

            # sb3's classes are Any to mypy (the extra is not type-checked)
            class Track(BaseCallback):  # type: ignore[misc]
                def __init__(self) -> None:
                    super().__init__()
                    self.returns = np.zeros(config.envs)
                    self.next_eval = config.eval_every

                def _on_step(self) -> bool:
                    self.returns += self.locals["rewards"]
                    for i, done in enumerate(self.locals["dones"]):
                        if done:
                            stats["episodes"] += 1
                            stats["wins"] += self.locals["infos"][i].get("status") == "won"
                            stats["reward"] += float(self.returns[i])
                            self.returns[i] = 0.0
                    progress.update(task, completed=min(self.num_timesteps, config.steps))
                    if self.num_timesteps >= self.next_eval:
                        self.next_eval += config.eval_every
                        checkpoint(config.imitate + self.num_timesteps, "reinforcement")
                    return True

            model.learn(total_timesteps=config.steps, callback=Track(), progress_bar=False)
            if not rows or rows[-1]["step"] != config.imitate + model.num_timesteps:
                checkpoint(config.imitate + model.num_timesteps, "reinforcement")
    echo(f"best: step {best[1]:,}, {100 * best[0]:.1f}% of the evaluation games; {out / 'policy.npz'} "
         f"({time.monotonic() - started:.0f} s)")
    return out / "policy.npz"


__all__ = ["CURVE_FIELDS", "EXTRA_MISSING", "TrainConfig", "TrainError", "demonstrations", "evaluate",
           "policy_of", "save_policy", "sidecar", "train", "vec_env", "write_curve"]
