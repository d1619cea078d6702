"""The fuzzer's profiles, its count of examples, and a watch on the log.

`FUZZ_PROFILE=ci` (the default, in `make test`): a fixed number of examples per test, derandomized (the same
examples on every run, so CI is deterministic). `FUZZ_PROFILE=long` (`make fuzz`): `FUZZ_EXAMPLES` random
examples per test (default 2,000), a new seed each run. `FUZZ_COUNTS=FILE` appends each run's counts to FILE.
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, settings

from .support import check_restart, server

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

PROFILE = os.environ.get("FUZZ_PROFILE", "ci")
EXAMPLES = Counter[str]()
"""Examples run, by test (`area: what`), and what they did (`area: what (detail)`: not examples)."""


def pytest_configure(config: pytest.Config) -> None:
    # Starlette 1.x prefers httpx2 for its test client; httpx is what the project pins
    config.addinivalue_line("filterwarnings", "ignore:Using `httpx` with `starlette.testclient`")
    config.addinivalue_line("filterwarnings", "ignore:Generating overly large repr")


def fuzz_settings(ci_examples: int) -> settings:
    """Hypothesis settings of the profile chosen by FUZZ_PROFILE."""
    long = PROFILE == "long"
    examples = int(os.environ.get("FUZZ_EXAMPLES", "2000")) if long else ci_examples
    return settings(max_examples=examples, derandomize=not long, deadline=None, database=None, print_blob=True,
                    suppress_health_check=list(HealthCheck))


class LogWatch(logging.Handler):
    """Keeps every record that is an error or carries a traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.bad: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR or record.exc_info:
            self.bad.append(record)

    def check(self) -> None:
        """Fail with the first bad record (and forget them, so one failure is reported once)."""
        bad, self.bad = self.bad, []
        if bad:
            first = bad[0]
            raise AssertionError(f"{len(bad)} errors or tracebacks in the log; the first: {first.name}: "
                                 f"{first.getMessage()}\n{logging.Formatter().formatException(first.exc_info)}"
                                 if first.exc_info else f"{first.name}: {first.getMessage()}")


@pytest.fixture(scope="module")
def log_watch() -> Iterator[LogWatch]:
    watch = LogWatch()
    root = logging.getLogger()
    level = root.level
    root.addHandler(watch)
    root.setLevel(min(level, logging.INFO) if level else logging.INFO)
    try:
        yield watch
    finally:
        root.removeHandler(watch)
        root.setLevel(level)


@pytest.fixture(scope="module")
def client(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
           log_watch: LogWatch) -> Iterator[TestClient]:
    """The server in process, on a data directory of the test module's own; after the module's tests it must
    start again on what they left, and the log must hold no error or traceback."""
    data = tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1])
    with server(data) as test_client:
        yield test_client
    check_restart(data)
    log_watch.check()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not EXAMPLES:
        return
    total = sum(n for name, n in EXAMPLES.items() if "(" not in name)
    lines = [f"fuzz ({PROFILE}): {total} examples"] + [f"  {name}: {n}" for name, n in sorted(EXAMPLES.items())]
    for line in lines:
        terminalreporter.write_line(line)
    target = os.environ.get("FUZZ_COUNTS")
    if target:
        failed = len(terminalreporter.stats.get("failed", ()))
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{total} {failed}\n")
