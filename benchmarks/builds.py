"""Running a benchmark's measurements again in a process of its own for each build of the engine.

`bench_engine.py` and `bench_rl.py` give every figure for the compiled and the pure engine: each build is chosen
when the engine is first imported (`ASTEROID_MINING_ENGINE`), so each is measured by the same script started
again with `--json`, which prints that process's figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any


def figures_in_child(script: str, engine: str, args: list[str]) -> dict[str, Any] | None:
    """The JSON figures `script --json *args` prints in a fresh process running `engine`, or None (said on
    standard error) when that build is not available or the run fails."""
    env = dict(os.environ, ASTEROID_MINING_ENGINE=engine)
    result = subprocess.run([sys.executable, script, "--json", *args], env=env, capture_output=True, text=True,
                            check=False)
    if result.returncode != 0:
        sys.stderr.write(f"{engine} engine: {result.stderr.strip().splitlines()[-1] if result.stderr else 'failed'}\n")
        return None
    data: dict[str, Any] = json.loads(result.stdout)
    return data
