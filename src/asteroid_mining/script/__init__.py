"""The scenario language (SCENARIO.md): parse, run and check scenario files against the rules engine.

`runner.run_files` runs files for the command line; `repl.main` is the interactive prompt.
"""

from .lexer import ScriptError
from .runner import run_files

__all__ = ["ScriptError", "run_files"]
