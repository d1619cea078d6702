"""The bulk checks of a belt's big arrays agree with the one-by-one checks that explain problems.

A valid array is accepted in bulk; anything the bulk pass doubts goes to the one-by-one checks, so the two must
give the same pieces for valid arrays, and the bulk pass must never accept what the one-by-one checks refuse.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from asteroid_mining.maps import checks
from asteroid_mining.maps.checks import (
    Checked,
    _asteroids_in_bulk,
    _check_asteroids_one_by_one,
    _check_links_one_by_one,
    _links_in_bulk,
)
from asteroid_mining.maps.format import belt_to_json
from asteroid_mining.maps.generator import BeltParams, generate_belt


def _doc(positions: bool = True) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(json.dumps(belt_to_json(generate_belt(BeltParams(size=60, density=30.0), seed=3))))
    if not positions:
        for item in doc["asteroids"]:
            item.pop("position", None)
    doc["asteroids"][0]["orbit"] = {"sun": "near"}
    return doc


def _one_by_one(doc: dict[str, Any]) -> Checked:
    out = Checked()
    _check_asteroids_one_by_one(doc["asteroids"], out)
    _check_links_one_by_one(doc["links"], out)
    return out


@pytest.fixture(params=["compiled", "pure"], autouse=True)
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test runs with the links looked up as with either build of the engine (`checks.ENGINE`)."""
    engine: str = request.param
    monkeypatch.setattr(checks, "ENGINE", engine)
    return engine


@pytest.mark.parametrize("positions", [True, False])
def test_valid_arrays_give_the_same_pieces(positions: bool) -> None:
    doc = _doc(positions)
    slow = _one_by_one(doc)
    fast = Checked()
    assert _asteroids_in_bulk(doc["asteroids"], fast)
    assert _links_in_bulk(doc["links"], fast)
    assert not slow.problems and not fast.problems
    assert fast.asteroids == slow.asteroids
    assert fast.names == slow.names and fast.index == slow.index
    assert fast.links == slow.links
    assert fast.taken.keys() == slow.taken.keys()


def _bad_asteroids() -> list[Any]:
    cases: list[Any] = [
        ("id", "a\nb"), ("id", "none"), ("id", "1x"), ("id", "x" * 65), ("id", 7), ("mantle", True),
        ("mantle", -1), ("mantle", 1001), ("core", "gold"), ("core", ["ice"]),
        ("orbit", "6/2"), ("orbit", {"sun": "hot"}), ("position", [1.0, True]), ("position", [1.0]),
        ("position", [1e308 * 10, 0.0]), ("position", [10**400, 0]), ("extra", 1),
    ]
    return cases


@pytest.mark.parametrize(("name", "value"), _bad_asteroids())
def test_bulk_never_accepts_a_wrong_asteroid(name: str, value: Any) -> None:
    doc = _doc()
    doc["asteroids"][5][name] = value
    assert _one_by_one(copy.deepcopy(doc)).problems
    out = Checked()
    assert not _asteroids_in_bulk(doc["asteroids"], out)
    assert out == Checked()  # nothing changed


def test_bulk_never_accepts_a_duplicate_id_or_a_missing_position() -> None:
    doc = _doc()
    doc["asteroids"][4]["id"] = doc["asteroids"][2]["id"]
    assert not _asteroids_in_bulk(doc["asteroids"], Checked())
    doc = _doc()
    del doc["asteroids"][3]["position"]
    assert not _asteroids_in_bulk(doc["asteroids"], Checked())


@pytest.mark.parametrize(
    "link", [["A", "B", "C"], "AB", None, ["A1", "nowhere"], [["x"], "A"], "self", "duplicate", "reversed"]
)
def test_bulk_never_accepts_a_wrong_link(link: Any) -> None:
    doc = _doc()
    first, second = doc["links"][0]
    named = {"self": [first, first], "duplicate": [first, second], "reversed": [second, first]}
    bad = named[link] if isinstance(link, str) and link in named else link
    doc["links"].append(bad)
    assert _one_by_one(copy.deepcopy(doc)).problems
    out = Checked()
    _asteroids_in_bulk(doc["asteroids"], out)
    links = list(out.links)
    assert not _links_in_bulk(doc["links"], out)
    assert out.links == links and not out.problems
