"""The layering of docs/architecture.md, checked by reading every module's imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = "asteroid_mining"
ROOT = Path(__file__).resolve().parents[1] / "src" / PACKAGE

# package -> the packages of ours it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "rules": set(),
    "maps": {"rules"},
    "script": {"rules"},
    "ai": {"rules", "maps"},
    "rl": {"rules", "maps", "ai"},
    "demo": {"rules", "script"},
    "storage": {"rules"},
    "server": {"rules", "maps", "storage", "ai"},
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _ours_imported(path: Path) -> set[str]:
    """The modules of ours that `path` imports, as absolute dotted names."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {name for name in found if name == PACKAGE or name.startswith(PACKAGE + ".")}


def _layer(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else None


SOURCES = sorted(ROOT.rglob("*.py"))
LAYERS = {p.stem for p in ROOT.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}


def test_sources_found() -> None:
    assert (ROOT / "cli.py") in SOURCES


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_layering(path: Path) -> None:
    layer = _layer(_module_name(path))
    imported = _ours_imported(path)
    # nothing imports the command line: it is the top of the stack
    if layer not in ("cli", "__main__"):
        assert f"{PACKAGE}.cli" not in imported, f"{path.name} imports the command line"
    if layer in ALLOWED:
        for name in imported:
            other = _layer(name)
            # names of the top package itself (its version) are not a layer
            if other is None or other == layer or other not in LAYERS - {"__init__"}:
                continue
            allowed = sorted(ALLOWED[layer]) or "nothing of ours"
            assert other in ALLOWED[layer], f"{_module_name(path)} imports {name}: {layer}/ may use {allowed}"
