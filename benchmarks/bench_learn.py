"""Where the time of `asteroid-mining train` goes: the games or the learner (needs the learn extra).

- the games alone: `TeamEnv` in the trainer's vector environment (8 games, `small`, `normal`), uniform masked
  actions, steps per CPU second;
- MaskablePPO (sb3-contrib) on the same games for as many steps: its steps per CPU second, and the share of its
  time the games take (the rest is the network's forward and backward passes and sb3's bookkeeping);
- the learned policy's forward pass in numpy (one observation), the `learned` bot's cost of a move.

The share says how much another learner could gain here: a learner k times faster makes training at most
1 / (share + (1 − share) / k) times faster, and only a faster environment moves the rest.

    python benchmarks/bench_learn.py            # 16,384 steps each
    python benchmarks/bench_learn.py --quick    # 4,096
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="4,096 steps instead of 16,384")
    steps = 4_096 if parser.parse_args().quick else 16_384
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError:  # `make bench` runs every benchmark: this one is skipped without the extra
        print("skipped: bench_learn needs the learn extra (pip install asteroid-mining[learn])")
        return
    from asteroid_mining.rl import Encoder, observation_size
    from asteroid_mining.rl.learned import load_policy
    from asteroid_mining.rl.train import TrainConfig, vec_env

    torch.set_num_threads(1)
    config = TrainConfig(Path("unused"), steps=steps, envs=8)
    venv = vec_env(config)
    venv.reset()
    rng = np.random.default_rng(0)
    start = time.process_time()
    for _ in range(steps // config.envs):
        masks = np.stack(venv.env_method("action_masks"))
        venv.step((rng.random(masks.shape) * masks).argmax(axis=1))
    games = steps / (time.process_time() - start)

    model = MaskablePPO("MlpPolicy", vec_env(config), n_steps=512, batch_size=512, n_epochs=4, seed=0,
                        device="cpu", policy_kwargs={"net_arch": {"pi": [128, 128], "vf": [128, 128]},
                                                     "activation_fn": torch.nn.ReLU})
    start = time.process_time()
    model.learn(total_timesteps=steps)
    ppo = model.num_timesteps / (time.process_time() - start)

    policy = load_policy()
    x = np.random.default_rng(1).random(observation_size(policy.slots)).astype(np.float32)
    mask = np.ones(Encoder(policy.slots).n_actions, dtype=np.int8)
    n = 20_000
    start = time.process_time()
    for _ in range(n):
        policy.act(x, mask)
    forward_us = 1e6 * (time.process_time() - start) / n

    share = ppo / games  # the games' share of MaskablePPO's time
    print(json.dumps({
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "steps": steps,
        "games_steps_per_cpu_s": round(games),
        "maskable_ppo_steps_per_cpu_s": round(ppo),
        "games_share_of_training": round(share, 3),
        "speedup_bound_of_an_infinitely_fast_learner": round(1 / share, 2),
        "numpy_forward_us": round(forward_us, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
