"""What the Makefile's set-up installs: `make play` only what playing needs, the developer commands the dev tools.

Each check runs `make -n` (print the commands, run none but the recursive makes) on a copy of the Makefile and
the files its rules name, in a directory of its own with no virtualenv, so every install step is printed; the
extras named by each `pip install -e '.[…]'` are then resolved with pyproject.toml. Offline, and nothing is
installed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
COPIED = ["Makefile", "pyproject.toml", "tools/builds.toml", "tools/compile_engine.py", "web/package.json",
          "web/package-lock.json", "web/build.mjs", "web/tsconfig.json"]
"""What the Makefile's rules name as prerequisites (the rest of the tree does not matter to `make -n`)."""
PIP_INSTALL = re.compile(r"pip install [^\n]*-e '\.\[([^\]]*)\]'")
DEV_TOOLS = {"pytest", "pytest-xdist", "hypothesis", "ruff", "playwright", "ray", "httpx", "gymnasium",
             "pettingzoo", "pyarrow", "psycopg", "psycopg-pool", "redis"}
"""Named here as well as read from the dev extra, so that moving one out of dev does not pass unnoticed."""

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="GNU make is needed to read the Makefile")


def name(requirement: str) -> str:
    """A requirement's project name, normalised: `psycopg[binary]==3.3.9` → `psycopg`."""
    found = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert found is not None, requirement
    return re.sub(r"[._-]+", "-", found.group(0)).lower()


def requirements(extras: str) -> set[str]:
    """The projects `pip install -e '.[extras]'` asks for: the dependencies and those of each extra."""
    wanted = [name(r) for r in PYPROJECT["dependencies"]]
    for extra in filter(None, (e.strip() for e in extras.split(","))):
        assert extra in PYPROJECT["optional-dependencies"], f"pyproject.toml has no extra {extra!r}"
        wanted += [name(r) for r in PYPROJECT["optional-dependencies"][extra]]
    return set(wanted)


def dry_run(tmp_path: Path, *goals: str) -> str:
    """The commands `make -n GOALS` prints in a copy of the Makefile with no virtualenv yet."""
    for relative in COPIED:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / relative, tmp_path / relative)
    (tmp_path / "src" / "asteroid_mining" / "rules").mkdir(parents=True)  # the Makefile lists its sources
    result = subprocess.run(["make", "-n", *goals, "PORT=8123"], cwd=tmp_path, capture_output=True, text=True,
                            stdin=subprocess.DEVNULL, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def installed(commands: str) -> set[str]:
    """Every project the printed pip installs ask for."""
    sets = PIP_INSTALL.findall(commands)
    assert sets, f"no `pip install -e '.[...]'` in:\n{commands}"
    return set().union(*(requirements(extras) for extras in sets))


def test_make_play_installs_no_dev_tool(tmp_path: Path) -> None:
    commands = dry_run(tmp_path, "play")
    play = installed(commands)
    dev_only = requirements("dev") - requirements("compile") - {name(r) for r in PYPROJECT["dependencies"]}
    assert not play & (dev_only | DEV_TOOLS), f"make play installs dev tools: {sorted(play & (dev_only | DEV_TOOLS))}"
    # what it needs: the game's dependencies, and mypy for the compiled engine
    assert {name(r) for r in PYPROJECT["dependencies"]} | {"mypy"} <= play
    assert "asteroid-mining serve --port 8123 --open" in commands


def test_make_play_compiles_the_engine_in_the_background(tmp_path: Path) -> None:
    commands = dry_run(tmp_path, "play")
    assert "tools/compile_engine.py --background" in commands
    assert not re.search(r"tools/compile_engine\.py\s*$", commands, re.MULTILINE), "make play waits for the compile"


@pytest.mark.parametrize("goal", ["test", "lint", "setup"])
def test_the_developer_commands_install_the_dev_tools(tmp_path: Path, goal: str) -> None:
    commands = dry_run(tmp_path, goal)
    assert DEV_TOOLS | {"mypy"} <= installed(commands)
    # and they wait for the compiled engine (the tests run against it, then once more on the pure modules)
    assert re.search(r"tools/compile_engine\.py\s*$", commands, re.MULTILINE)


def test_the_compile_extra_pins_mypy_as_dev_does() -> None:
    extras = PYPROJECT["optional-dependencies"]
    assert extras["compile"] == [r for r in extras["dev"] if name(r) == "mypy"]
