"""docs/engine.md lists every refusal code with its parameters, as the engine's table has them."""

from __future__ import annotations

import re
from pathlib import Path

from asteroid_mining.rules import ACTION_SPECS, REFUSAL_KINDS

DOC = Path(__file__).resolve().parents[2] / "docs" / "engine.md"
ROW = re.compile(r"^\| `(\w+)` \| (.*?) \| (.*?) \| (.*?) \|$", re.MULTILINE)


def names(cell: str) -> tuple[str, ...]:
    return tuple(re.findall(r"`(\w+)`", cell))


def test_the_refusal_table_is_the_engine_s() -> None:
    text = DOC.read_text(encoding="utf-8")
    rows = {m.group(1): (names(m.group(2)), names(m.group(3)), m.group(4)) for m in ROW.finditer(text)}
    expected = {code: (kind.params, kind.optional, kind.meaning) for code, kind in REFUSAL_KINDS.items()}
    assert rows == expected


def test_the_doc_names_every_action() -> None:
    text = DOC.read_text(encoding="utf-8")
    for spec in ACTION_SPECS:
        assert f'"action": "{spec.name}"' in text, spec.name
    assert "view(player" not in text
