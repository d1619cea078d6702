"""Lexical level of the scenario language: lines, words, comments and ids (SCENARIO.md, "Lexical")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

ID_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_-]*\Z")
"""What an id looks like."""
RESERVED = frozenset({"none", "game", "true", "false"})
"""Words that can never be ids."""


class ScriptError(Exception):
    """An error of the script: the file stops. `line` is the 1-based line, or None for the whole file."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


@dataclass(frozen=True, slots=True)
class Line:
    """One non-blank line of a script, cut into words (comments removed)."""

    number: int
    words: tuple[str, ...]

    @property
    def text(self) -> str:
        """The statement as written, words separated by single spaces."""
        return " ".join(self.words)


_SEPARATORS = re.compile(r"[ \t]+")


def split_words(text: str) -> tuple[str, ...]:
    """The words of one line: `#` starts a comment; spaces and tabs separate words."""
    code = text.split("#", 1)[0].strip(" \t\r\n")
    return tuple(_SEPARATORS.split(code)) if code else ()


def tokenize(source: str) -> Iterator[Line]:
    """Every statement line of `source`, with its line number; blank and comment-only lines are skipped.

    Lines end at `\\n` (a `\\r` before it is dropped), so numbers match what editors show.
    """
    for number, words in numbered_words(source):
        yield Line(number, words)


def numbered_words(source: str) -> Iterator[tuple[int, tuple[str, ...]]]:
    """The line number and words of every statement line of `source` (what `tokenize` gives, as pairs)."""
    for number, raw in enumerate(source.split("\n"), start=1):
        words = line_words(raw)
        if words:
            yield number, words


def line_words(raw: str) -> tuple[str, ...]:
    """What `split_words` gives for one line (without its `\\n`), sooner for the usual line."""
    parts = raw.split(" ")
    # most lines are words between single spaces: those are split at once, the rest as `split_words` says
    if "" in parts or "#" in raw or "\t" in raw or "\r" in raw:
        return split_words(raw)
    return tuple(parts)


def is_id(word: str) -> bool:
    """True when `word` has the form of an id (reserved words included)."""
    return ID_PATTERN.match(word) is not None


def check_id(word: str, line: int | None = None) -> str:
    """`word` if it can name a thing; raises ScriptError for a malformed id or a reserved word."""
    if word in RESERVED:
        raise ScriptError(f"{word!r} is a reserved word and cannot be an id", line)
    if not is_id(word):
        raise ScriptError(f"{word!r} is not a valid id (letters, digits, '_' and '-', starting with a letter)", line)
    return word


def whole_number(word: str, what: str, line: int | None = None, minimum: int = 0) -> int:
    """`word` read as a whole number ≥ `minimum`; raises ScriptError naming `what` otherwise."""
    if not word.isascii() or not word.isdigit() or len(word) > 18 or int(word) < minimum:
        shown = word if len(word) <= 40 else f"{word[:20]}... ({len(word)} characters)"
        most = " (at most 18 digits)" if len(word) > 18 else ""
        raise ScriptError(f"{what} must be a whole number of at least {minimum}{most}, not {shown!r}", line)
    return int(word)


def a_kind(kind: str) -> str:
    """`kind` with its indefinite article: `an asteroid`, `a settler`, `a UFO`."""
    word = "UFO" if kind == "ufo" else kind
    return f"an {word}" if word[0] in "aeiouAEIOU" and word != "UFO" else f"a {word}"
