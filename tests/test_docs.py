"""The scenario examples in the documentation run and their checks hold."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from asteroid_mining.script.interpreter import Interpreter
from asteroid_mining.script.reporter import Reporter

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "docs" / "scenario-language.md", ROOT / "docs" / "rules.md"]
BLOCK = re.compile(r"^```scn\n(.*?)^```", re.MULTILINE | re.DOTALL)


def examples() -> list[tuple[str, str]]:
    found = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for number, match in enumerate(BLOCK.finditer(text), start=1):
            found.append((f"{doc.name}#{number}", match.group(1)))
    return found


def test_the_docs_have_examples() -> None:
    assert len(examples()) >= 5


@pytest.mark.parametrize(("name", "source"), examples(), ids=[name for name, _ in examples()])
def test_example_runs_and_its_checks_hold(name: str, source: str) -> None:
    out = io.StringIO()
    reporter = Reporter(out)
    assert Interpreter(name, reporter).run(source), out.getvalue()
    assert reporter.failed == 0, out.getvalue()
