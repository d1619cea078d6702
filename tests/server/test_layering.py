"""The server's place in the layers (docs/architecture.md): storage/ needs nothing of ours, server/ sits on top."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "src" / "asteroid_mining"


def layers_imported(path: Path) -> set[str]:
    """The packages of ours (`rules`, `maps`, …) that a module imports, relative imports resolved."""
    package = path.relative_to(ROOT).parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(package[: len(package) - (node.level - 1)])
                parts = [*base, *(node.module.split(".") if node.module else [])]
                if parts:
                    found.add(parts[0])
                else:
                    found.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith("asteroid_mining."):
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("asteroid_mining."))
    return found


@pytest.mark.parametrize("path", sorted((ROOT / "storage").rglob("*.py")), ids=lambda p: p.name)
def test_storage_uses_nothing_of_ours(path: Path) -> None:
    assert layers_imported(path) <= {"storage"}


@pytest.mark.parametrize("path", sorted((ROOT / "server").rglob("*.py")), ids=lambda p: p.name)
def test_the_server_uses_the_layers_below(path: Path) -> None:
    # ai/ is imported lazily by name (server/bots.py), so that the server runs without it
    assert layers_imported(path) <= {"server", "rules", "maps", "storage", "__version__"}


def test_nothing_below_imports_the_server() -> None:
    for path in ROOT.rglob("*.py"):
        if path.parts[len(ROOT.parts)] not in ("server", "cli.py"):
            assert "server" not in layers_imported(path), path
