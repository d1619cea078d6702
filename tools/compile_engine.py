"""Compile with mypyc, next to their sources, the builds the build file `tools/builds.toml` lists: the rules
engine (src/asteroid_mining/rules), the bots' search (the planner's modules of src/asteroid_mining/ai) and the
belt generator's walks (src/asteroid_mining/maps/walks.py).

    python tools/compile_engine.py               # build, or say why not and leave the pure modules in place
    python tools/compile_engine.py --background  # the same in a process of its own, at a lower priority
    python tools/compile_engine.py --clean       # remove the compiled modules (the pure ones are used)

Each build is a library of its own (`<package>._compiled__mypyc`) and is remade only when its sources
changed; the builds to remake are compiled at the same time (mypyc's C compiler runs in a process of its own for
each, so two cores make two builds at once), and one compile runs at a time in a checkout (a lock: `make test`
waits for the compile `make play` left running in the background, then finds its builds made). The extension
modules are written beside the `.py` files they are built from, with `_compiled.json` in the package recording
the interpreter and a hash of every source; `asteroid_mining.rules._engine` uses a build only while that record
matches the sources, and a package compiled in part runs compiled the modules its record names. Without a C
compiler or Python's headers nothing is built, and the pure modules run: the exit status is 0 either way, since
compiling is an optimisation, never a requirement.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from contextlib import contextmanager
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
        return "mypyc is not installed (it comes with mypy: the compile extra, pip install -e '.[compile]')"
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


NATIVE = SRC / "asteroid_mining" / "rl"
"""The batched environment's C loop (`rl/_batch.c`, a plain C extension: no mypyc), recorded in `_native.json`."""


NATIVE_FLAGS = ["-O3", "-ffp-contract=off"]
"""The C loop's compile flags: no fused multiply-adds (a CPU that has them would round the rewards and features
otherwise than Python and numpy do: the streams are to be the same bit for bit)."""


def native_clean() -> None:
    """Remove the C loop's extension module and its record (the numpy path is used)."""
    (NATIVE / "_native.json").unlink(missing_ok=True)
    for path in NATIVE.glob("_batch.*"):
        if path.suffix in (".so", ".pyd"):
            path.unlink()


def native_build() -> None:
    """Compile `rl/_batch.c` beside it with the C compiler Python was built with, and record its hash; a failure
    leaves the numpy path (SystemExit saying so)."""
    source = NATIVE / "_batch.c"
    digest = hashlib.sha256(source.read_bytes()).hexdigest()
    native_clean()
    with tempfile.TemporaryDirectory(prefix="native-") as tmp:
        script = Path(tmp) / "setup.py"
        script.write_text(
            "from setuptools import Extension, setup\n"
            "setup(name='asteroid-mining-native', ext_modules=[Extension(\n"
            f"    'asteroid_mining.rl._batch', [{str(source)!r}], extra_compile_args={NATIVE_FLAGS!r})])\n",
            encoding="utf-8",
        )
        command = [sys.executable, str(script), "build_ext", "--build-temp", str(Path(tmp) / "obj"),
                   "--build-lib", str(Path(tmp) / "lib")]
        result = subprocess.run(command, cwd=tmp, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
            raise SystemExit("compile_engine: the C compiler failed on rl/_batch.c (the numpy path stays in use)")
        for built in (Path(tmp) / "lib" / "asteroid_mining" / "rl").glob("_batch.*"):
            shutil.copy2(built, NATIVE / built.name)  # (a new file: the old one was removed above)
    if hashlib.sha256(source.read_bytes()).hexdigest() != digest:
        native_clean()
        raise SystemExit("compile_engine: rl/_batch.c changed while compiling; run it again")
    record = {"tag": _engine.build_tag(), "source": digest, "flags": NATIVE_FLAGS}
    (NATIVE / "_native.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def native_stale() -> bool:
    """Whether the C loop is to be built again (its record touched when it is not, newer than its source)."""
    record = NATIVE / "_native.json"
    try:
        built = json.loads(record.read_text(encoding="utf-8"))
        fresh = built == {"tag": _engine.build_tag(), "flags": NATIVE_FLAGS,
                          "source": hashlib.sha256((NATIVE / "_batch.c").read_bytes()).hexdigest()}
    except (OSError, ValueError):
        return True
    if fresh and (NATIVE / f"_batch{importlib.machinery.EXTENSION_SUFFIXES[0]}").exists():
        record.touch()
        return False
    return True


LOCK = ROOT / "build" / "compile.lock"
"""Held while compiling: one compile at a time in this checkout."""

SECONDS_PER_BUILD = 20.0
SOURCE_LINES_PER_SECOND = 120.0
"""About how long one build takes on one idle core: mypy's analysis of everything it imports, then a line of
source a share of a second through mypyc and the C compiler (fitted to the fresh-clone runs of the README, scaled
by their load), for the estimate said before compiling."""


@contextmanager
def one_at_a_time() -> Iterator[None]:
    """Hold the lock of the builds, waiting (and saying so) while another compile holds it."""
    LOCK.parent.mkdir(exist_ok=True)
    with LOCK.open("a") as handle:
        try:
            import fcntl
        except ImportError:  # not a POSIX system: no lock, as before there was one
            yield
            return
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print("waiting for the compile already running (make play starts one in the background)", flush=True)
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def estimate(targets: Sequence[Build]) -> str:
    """About how long compiling `targets` at once takes here, for people: "about 60 s", scaled by how busy the
    machine is (its load average against its cores)."""
    cores = os.cpu_count() or 1
    alone = sum(SECONDS_PER_BUILD + sum(len(p.read_bytes().splitlines()) for p in t.sources()) /
                SOURCE_LINES_PER_SECOND for t in targets)
    busy = max(1.0, os.getloadavg()[0] / cores) if hasattr(os, "getloadavg") else 1.0
    seconds = alone / min(cores, len(targets)) * busy
    said = f"about {seconds:.0f} s" if seconds < 120 else f"about {seconds / 60:.0f} minutes"
    return said if busy < 1.5 else f"{said}: the machine is busy, load {os.getloadavg()[0]:.0f} on {cores} cores"


def stale() -> list[Build]:
    """The builds to remake; the others' records are touched (newer than their sources again, for make)."""
    remake = []
    for target in BUILDS:
        if target.problem() is None:
            target.manifest.touch()
        else:
            remake.append(target)
    return remake


def build_all(targets: Sequence[Build]) -> None:
    """Compile `targets` at the same time, saying when each is made; SystemExit naming those that failed."""
    started = time.monotonic()
    failed = []
    with ThreadPoolExecutor(max_workers=len(targets)) as pool:
        running = {pool.submit(build, target): target for target in targets}
        for done in as_completed(running):
            target = running[done]
            try:
                done.result()
            except SystemExit as failure:
                failed.append(str(failure.code))
                continue
            print(f"  {target.what}: compiled build made ({time.monotonic() - started:.0f} s)", flush=True)
    if failed:
        raise SystemExit("\n".join(failed))


def main() -> None:
    """Build, clean, or explain why not."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    parser.add_argument("--background", action="store_true",
                        help="compile what is stale in a process of its own at a lower priority, and return at once")
    parser.add_argument("--nice", action="store_true", help="compile at a lower priority (the background's process)")
    args = parser.parse_args()
    if args.clean:
        with one_at_a_time():
            for target in BUILDS:
                clean(target)
            native_clean()
        print("compiled modules removed: the pure ones are used")
        return
    problem = compiler_problem()
    if problem is not None:
        if args.background:  # a compile may be running; the foreground's run cleans up
            print(f"nothing compiled: {problem}; the pure engine runs")
            return
        with one_at_a_time():
            for target in BUILDS:
                clean(target)
            native_clean()
        print(f"nothing compiled: {problem}; the pure modules are used")
        return
    if args.background:
        remake = [target for target in BUILDS if target.problem() is not None]
        if not remake and native_stale():
            try:
                native_build()  # (a second or so: no need for the background)
            except SystemExit as failure:  # the game runs without it, on the numpy path
                print(f"{failure.code}", file=sys.stderr, flush=True)
        if not remake:
            print("the compiled engine is up to date")
            return
        print(f"compiling {', '.join(t.what for t in remake)} with mypyc in the background ({estimate(remake)}, "
              "at a lower priority): the game starts on the pure engine meanwhile, and runs compiled from its "
              "next start", flush=True)
        # the same process group as make's: stopping the game (Ctrl-C) stops the compile too, which leaves the
        # pure modules in use, and the next start compiles again
        subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--nice"], stdin=subprocess.DEVNULL)
        return
    if args.nice and hasattr(os, "nice"):
        os.nice(10)
    with one_at_a_time():
        remake = stale()
        for target in BUILDS:
            if target not in remake and not args.nice:
                print(f"{target.what}: compiled build up to date")
        if native_stale():
            try:
                native_build()
                print("the batched environment's C loop: built", flush=True)
            except SystemExit as failure:
                print(f"{failure.code}", file=sys.stderr, flush=True)
        elif not args.nice:
            print("the batched environment's C loop: up to date")
        if not remake:
            return
        if not args.nice:
            print(f"compiling {', '.join(t.what for t in remake)} with mypyc "
                  f"({sum(len(t.sources()) for t in remake)} modules, {estimate(remake)})...", flush=True)
        started = time.monotonic()
        try:
            build_all(remake)
        except SystemExit as failure:
            if args.nice:  # make play's game goes on, on the pure modules of what failed
                print(f"{failure.code}", file=sys.stderr, flush=True)
                return
            raise
        if args.nice:
            print(f"\nthe compiled engine is ready (compiled in {time.monotonic() - started:.0f} s): the game runs it "
                  "from its next start\n", flush=True)


if __name__ == "__main__":
    main()
