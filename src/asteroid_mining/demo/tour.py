"""Plays a narrated scenario file step by step in the terminal (`asteroid-mining demo`).

The tour is an ordinary scenario file run by the scenario language's own interpreter, so the demo plays
exactly the game that `asteroid-mining script` would. Comment lines are its narration: a line starting with
`##` opens a chapter, other comment lines are told before the statement below them.
"""

from __future__ import annotations

import io
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources

from rich.console import Console

from ..script.interpreter import Interpreter
from ..script.lexer import split_words
from ..script.reporter import Reporter
from . import render

TOUR = "tour.scn"
"""The shipped tour, a resource of this package."""

STEP_PAUSE = 0.6
"""Seconds to wait after each statement when playing to a terminal."""
READ_PAUSE = 0.05
"""Extra seconds per word of narration, so people have time to read it."""


@dataclass(slots=True)
class Step:
    """One statement of the tour, with the narration told before it."""

    number: int
    words: tuple[str, ...]
    chapter: str | None = None
    narration: list[str] = field(default_factory=list)
    aside: str = ""
    """The comment written after the statement on its line, if any."""


def steps(source: str) -> Iterator[Step]:
    """The statements of a tour, each carrying the chapter title and narration written above it.

    The file's opening comment block (before the first chapter) describes the file and is not narrated.
    """
    chapter: str | None = None
    narration: list[str] = []
    started = False
    for number, raw in enumerate(source.splitlines(), start=1):
        text = raw.strip()
        if text.startswith("##"):
            chapter, narration, started = text.lstrip("#").strip(), [], True
            continue
        if text.startswith("#"):
            if started:
                narration.append(text[1:].strip())
            continue
        words = split_words(raw)
        if not words:
            continue
        aside = raw.split("#", 1)[1].strip() if "#" in raw else ""
        yield Step(number, words, chapter, narration, aside)
        chapter, narration = None, []


class _TourReporter(Reporter):
    """Collects what one statement printed, for the renderer to show it its own way."""

    def __init__(self) -> None:
        super().__init__(out=io.StringIO(), quiet=False)
        self.lines: list[tuple[str, str]] = []

    def event(self, text: str) -> None:
        self.lines.append(("event", text))

    def check_failed(self, name: str, line: int, statement: str, detail: str) -> None:
        super().check_failed(name, line, statement, detail)
        self.lines.append(("failed", f"{statement} ({detail})"))

    def error(self, name: str, line: int | None, reason: str) -> None:
        super().error(name, line, reason)
        self.lines.append(("error", f"line {line}: {reason}" if line else reason))

    def take(self) -> list[tuple[str, str]]:
        lines, self.lines = self.lines, []
        return lines


def play_tour(fast: bool = False, console: Console | None = None, source: str | None = None) -> int:
    """Play the tour (or `source`, a scenario text) on `console`; returns the exit status.

    0 when the game was won with every check holding; 1 when a check failed or the game was not won;
    2 when the scenario had an error. Pauses between steps only on a terminal and without `fast`.
    """
    console = console or Console(highlight=False)
    if source is None:
        source = resources.files(__package__).joinpath(TOUR).read_text(encoding="utf-8")
    pause = not fast and console.is_terminal
    reporter = _TourReporter()
    interpreter = Interpreter(TOUR, reporter)

    render.title(console)
    shown_round = 0  # the round whose status table was last shown
    for step in steps(source):
        if step.chapter:
            render.chapter(console, step.chapter)
        if step.words[0] == "do" and shown_round != interpreter.game.round:
            render.status(console, interpreter.game)
            shown_round = interpreter.game.round
        if step.narration:
            render.narration(console, step.narration)
            if pause:
                time.sleep(READ_PAUSE * sum(len(line.split()) for line in step.narration))
        passed = reporter.passed
        ok = interpreter.run_line(step.number, step.words)
        render.statement(console, step.words, step.aside, reporter.take(), reporter.passed > passed)
        if not ok:
            break
        if step.words[0] == "end-round" and interpreter.game.status == "running":
            render.status(console, interpreter.game)
            shown_round = interpreter.game.round
        if pause:
            time.sleep(STEP_PAUSE)

    won = interpreter.game.status == "won"
    render.finale(console, interpreter.game, reporter.passed, reporter.failed, reporter.errors)
    if reporter.exit_code:
        return reporter.exit_code
    return 0 if won else 1
