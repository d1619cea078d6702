"""The errors of the maps layer: a problem found in a belt, and the exception that carries them all."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a belt document.

    `path` locates it inside the JSON document (`asteroids[12].core`, `links[3][1]`, `start`), or is a
    `line:column` for malformed JSON, or is empty for the document (or file) as a whole.
    """

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


class MapError(Exception):
    """The family of errors of `asteroid_mining.maps`; `code` is stable for machines, the text is for people."""

    code = "map_error"


class BeltError(MapError):
    """A belt could not be read: every problem found is in `problems`, and nothing was loaded."""

    code = "belt_invalid"

    def __init__(self, problems: Iterable[Problem], source: str = "") -> None:
        self.problems: list[Problem] = list(problems)
        self.source = source
        super().__init__(self._summary())

    def _summary(self) -> str:
        where = f" in {self.source}" if self.source else ""
        count = len(self.problems)
        head = f"{count} problem{'s' if count != 1 else ''}{where}"
        return "\n".join([f"{head}:", *(f"  {p}" for p in self.problems)])

    def lines(self, prefix: str = "") -> list[str]:
        """One line per problem, `PREFIX: PATH: message` (the prefix and path left out when empty)."""
        lead = f"{prefix}: " if prefix else ""
        return [f"{lead}{p}" for p in self.problems]


def json_path(parts: Iterable[str | int]) -> str:
    """A JSON path for people: `asteroids[12].core`; keys that are not plain names are quoted (`["a b"]`)."""
    out: list[str] = []
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif part.isidentifier():
            out.append(f".{part}" if out else part)
        else:
            out.append(f"[{part!r}]")
    return "".join(out)
