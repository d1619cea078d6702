"""Shared fixtures for the maps tests."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from asteroid_mining.maps.generator import generate_belt
from asteroid_mining.rules.belt import Belt

VALID: dict[str, Any] = {
    "format": "asteroid-mining/belt",
    "version": 1,
    "name": "Three",
    "description": "A tiny valid belt.",
    "start": "A",
    "storm_sector": 30.0,
    "asteroids": [
        {"id": "A", "mantle": 0, "core": "hollow", "orbit": {"sun": "far"}, "position": [10.0, 0.0]},
        {"id": "B", "mantle": 2, "core": "iron", "orbit": "6/2/0", "position": [0.0, 10.0]},
        {"id": "C", "mantle": 1, "core": "uranium", "orbit": {"sun": "near"}, "position": [-10.0, 0.0]},
    ],
    "links": [["A", "B"], ["B", "C"]],
    "gates": [{"first": "g1", "first_at": "A", "second": "g2", "second_at": "C"}],
}


@pytest.fixture
def doc() -> dict[str, Any]:
    """A fresh copy of a small valid belt document, to spoil."""
    return copy.deepcopy(VALID)


@pytest.fixture(scope="session")
def standard() -> Belt:
    """A generated standard belt (seed 11)."""
    return generate_belt("standard", seed=11)


@pytest.fixture(scope="session")
def small() -> Belt:
    """A generated small belt (seed 5)."""
    return generate_belt("small", seed=5)
