"""The layering of docs/architecture.md, checked by reading every module's imports and attribute reads.

- every package imports only the packages its row of the table allows (`rules/` nothing of ours, `storage/`
  nothing of ours, nothing below the server imports it, nothing imports the command line);
- outside `rules/`, nobody imports the engine's state (`rules.state`) or reads a game's `state`: the engine's
  public API (`Game`'s methods and read-only properties, its views, choices and touched ids) is the way in.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = "asteroid_mining"
ROOT = Path(__file__).resolve().parents[1] / "src" / PACKAGE

# package -> the packages of ours it may import (besides itself)
ALLOWED: dict[str, set[str]] = {
    "rules": set(),
    # the garbage collector's policy for the edges that load in bulk: it imports nothing of ours
    "collector": set(),
    # strict JSON bodies, read also in the process that reads large ones first: it imports nothing of ours
    "bodies": set(),
    "maps": {"rules", "collector"},
    # the player-facing words (the translation files): refusals are worded from the rules' codes and params
    "texts": {"rules"},
    "script": {"rules", "texts", "collector"},
    "ai": {"rules", "maps"},
    "rl": {"rules", "maps", "ai"},
    "demo": {"rules", "script"},
    # the store keeps games as JSON it does not read (belt, options, snapshots, commands): it needs no engine
    "storage": set(),
    # ai/ plays bot seats but is imported by name when a game asks for a bot (server/bots.py), so that the
    # server runs without it: no import statement of the server names it
    # script: the checks that judge lessons' goals
    "server": {"rules", "maps", "storage", "script", "texts", "collector", "bodies"},
}
ENGINE_STATE = f"{PACKAGE}.rules.state"
GAME_NAME = re.compile(r"(^|_)game$")
"""Names that hold a `Game` by the project's convention (`game`, `self.game`, `self._game`, `live.game`)."""


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _ours_imported(path: Path) -> set[str]:
    """The modules of ours that `path` imports, as absolute dotted names (`from . import x` gives `pkg.x`)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(_tree(path)):
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


def _holds_a_game(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return bool(GAME_NAME.search(node.id))
    if isinstance(node, ast.Attribute):
        return bool(GAME_NAME.search(node.attr))
    return False


def _state_reads(path: Path) -> list[str]:
    """Where `path` reads a game's engine state: `game.state`, `self._game.state`, any `._state`."""
    found = []
    for node in ast.walk(_tree(path)):
        if (isinstance(node, ast.Attribute) and (
            (node.attr == "state" and _holds_a_game(node.value)) or node.attr == "_state"
        )) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
              and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
              and node.args[1].value in ("state", "_state")):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


SOURCES = sorted(ROOT.rglob("*.py"))
LAYERS = {p.stem for p in ROOT.iterdir() if p.suffix == ".py" or (p / "__init__.py").exists()}
OUTSIDE_RULES = [p for p in SOURCES if _layer(_module_name(p)) != "rules"]


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def test_sources_found() -> None:
    assert (ROOT / "cli.py") in SOURCES
    assert set(ALLOWED) <= LAYERS
    assert ROOT / "server" / "diff.py" in OUTSIDE_RULES and ROOT / "rules" / "game.py" not in OUTSIDE_RULES


@pytest.mark.parametrize("path", SOURCES, ids=_id)
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


@pytest.mark.parametrize("path", OUTSIDE_RULES, ids=_id)
def test_only_the_engine_sees_its_state(path: Path) -> None:
    imported = _ours_imported(path)
    assert ENGINE_STATE not in imported and not any(n.startswith(ENGINE_STATE + ".") for n in imported), (
        f"{_module_name(path)} imports {ENGINE_STATE}: use the engine's public API (asteroid_mining.rules)"
    )
    assert _state_reads(path) == [], "outside rules/, nobody reads a game's state: use the engine's public API"


def test_the_state_check_sees_what_it_should(tmp_path: Path) -> None:
    """The check itself: these reads are caught, an app's or a request's `state` is not."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "a = game.state\nb = self._game.state.round\nc = live.game.state\nd = x._state\ne = getattr(g, 'state')\n"
        "f = request.app.state.hub\ng = websocket.app.state\nh = snapshot.state\n", encoding="utf-8")
    assert sorted(int(line.split(":")[1]) for line in _state_reads(sample)) == [1, 2, 3, 4, 5]
