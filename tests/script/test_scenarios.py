"""Every scenario file in tests/scenarios runs clean: one test per file."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from asteroid_mining.script.runner import run_files

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
FILES = sorted(SCENARIOS.glob("*.scn"))
RULE_IDS = [f"R{n}" for n in range(1, 19)] + ["R6a", "R6b", "R9a", "R16a", "E1", "E2", "E3"]


def test_scenarios_found() -> None:
    assert len(FILES) >= 80


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_scenario(path: Path) -> None:
    out = io.StringIO()
    code = run_files([str(path)], quiet=True, out=out)
    assert code == 0, out.getvalue()
    summary = out.getvalue().splitlines()[-1]
    assert re.fullmatch(r"[1-9]\d* passed, 0 failed", summary), out.getvalue()


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_scenario_cites_its_rules(path: Path) -> None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert re.match(r"# (R\d+[ab]?|E\d)( (R\d+[ab]?|E\d))*: \S", first), first


def test_every_rule_has_a_scenario() -> None:
    cited: set[str] = set()
    for path in FILES:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        cited.update(re.findall(r"\b(R\d+[ab]?|E\d)\b", first.split(":")[0]))
    assert sorted(set(RULE_IDS) - cited) == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_reject_names_its_refusal(path: Path) -> None:
    bare = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if re.match(r"\s*reject\s+do\b", line)]
    assert not bare, f"{path.name}: reject without its code on lines {bare}"
