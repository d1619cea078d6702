"""A stand-in for mypy_extensions' `mypyc_attr` where that is not installed: a decorator that changes nothing.

mypyc reads the decorator when it compiles the planner's modules; mypy_extensions comes with mypy, so it is there
wherever they were compiled. The pure modules also run without the development tools: then this one is used.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


class _Unchanged:
    """Returns what it decorates."""

    def __call__(self, thing: T, /) -> T:
        return thing


def mypyc_attr(*attrs: str, **kwattrs: object) -> _Unchanged:
    """What mypyc reads (`allow_interpreted_subclasses`, …) means nothing to the pure modules."""
    return _Unchanged()
