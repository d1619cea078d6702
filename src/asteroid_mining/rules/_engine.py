"""Which build of the rules runs: the modules compiled by mypyc (`make compiled`), or the pure Python ones.

The compiled modules are built from these very sources and sit next to them as extension modules, which Python
prefers to `.py` files of the same name. They are used only when they were built from the sources as they are
now: the build records a hash of every source (`_compiled.json`), and a source edited since, or a module added
or removed, makes the whole package fall back to the pure modules (never a mix of stale and fresh code).
Setting `ASTEROID_MINING_ENGINE=pure` asks for the pure modules whatever is built, so that the same tests run
against both; `ASTEROID_MINING_ENGINE=compiled` makes a missing or stale build an error instead of a fallback.

Other packages have some of their modules compiled the same way, each as a build of its own with its own record
(the bots' search in `ai/`, the belt generator's walks in `maps/`): their compiled modules call the rules as any
Python code does, so each build is used or not on its own, and `ASTEROID_MINING_ENGINE` governs all of them.
Which modules each build compiles is said in one place, the build file `tools/builds.toml` that
`tools/compile_engine.py` reads; at run time a package compiled in part uses the modules its build recorded
(`choose_part`), so that nothing here names another package's modules.

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


def compiled_sources(here: Path = HERE, modules: Sequence[str] | None = None) -> list[Path]:
    """The modules that are compiled: `modules` of the package in `here`, or (None) every module of the package
    and its subpackages but the package's own `__init__` and this module (which decide which build runs)."""
    if modules is not None:
        return sorted(here / f"{m}.py" for m in modules)
    return sorted(p for p in here.rglob("*.py") if p.parent != here or not p.name.startswith("_"))


def module_path(source: Path, here: Path = HERE) -> str:
    """A source's module path below the package, extension-module style: `game`, `actions/__init__`."""
    return source.relative_to(here).with_suffix("").as_posix()


def source_hashes(here: Path = HERE, modules: Sequence[str] | None = None) -> dict[str, str]:
    """Module path (see `module_path`) → sha256 of its source, for the modules `compiled_sources` names."""
    return {module_path(p, here): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in compiled_sources(here, modules) if p.exists()}


def build_tag() -> str:
    """The interpreter a build is for: extension modules are specific to it."""
    return f"{sys.implementation.cache_tag}-{importlib.machinery.EXTENSION_SUFFIXES[0]}"


def compiled_problem(here: Path = HERE, modules: Sequence[str] | None = None) -> str | None:
    """Why the compiled modules of the package in `here` (`modules` of it, or all: see `compiled_sources`)
    cannot be used now, or None when they are built and up to date."""
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
    current = source_hashes(here, modules)
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
    """Finds a package's compiled modules as `.py` sources, passing over the extension modules beside them."""

    def __init__(self, package: str = PACKAGE, here: Path = HERE, modules: Sequence[str] | None = None) -> None:
        self.package, self.here, self.modules = package, here, modules

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """The spec of the pure module for `<package>.X[.Y]` (one of `modules`, if given), else None (the usual
        finders run)."""
        if not fullname.startswith(self.package + "."):
            return None
        name = fullname[len(self.package) + 1:]
        if self.modules is not None and name not in self.modules:
            return None
        where = self.here.joinpath(*name.split("."))
        if (where / "__init__.py").exists():
            return importlib.util.spec_from_file_location(fullname, where / "__init__.py",
                                                          submodule_search_locations=[str(where)])
        if where.with_suffix(".py").exists():
            return importlib.util.spec_from_file_location(fullname, where.with_suffix(".py"))
        return None


def choose() -> str:
    """Decide, once, before the package's modules are imported: `compiled` or `pure`."""
    return _choose(PACKAGE, HERE, None, "engine")


def choose_part(package: str, here: Path, what: str) -> str:
    """The same for a package compiled in part (`package`, its directory `here`), before any of its compiled
    modules is imported: the modules its build recorded are the compiled ones; `what` names the build in an
    error. Running pure, every module of the package is found as its source: an extension module beside one
    that the record does not name (a build since changed) is never loaded."""
    return _choose(package, here, recorded_modules(here), what, everywhere=True)


def recorded_modules(here: Path) -> tuple[str, ...]:
    """The modules the build of the package in `here` recorded (none when it is not built, or its record is
    unreadable: `compiled_problem` then says why the build is not used)."""
    try:
        sources = json.loads((here / MANIFEST.name).read_text(encoding="utf-8"))["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return ()
    if not isinstance(sources, dict):
        return ()
    return tuple(str(module) for module in sources)


def wanted() -> str:
    """The build `ASTEROID_MINING_ENGINE` asks for: `auto` (unset), `pure` or `compiled`; EngineError else."""
    asked = os.environ.get(ENV, "auto").strip().lower() or "auto"
    if asked not in ("auto", "pure", "compiled"):
        raise EngineError(f"{ENV} must be auto, pure or compiled, not {asked!r}")
    return asked


def _choose(package: str, here: Path, modules: Sequence[str] | None, what: str, everywhere: bool = False) -> str:
    asked = wanted()
    problem = None if asked == "pure" else compiled_problem(here, modules)
    if asked == "compiled" and problem is not None:
        raise EngineError(f"{ENV}=compiled, but the compiled {what} is {problem}")
    if asked == "pure" or problem is not None:
        if not any(isinstance(f, _PureFinder) and f.package == package for f in sys.meta_path):
            sys.meta_path.insert(0, _PureFinder(package, here, None if everywhere else modules))
        return "pure"
    return "compiled"
