"""Compile the rules engine (src/asteroid_mining/rules), the bots' search (the planner's modules of
src/asteroid_mining/ai) and the belt generator's walks (src/asteroid_mining/maps/walks.py) with mypyc, next to
their sources.

    python tools/compile_engine.py          # build, or say why not and leave the pure modules in place
    python tools/compile_engine.py --clean  # remove the compiled modules (the pure ones are used)

Each build is a library of its own (the rules; the modules `_engine.AI_MODULES` names; those `_engine.MAPS_MODULES`
names) and is remade only when
its sources changed. The extension modules are written beside the `.py` files they are built from, with
`_compiled.json` in the package recording the interpreter and a hash of every source; `asteroid_mining.rules._engine`
uses a build only while that record matches the sources. Without a C compiler or Python's headers nothing is
built, and the pure modules run: the exit status is 0 either way, since compiling is an optimisation, never a
requirement.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
RULES = SRC / "asteroid_mining" / "rules"


def _load_engine_module() -> ModuleType:
    """`asteroid_mining.rules._engine` on its own: importing the package would load a build being replaced."""
    spec = importlib.util.spec_from_file_location("_engine_of_the_build", RULES / "_engine.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_engine = _load_engine_module()


@dataclass(frozen=True)
class Build:
    """One compiled library: the package it is built in, its modules (None: all, see `compiled_sources`)."""

    what: str
    here: Path
    modules: Sequence[str] | None
    group: str
    """The name of the shared library holding the build's modules (`<group>__mypyc`)."""

    @property
    def manifest(self) -> Path:
        """The build's record: the interpreter and the sources' hashes."""
        return self.here / str(_engine.MANIFEST.name)

    def sources(self) -> list[Path]:
        """The modules compiled."""
        return list(_engine.compiled_sources(self.here, self.modules))

    def hashes(self) -> dict[str, str]:
        """Module path → sha256 of its source."""
        return dict(_engine.source_hashes(self.here, self.modules))

    def problem(self) -> str | None:
        """Why the build cannot be used as it is, or None."""
        problem: str | None = _engine.compiled_problem(self.here, self.modules)
        return problem


BUILDS = (
    Build("the rules engine", RULES, None, "asteroid_mining.rules._compiled"),
    Build("the bots' search", _engine.AI_HERE, _engine.AI_MODULES, "asteroid_mining.ai._compiled"),
    Build("the belt generator's walks", _engine.MAPS_HERE, _engine.MAPS_MODULES, "asteroid_mining.maps._compiled"),
)


def clean(build: Build) -> None:
    """Remove the build's extension modules and its record."""
    build.manifest.unlink(missing_ok=True)
    stems = None if build.modules is None else {*build.modules, build.group.rpartition(".")[2] + "__mypyc"}
    for path in build.here.rglob("*"):
        if path.suffix in (".so", ".pyd") and (stems is None or path.name.split(".")[0] in stems):
            path.unlink()


def compiler_problem() -> str | None:
    """Why no extension module can be built here, or None."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None:
        return f"no C compiler ({cc})"
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not include.exists():
        return f"no Python headers ({include}; Debian: python3-dev)"
    try:
        import mypyc  # noqa: F401
    except ImportError:
        return "mypyc is not installed (it comes with mypy, in the dev extras)"
    return None


def build(target: Build) -> None:
    """Compile the modules of `target` into its package directory."""
    clean(target)  # a failed build leaves the pure modules, with nothing stale beside them
    sources = [str(p.relative_to(SRC)) for p in target.sources()]
    hashes = target.hashes()
    with tempfile.TemporaryDirectory(prefix="mypyc-") as tmp:
        script = Path(tmp) / "setup.py"
        # mypy reads pyproject.toml's [tool.mypy] (strict); its notes on other packages' sections would stop
        # mypyc, hence --no-warn-unused-configs
        script.write_text(
            "from setuptools import setup\n"
            "from mypyc.build import mypycify\n"
            f"setup(name='asteroid-mining-engine', ext_modules=mypycify(\n"
            f"    ['--config-file', {str(ROOT / 'pyproject.toml')!r}, '--no-warn-unused-configs',\n"
            f"     '--cache-dir', {str(Path(tmp) / 'mypy-cache')!r}, *{sources!r}],\n"
            f"    opt_level='3', group_name={target.group!r}, target_dir={str(Path(tmp) / 'c')!r}))\n",
            encoding="utf-8",
        )
        command = [sys.executable, str(script), "build_ext", "--build-temp", str(Path(tmp) / "obj"),
                   "--build-lib", str(Path(tmp) / "lib"), "--parallel", "2"]
        result = subprocess.run(command, cwd=SRC, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
            raise SystemExit(f"compile_engine: mypyc failed on {target.what} (its pure modules stay in use)")
        built_here = Path(tmp) / "lib" / target.here.relative_to(SRC)
        for built in built_here.rglob("*"):
            if built.is_file():
                # a new file, never one written over: a running interpreter may have the old one mapped
                shutil.copy2(built, target.here / built.relative_to(built_here))
    if target.hashes() != hashes:
        clean(target)
        raise SystemExit("compile_engine: the sources changed while compiling; run it again")
    target.manifest.write_text(json.dumps({"tag": _engine.build_tag(), "sources": hashes}, indent=1) + "\n",
                               encoding="utf-8")


def main() -> None:
    """Build, clean, or explain why not."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    args = parser.parse_args()
    if args.clean:
        for target in BUILDS:
            clean(target)
        print("compiled modules removed: the pure ones are used")
        return
    problem = compiler_problem()
    if problem is not None:
        for target in BUILDS:
            clean(target)
        print(f"nothing compiled: {problem}; the pure modules are used")
        return
    for target in BUILDS:
        if target.problem() is None:
            target.manifest.touch()  # newer than the sources again, for make
            print(f"{target.what}: compiled build up to date")
            continue
        print(f"compiling {target.what} with mypyc ({len(target.sources())} modules)")
        build(target)
        print(f"{target.what}: compiled build made")


if __name__ == "__main__":
    main()
