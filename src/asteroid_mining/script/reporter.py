"""What a scenario run prints: events, failed checks, errors and the closing summary (SCENARIO.md)."""

from __future__ import annotations

from typing import TextIO

EXIT_OK = 0
"""Every check held."""
EXIT_FAILED = 1
"""At least one check failed, and no file had an error."""
EXIT_ERROR = 2
"""At least one file had a script error (wins over failed checks)."""


class Reporter:
    """Collects the outcome of one run over any number of files and prints it to `out`.

    With `quiet`, only failed checks, errors and the summary are printed.
    """

    def __init__(self, out: TextIO, quiet: bool = False) -> None:
        self.out = out
        self.quiet = quiet
        self.passed = 0
        self.failed = 0
        self.errors = 0

    def _print(self, text: str) -> None:
        print(text, file=self.out)

    def event(self, text: str) -> None:
        """One thing that happened in the game, or another informative line (not printed when quiet)."""
        if not self.quiet:
            self._print(text)

    def check_passed(self) -> None:
        """Count one check that held."""
        self.passed += 1

    def check_failed(self, name: str, line: int, statement: str, detail: str) -> None:
        """Count and print one failed check: `FILE:LINE: check failed: STATEMENT (DETAIL)`."""
        self.failed += 1
        self._print(f"{name}:{line}: check failed: {statement} ({detail})")

    def error(self, name: str, line: int | None, reason: str) -> None:
        """Print a script error (`FILE:LINE: error: …`, or `FILE: error: …` for the whole file)."""
        self.errors += 1
        where = name if line is None else f"{name}:{line}"
        self._print(f"{where}: error: {reason}")

    def summary(self) -> None:
        """Print the last line of every run: `N passed, N failed`."""
        self._print(f"{self.passed} passed, {self.failed} failed")
        self.out.flush()

    @property
    def exit_code(self) -> int:
        """0 when all checks held, 1 when a check failed, 2 when any file had an error."""
        if self.errors:
            return EXIT_ERROR
        return EXIT_FAILED if self.failed else EXIT_OK
