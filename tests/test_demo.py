"""The terminal demo plays its shipped tour to a win."""

from __future__ import annotations

import io
import subprocess
import sys
from importlib import resources

from rich.console import Console

from asteroid_mining.demo import play_tour
from asteroid_mining.demo.tour import steps
from asteroid_mining.script.runner import run_files


def test_demo_command_wins_with_fast() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "asteroid_mining", "demo", "--fast"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "the game is won" in result.stdout
    assert "built the base" in result.stdout
    assert "0 failed" in result.stdout.splitlines()[-1]


def test_tour_in_process_does_not_pause_when_not_a_terminal() -> None:
    out = io.StringIO()
    assert play_tour(fast=False, console=Console(file=out, width=100)) == 0
    text = out.getvalue()
    for moment in ("exploded", "solar storm", "robot1", "gate1", "sublimated", "Round 15"):
        assert moment in text


def test_tour_is_an_ordinary_passing_scenario() -> None:
    tour = resources.files("asteroid_mining.demo").joinpath("tour.scn")
    with resources.as_file(tour) as path:
        out = io.StringIO()
        assert run_files([str(path)], quiet=True, out=out) == 0, out.getvalue()


def test_a_broken_tour_reports_its_error() -> None:
    out = io.StringIO()
    code = play_tour(fast=True, console=Console(file=out, width=100), source="asteroid A\nfrobnicate\n")
    assert code == 2
    assert "error: line 2" in out.getvalue()


def test_a_tour_that_does_not_win_fails() -> None:
    out = io.StringIO()
    assert play_tour(fast=True, console=Console(file=out), source="asteroid A\nsettler s1 at=A\n") == 1


def test_narration_is_attached_to_the_next_statement() -> None:
    source = "# file header\n## Chapter\n# told first\nasteroid A  # aside\n\n# then this\nend-round\n"
    found = list(steps(source))
    assert [(s.number, s.words, s.chapter, s.narration, s.aside) for s in found] == [
        (4, ("asteroid", "A"), "Chapter", ["told first"], "aside"),
        (7, ("end-round",), None, ["then this"], ""),
    ]
