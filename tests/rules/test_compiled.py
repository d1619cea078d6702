"""The two builds of the engine: which one runs, when the compiled one is used, and what it must not lose."""

from __future__ import annotations

import ast
import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import asteroid_mining.rules
from asteroid_mining.rules import ACTION_SPECS, ACTION_TYPES, ENGINE, _engine

from ..builds import assert_build_asked_for

RULES = Path(asteroid_mining.rules.__file__).parent


def test_the_engine_in_use_is_the_one_asked_for() -> None:
    assert_build_asked_for(ENGINE, asteroid_mining.rules.game, _engine.compiled_problem)


def test_action_docs_are_their_classes_docstrings() -> None:
    # compiled classes keep no docstring, so each action's sentence is also set after its class (`Move.doc`)
    for name, record in ACTION_TYPES.items():
        source = (RULES / "actions" / f"{name}.py").read_text(encoding="utf-8")
        tree = ast.parse(source)
        cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == record.__name__)
        assert record.doc == ast.get_docstring(cls)
    assert all(spec.doc for spec in ACTION_SPECS)


def _package_copy(tmp_path: Path) -> Path:
    """The engine's sources with a build record and (empty) extension modules for them, as `make compiled`
    leaves them."""
    here = tmp_path / "rules"
    for source in _engine.compiled_sources():
        target = here / source.relative_to(RULES)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())
        target.with_name(source.stem + importlib.machinery.EXTENSION_SUFFIXES[0]).write_bytes(b"")
    record = {"tag": _engine.build_tag(), "sources": _engine.source_hashes(here)}
    (here / _engine.MANIFEST.name).write_text(json.dumps(record), encoding="utf-8")
    return here


def test_a_build_is_used_only_while_it_matches_the_sources(tmp_path: Path) -> None:
    here = _package_copy(tmp_path)
    assert _engine.compiled_problem(here) is None
    game = here / "game.py"
    game.write_text(game.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert "older than its sources (game)" in (_engine.compiled_problem(here) or "")


def test_a_new_module_or_a_missing_extension_makes_the_build_stale(tmp_path: Path) -> None:
    here = _package_copy(tmp_path)
    (here / "extra.py").write_text('"""A new module."""\n', encoding="utf-8")
    assert "extra" in (_engine.compiled_problem(here) or "")
    (here / "extra.py").unlink()
    (here / f"state{importlib.machinery.EXTENSION_SUFFIXES[0]}").unlink()
    assert "missing (state)" in (_engine.compiled_problem(here) or "")


def test_a_build_for_another_interpreter_is_not_used(tmp_path: Path) -> None:
    here = _package_copy(tmp_path)
    record = json.loads((here / _engine.MANIFEST.name).read_text(encoding="utf-8"))
    record["tag"] = "cpython-39-.so"
    (here / _engine.MANIFEST.name).write_text(json.dumps(record), encoding="utf-8")
    assert "another interpreter" in (_engine.compiled_problem(here) or "")


def test_compiled_is_refused_when_not_usable() -> None:
    if _engine.compiled_problem() is None:
        return  # built and current here: asking for it is fine (the other tests cover a stale one)
    result = subprocess.run([sys.executable, "-c", "import asteroid_mining.rules"], capture_output=True, text=True,
                            check=False, env=dict(os.environ, ASTEROID_MINING_ENGINE="compiled"))
    assert result.returncode != 0 and "ASTEROID_MINING_ENGINE=compiled" in result.stderr


def test_an_unknown_engine_is_refused() -> None:
    result = subprocess.run([sys.executable, "-c", "import asteroid_mining.rules"], capture_output=True, text=True,
                            check=False, env=dict(os.environ, ASTEROID_MINING_ENGINE="fast"))
    assert result.returncode != 0 and "must be auto, pure or compiled" in result.stderr
