"""Generated belts are pinned: the same seed and parameters give the very same belt document, release after release.

A game's belt is regenerated from its seed (simulations, learning environments, replays of generated games), so
a change to the generator that moves a single asteroid, link, core or orbit changes games already played. The
digests below were taken from the generator as it was first released; speeding the generator up must leave
every one of them as it is. Each case exercises another path: the tiny belts' material floor, the sparse and
dense link fans, hubs, components joined, the smart shelter cover and the fast one above `SMART_COVER_SIZE`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from asteroid_mining.maps import belt_to_json
from asteroid_mining.maps.cores import SMART_COVER_SIZE
from asteroid_mining.maps.generator import generate_belt

PINNED: list[tuple[str, int, dict[str, Any], str]] = [
    ("tutorial", 0, {}, "0c346bb36aca8e6d"),
    ("tutorial", 5, {"richness": 0.2}, "ed04f4491ea30169"),
    ("small", 0, {}, "2221fafdc18ef4e1"),
    ("small", 1, {}, "6a54334c7c8aeb14"),
    ("small", 7, {"richness": 1.2, "storms": 0.5}, "5940c4b87ed36c86"),
    ("small", 11, {"density": 1.0}, "11f237f94006f99a"),
    ("small", 12, {"density": 12.0, "hubs": 2}, "b1509564ae52b279"),
    ("small", 13, {"size": 41}, "395f065cd83e6960"),
    ("standard", 0, {}, "8b6e9f693f38895d"),
    ("standard", 3, {"storms": 3.5}, "9238a501b336d006"),
    ("large", 1, {}, "cd839195193e4afb"),
    ("small", 2, {"size": 3_100, "hubs": 3}, "88f765949ff2653f"),
    ("huge", 0, {}, "eb24260619191161"),
]


def digest(preset: str, seed: int, overrides: dict[str, Any]) -> str:
    """The first 16 hex digits of the SHA-256 of the belt's document (keys sorted)."""
    document = json.dumps(belt_to_json(generate_belt(preset, seed=seed, **overrides)), sort_keys=True)
    return hashlib.sha256(document.encode()).hexdigest()[:16]


def test_the_cases_cover_both_shelter_covers() -> None:
    sizes = [overrides.get("size", 0) for _, _, overrides, _ in PINNED]
    assert any(size > SMART_COVER_SIZE for size in sizes)


@pytest.mark.parametrize(("preset", "seed", "overrides", "expected"), PINNED,
                         ids=[f"{p}-{s}-{'-'.join(map(str, o.values())) or 'preset'}" for p, s, o, _ in PINNED])
def test_a_generated_belt_is_the_same_document_as_ever(preset: str, seed: int, overrides: dict[str, Any],
                                                       expected: str) -> None:
    assert digest(preset, seed, overrides) == expected
