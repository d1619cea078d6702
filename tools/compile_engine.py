"""Compile with mypyc, next to their sources, the builds the build file `tools/builds.toml` lists: the rules
engine (src/asteroid_mining/rules), the bots' search (the planner's modules of src/asteroid_mining/ai) and the
belt generator's walks (src/asteroid_mining/maps/walks.py).

    python tools/compile_engine.py          # build, or say why not and leave the pure modules in place
    python tools/compile_engine.py --clean  # remove the compiled modules (the pure ones are used)

Each build is a library of its own (`<package>._compiled__mypyc`) and is remade only when its sources
changed. The extension modules are written beside the `.py` files they are built from, with `_compiled.json` in
the package recording the interpreter and a hash of every source; `asteroid_mining.rules._engine` uses a build
only while that record matches the sources, and a package compiled in part runs compiled the modules its record
names. Without a C compiler or Python's headers nothing is built, and the pure modules run: the exit status is 0
either way, since compiling is an optimisation, never a requirement.
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
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
RULES = SRC / "asteroid_mining" / "rules"
BUILD_FILE = Path(__file__).resolve().parent / "builds.toml"
"""The one list of what is compiled: each build's package and modules."""


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


def read_builds(path: Path = BUILD_FILE) -> tuple[Build, ...]:
    """The builds the build file lists; SystemExit naming the place of a mistake in it."""
    try:
        listed = tomllib.loads(path.read_text(encoding="utf-8"))["build"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as wrong:
        raise SystemExit(f"compile_engine: {path.name}: cannot read its [[build]] tables ({wrong})") from None
    builds = []
    for i, entry in enumerate(listed):
        where = f"{path.name}: build[{i}]"
        what, package, modules = entry.get("what"), entry.get("package"), entry.get("modules")
        if not isinstance(what, str) or not isinstance(package, str) or not package.startswith("asteroid_mining"):
            raise SystemExit(f"compile_engine: {where}: needs `what` and `package` (asteroid_mining...) as strings")
        here = SRC.joinpath(*package.split("."))
        if modules == "all":
            chosen: tuple[str, ...] | None = None
        elif isinstance(modules, list) and modules and all(isinstance(m, str) for m in modules):
            chosen = tuple(modules)
            missing = [m for m in chosen if m.startswith("_") or not (here / f"{m}.py").is_file()]
            if missing:
                raise SystemExit(f"compile_engine: {where}.modules: no such module to compile: {', '.join(missing)}")
        else:
            raise SystemExit(f"compile_engine: {where}.modules: \"all\" or a list of the package's modules")
        if not (here / "__init__.py").is_file():
            raise SystemExit(f"compile_engine: {where}.package: no package {package}")
        builds.append(Build(what, here, chosen, f"{package}._compiled"))
    return tuple(builds)


BUILDS = read_builds()


def clean(build: Build) -> None:
    """Remove the build's extension modules and its record."""
    # a module the build compiled before but the build file no longer names goes too
    recorded = _engine.recorded_modules(build.here) if build.modules is not None else ()
    build.manifest.unlink(missing_ok=True)
    stems = None if build.modules is None else {*build.modules, *recorded, build.group.rpartition(".")[2] + "__mypyc"}
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
