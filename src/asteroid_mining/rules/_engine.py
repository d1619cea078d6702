"""Which build of the rules runs: the modules compiled by mypyc (`make compiled`), or the pure Python ones.

The compiled modules are built from these very sources and sit next to them as extension modules, which Python
prefers to `.py` files of the same name. They are used only when they were built from the sources as they are
now: the build records a hash of every source (`_compiled.json`), and a source edited since, or a module added
or removed, makes the whole package fall back to the pure modules (never a mix of stale and fresh code).
Setting `ASTEROID_MINING_ENGINE=pure` asks for the pure modules whatever is built, so that the same tests run
against both; `ASTEROID_MINING_ENGINE=compiled` makes a missing or stale build an error instead of a fallback.

This module is never compiled itself: it decides before any compiled module is imported.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

PACKAGE = __name__.rpartition(".")[0]
HERE = Path(__file__).parent
MANIFEST = HERE / "_compiled.json"
"""Written by the build: the Python it was built for and the sha256 of every compiled source."""
ENV = "ASTEROID_MINING_ENGINE"
"""`pure` forces the pure modules; `compiled` requires the compiled ones; unset or `auto` prefers them."""


class EngineError(RuntimeError):
    """`ASTEROID_MINING_ENGINE=compiled` and no usable compiled build (or an unknown value)."""


def compiled_sources(here: Path = HERE) -> list[Path]:
    """The modules that are compiled: every module of the package and its subpackages but the package's own
    `__init__` and this module (which decide which build runs)."""
    return sorted(p for p in here.rglob("*.py") if p.parent != here or not p.name.startswith("_"))


def module_path(source: Path, here: Path = HERE) -> str:
    """A source's module path below the package, extension-module style: `game`, `actions/__init__`."""
    return source.relative_to(here).with_suffix("").as_posix()


def source_hashes(here: Path = HERE) -> dict[str, str]:
    """Module path (see `module_path`) → sha256 of its source, for the modules `compiled_sources` names."""
    return {module_path(p, here): hashlib.sha256(p.read_bytes()).hexdigest() for p in compiled_sources(here)}


def build_tag() -> str:
    """The interpreter a build is for: extension modules are specific to it."""
    return f"{sys.implementation.cache_tag}-{importlib.machinery.EXTENSION_SUFFIXES[0]}"


def compiled_problem(here: Path = HERE) -> str | None:
    """Why the compiled modules of the package in `here` cannot be used now, or None when they are built and
    up to date."""
    record = here / MANIFEST.name
    if not record.exists():
        return "not built (run `make compiled`; it needs a C compiler)"
    try:
        manifest = json.loads(record.read_text(encoding="utf-8"))
        built, tag = manifest["sources"], manifest["tag"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"{MANIFEST.name} is unreadable (run `make compiled`)"
    if tag != build_tag():
        return f"built for another interpreter ({tag}); run `make compiled`"
    current = source_hashes(here)
    if built != current:
        changed = sorted(set(built) ^ set(current) | {m for m in built.keys() & current.keys()
                                                       if built[m] != current[m]})
        return f"older than its sources ({', '.join(changed)}); run `make compiled`"
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    missing = [m for m in current if not (here / f"{m}{suffix}").exists()]
    if missing:
        return f"extension modules missing ({', '.join(missing)}); run `make compiled`"
    return None


class _PureFinder(importlib.abc.MetaPathFinder):
    """Finds the package's modules as `.py` sources, passing over the extension modules beside them."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """The spec of the pure module for `asteroid_mining.rules.X[.Y]`, else None (the usual finders run)."""
        if not fullname.startswith(PACKAGE + "."):
            return None
        where = HERE.joinpath(*fullname[len(PACKAGE) + 1:].split("."))
        if (where / "__init__.py").exists():
            return importlib.util.spec_from_file_location(fullname, where / "__init__.py",
                                                          submodule_search_locations=[str(where)])
        if where.with_suffix(".py").exists():
            return importlib.util.spec_from_file_location(fullname, where.with_suffix(".py"))
        return None


def choose() -> str:
    """Decide, once, before the package's modules are imported: `compiled` or `pure`."""
    wanted = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if wanted not in ("auto", "pure", "compiled"):
        raise EngineError(f"{ENV} must be auto, pure or compiled, not {wanted!r}")
    problem = None if wanted == "pure" else compiled_problem()
    if wanted == "compiled" and problem is not None:
        raise EngineError(f"{ENV}=compiled, but the compiled engine is {problem}")
    if wanted == "pure" or problem is not None:
        if not any(isinstance(f, _PureFinder) for f in sys.meta_path):
            sys.meta_path.insert(0, _PureFinder())
        return "pure"
    return "compiled"
