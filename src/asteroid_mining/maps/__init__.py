"""Belts (maps): the belt file format, the belt generator, storm regions and pictures of a belt.

The everyday names are here; the generator (`maps.generator`), storm regions (`maps.storms`), fairness
measures (`maps.fairness`) and pictures (`maps.picture`, needs matplotlib) are imported from their modules,
so that loading a belt does not pay for numpy, scipy or matplotlib.
"""

from .format import FORMAT, VERSION, belt_problems, belt_to_json, dumps_belt, load_belt, parse_belt, save_belt
from .problems import BeltError, MapError, Problem
from .shipped import load_shipped, shipped_names

__all__ = [
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
