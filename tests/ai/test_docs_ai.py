"""The Python examples of docs/ai.md run."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "ai.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
EXAMPLES = BLOCK.findall(DOC.read_text(encoding="utf-8"))


def test_the_doc_has_examples() -> None:
    assert len(EXAMPLES) >= 2


@pytest.mark.parametrize("source", EXAMPLES, ids=[f"example{n}" for n in range(1, len(EXAMPLES) + 1)])
def test_example_runs(source: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, str(DOC), "exec"), {})
    for line in source.splitlines():
        if line.startswith("print(") and "# " in line and ":" not in line.split("# ", 1)[1]:
            assert line.split("# ", 1)[1].strip() in out.getvalue()
