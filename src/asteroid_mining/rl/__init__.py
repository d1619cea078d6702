"""Learning environments over the rules (needs the optional extra: `pip install asteroid-mining[rl]`).

- `TeamEnv` — Gymnasium: one agent plays the whole team, acting for the settler whose turn it is.
- `SettlersEnv` — PettingZoo AEC: one agent per settler; `ParallelSettlersEnv` — the same, Parallel API.
- `BatchEnv` — N games stepped in one call, numpy arrays in and out.
- `record` — `simulate --record`: games written as Parquet datasets for offline learning (pyarrow).

Both have fixed-size observations, a discrete action set with masks (`encoding`) and a shared team reward
(`episode`, docs/ai.md). gymnasium and pettingzoo are imported only here, never by the rest of the package.
"""

from importlib.util import find_spec as _find_spec

from .batch import BatchEnv
from .encoding import DEFAULT_SLOTS, Encoder, feature_names, n_actions, observation_size
from .episode import Episode

# The environments need the extra; the encoder and the `learned` bot (`rl.learned`, numpy alone) do not, and a
# server's bot seats import them without it.
if _find_spec("gymnasium") is not None and _find_spec("pettingzoo") is not None:
    from .aec_env import SettlersEnv, env
    from .gym_env import TeamEnv
    from .parallel_env import ParallelSettlersEnv, parallel_env

__all__ = [
    "DEFAULT_SLOTS", "BatchEnv", "Encoder", "Episode", "ParallelSettlersEnv", "SettlersEnv", "TeamEnv", "env",
    "feature_names", "n_actions", "observation_size", "parallel_env",
]


def __getattr__(name: str) -> object:
    # only reached for a name not defined above: an environment while the extra is missing
    if name in ("SettlersEnv", "TeamEnv", "ParallelSettlersEnv", "env", "parallel_env"):
        raise ImportError(f"asteroid_mining.rl.{name} needs the rl extra: pip install asteroid-mining[rl]")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _register() -> None:
    """Make `gymnasium.make("AsteroidMining/Team-v0")` work (when gymnasium is installed)."""
    if _find_spec("gymnasium") is None:
        return
    import gymnasium

    if "AsteroidMining/Team-v0" not in gymnasium.registry:
        gymnasium.register(id="AsteroidMining/Team-v0", entry_point="asteroid_mining.rl.gym_env:TeamEnv")


_register()
