"""Belts (maps): the belt file format, the belt generator, storm regions and pictures of a belt.

The everyday names are here; the generator (`maps.generator`), storm regions (`maps.storms`), fairness
measures (`maps.fairness`) and pictures (`maps.picture`, needs matplotlib) are imported from their modules,
so that loading a belt does not pay for numpy, scipy or matplotlib.

The generator's walks over a belt's links (`maps.walks`) run compiled by mypyc when `make compiled` has built them
from their current sources, else as plain Python, like the rules engine; `BUILD` says which.
"""

from pathlib import Path as _Path

from ..rules._engine import choose_part as _choose_part

BUILD = _choose_part(__name__, _Path(__file__).parent, "build of the belt generator's walks")
"""`compiled` when the generator's walks run compiled by mypyc (`make compiled`), else `pure`; decided here, before
any of them is imported (`rules/_engine.py`)."""

# the package's modules are imported once the build is chosen
from .format import (  # noqa: E402
    FORMAT,
    VERSION,
    belt_problems,
    belt_to_json,
    dumps_belt,
    load_belt,
    parse_belt,
    save_belt,
)
from .problems import BeltError, MapError, Problem  # noqa: E402
from .shipped import load_shipped, shipped_names  # noqa: E402

__all__ = [
    "BUILD",
    "FORMAT",
    "VERSION",
    "BeltError",
    "MapError",
    "Problem",
    "belt_problems",
    "belt_to_json",
    "dumps_belt",
    "load_belt",
    "load_shipped",
    "parse_belt",
    "save_belt",
    "shipped_names",
]
