"""Runs scenario files for `asteroid-mining script [--quiet] FILE...` (SCENARIO.md, "Output")."""

from __future__ import annotations

import sys
from typing import TextIO

from .interpreter import Interpreter
from .reporter import Reporter


def read_source(path: str) -> str:
    """The text of the file at `path` (`-` is standard input); raises OSError or UnicodeDecodeError."""
    if path == "-":
        return sys.stdin.read().removeprefix("\ufeff")
    with open(path, encoding="utf-8-sig") as handle:  # a byte order mark (some editors write one) is not text
        return handle.read()


def _reason(exc: Exception) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return f"cannot read the file: it is not UTF-8 text ({exc.reason} at byte {exc.start})"
    if isinstance(exc, OSError):
        return f"cannot read the file: {exc.strerror or exc}"
    return f"cannot read the file: {exc}"


def run_file(path: str, reporter: Reporter) -> None:
    """Run one file as an independent game, reporting to `reporter`."""
    try:
        source = read_source(path)
    except (OSError, UnicodeDecodeError) as exc:
        reporter.error(path, None, _reason(exc))
        return
    Interpreter(path, reporter).run(source)


def run_files(paths: list[str], quiet: bool = False, out: TextIO = sys.stdout) -> int:
    """Run every file (each an independent game), print the summary last and return the exit status.

    0: every check held; 1: a check failed; 2: a file had an error (2 wins over 1). `-` reads standard input.
    """
    reporter = Reporter(out, quiet=quiet)
    for path in paths:
        run_file(path, reporter)
    reporter.summary()
    return reporter.exit_code
