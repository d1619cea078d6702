"""Which path fills the batched environment's observations: the C loop of `_batch.c`, or numpy (`rl.batch`).

`tools/compile_engine.py` (`make compiled`) builds `_batch.c` into an extension module beside it and records the
interpreter and a hash of the source (`_native.json`). The module is used only while that record matches the
source as it is now; a missing, stale or unloadable build, or `ASTEROID_MINING_ENGINE=pure`, leaves the numpy
path, which gives the same observations bit for bit (tests/ai/test_rl_batch.py runs both). `problem` says why the
C loop is not in use, `fill` is None then.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..rules import Asteroid
from ..rules._engine import ENV, EngineError, build_tag, wanted
from .hops import Distances, StaticColumns
from .table import Refresh

HERE = Path(__file__).parent
SOURCE = HERE / "_batch.c"
RECORD = HERE / "_native.json"
"""Written by the build: the interpreter it was built for and the sha256 of `_batch.c`."""
MODULE = f"{__name__.rpartition('.')[0]}._batch"


def source_hash() -> str:
    """The sha256 of `_batch.c` as it is now."""
    return hashlib.sha256(SOURCE.read_bytes()).hexdigest()


def build_problem() -> str | None:
    """Why the C build cannot be used now (missing, for another interpreter, older than its source), or None."""
    try:
        record = json.loads(RECORD.read_text(encoding="utf-8"))
        tag, built = record["tag"], record["source"]
    except FileNotFoundError:
        return "not built (run `make compiled`; it needs a C compiler)"
    except (OSError, ValueError, KeyError, TypeError):
        return f"{RECORD.name} is unreadable (run `make compiled`)"
    if tag != build_tag():
        return f"built for another interpreter ({tag}); run `make compiled`"
    if not SOURCE.exists():
        return f"{SOURCE.name} is missing"
    if built != source_hash():
        return f"older than {SOURCE.name}; run `make compiled`"
    return None


def _load() -> tuple[Any, str | None]:
    """The C build and None, or None and why it is not in use; as for every build (`rules._engine`),
    `ASTEROID_MINING_ENGINE=compiled` makes a build that cannot be used an error rather than a fallback."""
    asked = wanted()
    if asked == "pure":
        return None, f"{ENV}=pure"
    problem = build_problem()
    if problem is None:
        try:
            return importlib.import_module(MODULE), None
        except ImportError as failed:
            problem = f"cannot be loaded ({failed}); run `make compiled`"
    if asked == "compiled":
        raise EngineError(f"{ENV}=compiled, but the batched environment's C loop cannot be used: {problem}")
    return None, problem


_module, problem = _load()
"""Why the C build is not in use, or None."""
observe: Callable[..., None] | None = None if _module is None else _module.observe
"""`_batch.observe` when the C build is in use: a batch's observations and masks (`BatchEnv._observe`)."""
static_columns: StaticColumns | None = None if _module is None else _module.static_columns
"""`_batch.static_columns` when the C build is in use: a game's static columns of moves (`hops.Hops.static`)."""
refresh: Refresh | None = None if _module is None else _module.refresh
"""`_batch.refresh` when the C build is in use: a table's rows of what the engine touched (`table.BeltTable`)."""
moves_of: Callable[[Distances, Mapping[str, Asteroid], dict[str, list[tuple[str, str]]], int, int], None] | None = (
    None if _module is None else _module.moves_of)
"""`_batch.moves_of` when the C build is in use: every row of a game's matrix of moves from its asteroids and its
gates' exits (`hops.Hops.native`), to `LIMIT` moves, `FAR` beyond."""
step: Callable[..., list[tuple[int, str]]] | None = None if _module is None else _module.step
"""`_batch.step` when the C build is in use: every game's step of a batch (`BatchEnv.step`)."""
