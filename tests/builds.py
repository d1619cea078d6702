"""What the tests of each compiled build (the engine, the bots' search, the generator's walks) check alike."""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType


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
