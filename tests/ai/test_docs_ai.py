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
def test_example_runs(source: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # an example that writes files (a recorded dataset) writes them here
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, str(DOC), "exec"), {})
    for line in source.splitlines():
        if line.startswith("print(") and "# " in line and ":" not in line.split("# ", 1)[1]:
            assert line.split("# ", 1)[1].strip() in out.getvalue()


TEXT = DOC.read_text(encoding="utf-8")


def _table_after(heading: str) -> list[list[str]]:
    """The cells of the Markdown table whose header row starts with `heading`."""
    lines = TEXT.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(heading))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_feature_tables_are_the_encodings_own() -> None:
    from asteroid_mining.rl import observation_size
    from asteroid_mining.rl.encoding import ASTEROID_FEATURE_LIST, GLOBAL_FEATURE_LIST

    for heading, features in (("| position | name |", GLOBAL_FEATURE_LIST),
                              ("| position in a row | name |", ASTEROID_FEATURE_LIST)):
        documented = _table_after(heading)
        assert documented == [[str(i), f"`{f.name}`", f.range, f.meaning] for i, f in enumerate(features)]
    documented_size = (len(GLOBAL_FEATURE_LIST) + len(ASTEROID_FEATURE_LIST) * 17)
    assert documented_size == observation_size()
    assert f"length {len(GLOBAL_FEATURE_LIST)} + {len(ASTEROID_FEATURE_LIST)} × (1 + slots) (**{observation_size()}**" \
        in " ".join(TEXT.split())


def test_the_observation_table_names_every_public_helper() -> None:
    from asteroid_mining.ai import AsteroidView, GateView, Observation, SettlerView

    section = TEXT[TEXT.index("### `Observation`"): TEXT.index("### The bots")]
    named = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", " ".join(re.findall(r"`([^`]+)`", section))))
    for cls in (Observation, AsteroidView, SettlerView, GateView):
        public = {n for n in dir(cls) if not n.startswith("_")}
        assert public - named == set(), f"{cls.__name__}: not in docs/ai.md"
