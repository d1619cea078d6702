"""What the tests of each compiled build (the engine, the bots' search, the generator's walks) check alike."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

BUILD_FILE = Path(__file__).resolve().parents[1] / "tools" / "builds.toml"
"""The one list of what is compiled (`tools/compile_engine.py` builds what it names)."""


def build_modules(package: str) -> tuple[str, ...] | None:
    """The modules the build file compiles of `package` (None: all of them); KeyError when it compiles none."""
    for entry in tomllib.loads(BUILD_FILE.read_text(encoding="utf-8"))["build"]:
        if entry["package"] == package:
            return None if entry["modules"] == "all" else tuple(entry["modules"])
    raise KeyError(package)


def assert_build_asked_for(build: str, module: ModuleType, problem: Callable[[], str | None]) -> None:
    """`build` (a package's `BUILD` or `ENGINE`) is the one `ASTEROID_MINING_ENGINE` asks for, and `module`, one
    of the modules it compiles, is what runs: its source when pure, its extension (and `problem()` finds nothing
    amiss with the build) when compiled."""
    assert build in ("compiled", "pure")
    if os.environ.get("ASTEROID_MINING_ENGINE", "auto") == "pure":
        assert build == "pure"
    source = (module.__file__ or "").endswith(".py")
    if build == "pure":
        assert source
    else:
        assert problem() is None
        assert not source
