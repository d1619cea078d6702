"""The `asteroid-mining` command line, run as users run it: a separate process."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from asteroid_mining import __version__
from asteroid_mining.rules import ENGINE


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`asteroid-mining ARGS` with this interpreter, standard input given (never a terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "asteroid_mining", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


PASSING = """\
asteroid A mantle=1 core=iron
settler s1 at=A
do s1 drill
expect A.mantle == 0
reject do s1 drill
"""

FAILING = """\
asteroid A
expect A.mantle == 7
expect A.core == hollow
"""

BROKEN = """\
asteroid A
expect A.exists == true
frobnicate A
expect A.exists == false
"""


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in (("passing", PASSING), ("failing", FAILING), ("broken", BROKEN)):
        path = tmp_path / f"{name}.scn"
        path.write_text(text, encoding="utf-8")
        paths[name] = str(path)
    return paths


def last_line(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout.rstrip("\n").splitlines()[-1]


def test_help_lists_the_subcommands() -> None:
    result = run("--help")
    assert result.returncode == 0, result.stderr
    for command in ("script", "map", "demo"):
        assert command in result.stdout
    assert "--version" in result.stdout


def test_no_arguments_shows_help() -> None:
    result = run()
    assert result.returncode == 0
    assert "script" in result.stdout and "demo" in result.stdout


def test_version() -> None:
    result = run("--version")
    assert result.returncode == 0
    # the same build of the engine as this process runs (the environment decides it for both)
    assert result.stdout.strip() == f"asteroid-mining {__version__} ({ENGINE} engine)"


def test_script_passing_file(files: dict[str, str]) -> None:
    result = run("script", files["passing"])
    assert result.returncode == 0, result.stdout
    assert "s1 drilled A (mantle 1 -> 0)" in result.stdout
    assert last_line(result) == "2 passed, 0 failed"


def test_script_failing_file(files: dict[str, str]) -> None:
    result = run("script", files["failing"])
    assert result.returncode == 1
    assert f"{files['failing']}:2: check failed: expect A.mantle == 7 (was 3)" in result.stdout
    assert last_line(result) == "1 passed, 1 failed"


def test_script_error_stops_the_file_and_wins_over_failures(files: dict[str, str]) -> None:
    result = run("script", files["failing"], files["broken"], files["passing"])
    assert result.returncode == 2
    assert f"{files['broken']}:3: error:" in result.stdout
    # the broken file stopped at its error: its last check never ran; the other files still ran
    assert last_line(result) == "4 passed, 1 failed"


def test_script_quiet_prints_only_failures_and_summary(files: dict[str, str]) -> None:
    result = run("script", "--quiet", files["passing"], files["failing"])
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines == [f"{files['failing']}:2: check failed: expect A.mantle == 7 (was 3)", "3 passed, 1 failed"]


def test_script_reads_standard_input() -> None:
    for args in (("script", "-"), ("script",)):
        result = run(*args, stdin=PASSING)
        assert result.returncode == 0, (args, result.stdout)
        assert last_line(result) == "2 passed, 0 failed"


def test_script_missing_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.scn")
    result = run("script", missing)
    assert result.returncode == 2
    assert result.stdout.startswith(f"{missing}: error:")
    assert last_line(result) == "0 passed, 0 failed"


@pytest.mark.parametrize(
    "args",
    [("frobnicate",), ("demo", "--bogus"), ("script", "--bogus")],
)
def test_usage_errors_are_one_line_exit_2(args: tuple[str, ...]) -> None:
    result = run(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("asteroid-mining: error: ")
    assert "Traceback" not in result.stderr


def test_map_commands_are_mounted() -> None:
    result = run("map", "--help")
    assert result.returncode == 0, result.stderr
    for command in ("generate", "check", "show", "list"):
        assert command in result.stdout
    assert "not available" not in run("--help").stdout


def test_map_generate_and_check(tmp_path: Path) -> None:
    belt = tmp_path / "belt.json"
    made = run("map", "generate", "-o", str(belt), "--preset", "tutorial", "--seed", "3")
    assert made.returncode == 0, made.stdout + made.stderr
    checked = run("map", "check", str(belt))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{belt}: ok" in checked.stdout


def test_script_without_file_on_a_terminal_opens_the_prompt() -> None:
    pty = pytest.importorskip("pty")

    pid, fd = pty.fork()
    if pid == 0:  # the child: the command on a terminal
        os.execv(sys.executable, [sys.executable, "-m", "asteroid_mining", "script"])
    os.write(fd, b"asteroid A\nexpect A.mantle == 3\nquit\n")
    output = b""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
    text = output.decode(errors="replace")
    done, status = os.waitpid(pid, os.WNOHANG)
    deadline = time.monotonic() + 60  # the terminal closed: the child is exiting, however slowly on a busy machine
    while not done and time.monotonic() < deadline:
        time.sleep(0.05)
        done, status = os.waitpid(pid, os.WNOHANG)
    if not done:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail(f"the prompt did not end: {text}")
    assert os.waitstatus_to_exitcode(status) == 0, text
    assert "scenario prompt" in text
    assert "1 passed, 0 failed" in text
