"""`simulate --record DIR`: every game written as a dataset for offline learning, one Parquet file a game.

`ai.simulate` reaches this module by name when a simulation records (this layer sits above `ai/`, and needs the
`rl` extra: the environments' encoding and pyarrow).

Each row is one step of a settler (one decision of the bot), in the game's order, with what a learning agent
sees through `asteroid_mining.rl` (the same encoding and reward as `TeamEnv`). Load every game of a folder:

    import pyarrow.parquet as pq
    steps = pq.read_table("runs/data")              # every game, one row per step
    obs = steps["observation"].combine_chunks().flatten().to_numpy().reshape(len(steps), -1)

The columns (`SCHEMA`, and docs/ai.md): `bot` (the spec asked for), `name` (the bot's own), `game`, `seed`,
`belt`, `rules`, `difficulty`, `step`, `round`, `settler`, `observation` (float32 × the observation's size),
`action_mask` (int8 × the actions), `action` (the index of the bot's action in the environments' action set, -1
when none stands for it: a move beyond the exit slots), `action_json` (the action as the engine's JSON), `reward`,
`terminated`, `truncated` (on a game's last step), and `outcome` (how the game ended, on every row). The file's
metadata holds `format` (`FORMAT`), the observation's `feature_names` and `n_actions` (JSON). Needs pyarrow
(`pip install asteroid-mining[rl]`).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..ai.playout import Tally
from ..ai.registry import make_bot
from ..ai.simulate import GameResult, result_of
from ..maps.resolve import Resolved
from ..rules.events import Died, Exploded, Sublimated
from .encoding import feature_names
from .episode import Episode

if TYPE_CHECKING:
    import pyarrow as pa

    from ..ai.simulate import Work

FORMAT = "asteroid-mining-steps/1"
"""The dataset's format and version (in every file's metadata): a change of the columns changes it."""


def schema(size: int, n_actions: int) -> pa.Schema:
    """The columns of a recorded game, for observations of `size` features and `n_actions` actions."""
    import pyarrow as pa

    return pa.schema([
        ("bot", pa.string()), ("name", pa.string()), ("game", pa.int32()), ("seed", pa.int64()),
        ("belt", pa.string()), ("rules", pa.string()), ("difficulty", pa.string()), ("step", pa.int32()),
        ("round", pa.int32()), ("settler", pa.string()), ("observation", pa.list_(pa.float32(), size)),
        ("action_mask", pa.list_(pa.int8(), n_actions)), ("action", pa.int16()), ("action_json", pa.string()),
        ("reward", pa.float32()), ("terminated", pa.bool_()), ("truncated", pa.bool_()), ("outcome", pa.string()),
    ])


def file_name(bot: str, game: int) -> str:
    """The file of game `game` of `bot` in the record folder (a file spec's characters made safe)."""
    return f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', bot)}-{game:06d}.parquet"


def record_game(work: Work, bot_name: str, game_index: int, resolved: Resolved) -> GameResult:
    """Game `game_index` of `bot_name`, played as `simulate.play_game` plays it (the same result), its steps
    written to `work.config.record`."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    config = work.config
    assert config.record is not None
    seed = config.seed + game_index
    started = time.perf_counter()
    # the simulation's own belt source: the same belt and recommended options as `play_game` (`resolved` is
    # what it gives for this seed, made again by `start`: the belt and the game are the same values)
    episode = Episode(work.source, config.rules, config.settlers, config.max_rounds)
    game = episode.start(seed)
    bot = make_bot(bot_name, seed, files=True)
    encoder = episode.encoder
    obs = episode.obs
    columns: dict[str, list[Any]] = {k: [] for k in ("round", "settler", "action", "action_json", "reward",
                                                      "terminated", "truncated")}
    vectors: list[Any] = []
    masks: list[Any] = []
    deaths: dict[str, int] = {}
    lost = refused = decisions = 0
    thinking = 0.0
    while game.status == "running" and game.round <= config.max_rounds:
        settler = game.turn
        if settler is None:
            break
        vector, mask = episode.encode(settler)
        clock = time.perf_counter()
        action = bot.choose(obs, settler)
        thinking += time.perf_counter() - clock
        decisions += 1
        index = encoder.index(obs, settler, action, episode.exits(settler))
        columns["round"].append(game.round)
        outcome = episode.apply(settler, action)
        refused += outcome.illegal
        for event in outcome.events:
            if isinstance(event, Died):
                deaths[event.cause] = deaths.get(event.cause, 0) + 1
            elif isinstance(event, Sublimated | Exploded):
                lost += 1
        vectors.append(vector)
        masks.append(mask)
        columns["settler"].append(settler)
        columns["action"].append(index)
        columns["action_json"].append(json.dumps(action.to_json(), separators=(",", ":")))  # as chosen
        columns["reward"].append(outcome.reward)
        columns["terminated"].append(outcome.terminated)
        columns["truncated"].append(outcome.truncated or (game.status == "running"
                                                          and game.round > config.max_rounds))
    tally = Tally(deaths, lost, refused, decisions, thinking)
    name = str(getattr(bot, "name", bot_name))
    result = result_of(game, bot_name, name, game_index, seed, config.max_rounds, tally, 0.0)
    steps = len(vectors)
    size, n_actions = encoder.size, encoder.n_actions
    observations = np.stack(vectors).reshape(-1) if steps else np.zeros(0, dtype=np.float32)
    mask_values = np.stack(masks).reshape(-1) if steps else np.zeros(0, dtype=np.int8)
    table = pa.table({
        "bot": [bot_name] * steps, "name": [name] * steps, "game": [game_index] * steps, "seed": [seed] * steps,
        "belt": [config.belt] * steps, "rules": [config.rules] * steps,
        "difficulty": [config.difficulty or ""] * steps, "step": list(range(steps)), "round": columns["round"],
        "settler": columns["settler"],
        "observation": pa.FixedSizeListArray.from_arrays(pa.array(observations, pa.float32()), size),
        "action_mask": pa.FixedSizeListArray.from_arrays(pa.array(mask_values, pa.int8()), n_actions),
        "action": columns["action"], "action_json": columns["action_json"], "reward": columns["reward"],
        "terminated": columns["terminated"], "truncated": columns["truncated"],
        "outcome": [result.outcome] * steps,
    }, schema=schema(size, n_actions).with_metadata({
        "format": FORMAT, "feature_names": json.dumps(feature_names(encoder.slots)),
        "n_actions": str(n_actions),
    }))
    pq.write_table(table, Path(config.record) / file_name(bot_name, game_index), compression="zstd")
    seconds = time.perf_counter() - started
    return GameResult(**{**_fields(result), "seconds": seconds})


def _fields(result: GameResult) -> dict[str, Any]:
    return {f: getattr(result, f) for f in GameResult.__dataclass_fields__}
