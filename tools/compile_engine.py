"""Compile the rules engine (src/asteroid_mining/rules) with mypyc, next to its sources.

    python tools/compile_engine.py          # build, or say why not and leave the pure engine in place
    python tools/compile_engine.py --clean  # remove the compiled modules (the pure engine is used)

The extension modules are written beside the `.py` files they are built from, with `_compiled.json` recording
the interpreter and a hash of every source; `asteroid_mining.rules._engine` uses them only while that record
matches the sources. Without a C compiler or Python's headers nothing is built, and the pure engine runs:
the exit status is 0 either way, since the compiled engine is an optimisation, never a requirement.
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
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
RULES = SRC / "asteroid_mining" / "rules"
GROUP = "asteroid_mining.rules._compiled"
"""The name of the shared library holding every compiled module (`_compiled__mypyc`)."""



def _load_engine_module() -> ModuleType:
    """`asteroid_mining.rules._engine` on its own: importing the package would load a build being replaced."""
    spec = importlib.util.spec_from_file_location("_engine_of_the_build", RULES / "_engine.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_engine = _load_engine_module()


def clean() -> None:
    """Remove every extension module and the build record from the package."""
    _engine.MANIFEST.unlink(missing_ok=True)
    for path in RULES.rglob("*"):
        if path.suffix in (".so", ".pyd"):
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


def build() -> None:
    """Compile every module `_engine.compiled_sources` names into the package directory."""
    clean()  # a failed build leaves the pure engine, with nothing stale beside it
    sources = [str(p.relative_to(SRC)) for p in _engine.compiled_sources()]
    hashes = _engine.source_hashes()
    with tempfile.TemporaryDirectory(prefix="mypyc-") as tmp:
        script = Path(tmp) / "setup.py"
        # mypy reads pyproject.toml's [tool.mypy] (strict on rules/); its notes on other packages' sections
        # would stop mypyc, hence --no-warn-unused-configs
        script.write_text(
            "from setuptools import setup\n"
            "from mypyc.build import mypycify\n"
            f"setup(name='asteroid-mining-engine', ext_modules=mypycify(\n"
            f"    ['--config-file', {str(ROOT / 'pyproject.toml')!r}, '--no-warn-unused-configs',\n"
            f"     '--cache-dir', {str(Path(tmp) / 'mypy-cache')!r}, *{sources!r}],\n"
            f"    opt_level='3', group_name={GROUP!r}, target_dir={str(Path(tmp) / 'c')!r}))\n",
            encoding="utf-8",
        )
        command = [sys.executable, str(script), "build_ext", "--build-temp", str(Path(tmp) / "obj"),
                   "--build-lib", str(Path(tmp) / "lib"), "--parallel", "2"]
        result = subprocess.run(command, cwd=SRC, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
            raise SystemExit("compile_engine: mypyc failed (the pure engine stays in use)")
        built_rules = Path(tmp) / "lib" / "asteroid_mining" / "rules"
        for built in built_rules.rglob("*"):
            if built.is_file():
                # a new file, never one written over: a running interpreter may have the old one mapped
                shutil.copy2(built, RULES / built.relative_to(built_rules))
    if _engine.source_hashes() != hashes:
        clean()
        raise SystemExit("compile_engine: the sources changed while compiling; run it again")
    _engine.MANIFEST.write_text(json.dumps({"tag": _engine.build_tag(), "sources": hashes}, indent=1) + "\n",
                                encoding="utf-8")


def main() -> None:
    """Build, clean, or explain why not."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clean", action="store_true", help="remove the compiled modules")
    args = parser.parse_args()
    if args.clean:
        clean()
        print("compiled engine removed: the pure engine is used")
        return
    problem = compiler_problem()
    if problem is not None:
        clean()
        print(f"compiled engine not built: {problem}; the pure engine is used")
        return
    if _engine.compiled_problem() is None:
        _engine.MANIFEST.touch()  # newer than the sources again, for make
        print("compiled engine up to date")
        return
    print(f"compiling the rules engine with mypyc ({len(_engine.compiled_sources())} modules)")
    build()
    print("compiled engine built")


if __name__ == "__main__":
    main()
