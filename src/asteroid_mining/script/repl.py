"""A small interactive prompt for the scenario language (`asteroid-mining script` on a terminal).

Statements run one by one on one game; an error is reported and the prompt goes on. `show` prints the state,
`help` lists the statements, `reset` starts a new game, `quit` (or end of input) leaves. History is kept with
readline in `~/.asteroid_mining_history` when readline is available.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TextIO

from .interpreter import Interpreter
from .lexer import split_words
from .reporter import Reporter

HISTORY = os.path.join(os.path.expanduser("~"), ".asteroid_mining_history")
"""Where the prompt keeps its readline history."""
PROMPT = "am> "
"""What the prompt shows."""
HELP = """\
set-up: rules classic|extended, set KEY VALUE, seed N, asteroid ID [mantle=N] [core=CORE] [sun=near|far]
        [orbit=P/K/F], link A B..., settler ID at=A [carry=KIND:N,...], robot|ufo ID at=A [ai=on|off],
        ai ID on|off, gates G1=WHERE G2=WHERE
play:   do ACTOR ACTION [ARGS], reject[=CODE] do ..., end-round, sun A near|far, storm A..., forecast ROUND A...
checks: expect PATH OP VALUE, show [ID]
prompt: help, reset, quit"""


def _setup_readline() -> object | None:
    try:
        import readline
    except ImportError:  # pragma: no cover - platform without readline
        return None
    with contextlib.suppress(OSError):
        readline.read_history_file(HISTORY)
    readline.set_history_length(1000)
    return readline


def _save_history(readline: object | None) -> None:
    if readline is None:
        return
    with contextlib.suppress(OSError):
        readline.write_history_file(HISTORY)  # type: ignore[attr-defined]


def session(lines: TextIO | None = None, out: TextIO | None = None, prompt: str = PROMPT) -> int:
    """Run the prompt reading from `lines` (the terminal when None); returns 0, or 1 if a check failed.

    Output goes to `out` (standard output when None).
    """
    out = out or sys.stdout
    reporter = Reporter(out)
    interpreter = Interpreter("<prompt>", reporter)
    number = 0
    while True:
        try:
            if lines is None:
                text = input(prompt)
            else:
                text = lines.readline()
                if not text:
                    break
        except EOFError:
            print(file=out)
            break
        except KeyboardInterrupt:
            print(file=out)
            continue
        number += 1
        words = split_words(text)
        if not words:
            continue
        if words[0] in ("quit", "exit") and len(words) == 1:
            break
        if words == ("help",):
            print(HELP, file=out)
            continue
        if words == ("reset",):
            interpreter = Interpreter("<prompt>", reporter)
            print("a new, empty game", file=out)
            continue
        interpreter.run_line(number, words)
    reporter.summary()
    return 1 if reporter.failed else 0


def main() -> int:
    """The interactive prompt on the terminal, with readline history; returns the exit status."""
    readline = _setup_readline()
    print("Asteroid Mining scenario prompt: type statements, 'help' for a list, 'quit' to leave.")
    try:
        return session()
    finally:
        _save_history(readline)
