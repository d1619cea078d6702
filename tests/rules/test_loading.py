"""`Game.from_json` reads the big parts of a saved game at once; it must agree with the reading one element at a
time (`state_from_json(doc, at_once=False)`) on every document: the same game, or the same error at the same
place."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asteroid_mining.rules import Game, GameFormatError, Options, Orbit
from asteroid_mining.rules.serialize import state_from_json

from .strategies import belts

Outcome = tuple[str, Any, Any]


def outcome(doc: Any, at_once: bool) -> Outcome:
    """The game read back as JSON, or the error's path and reason."""
    try:
        state = state_from_json(copy.deepcopy(doc), at_once=at_once)
    except GameFormatError as error:
        return "error", error.path, error.reason
    return "game", Game(state).to_json(), None


def agree(doc: Any) -> Outcome:
    at_once = outcome(doc, True)
    assert at_once == outcome(doc, False)
    return at_once


def full_game() -> dict[str, Any]:
    """A saved game with every kind of thing: positions, orbits, pins, settlers, robots, a UFO, gates."""
    game = Game.empty(Options(turns="free"), seed=3)
    game.add_asteroid("A", mantle=0, position=(1.0, 0.0))
    game.add_asteroid("B", mantle=2, core="iron", sun="near", position=(0.0, 1.0))
    game.add_asteroid("C", mantle=1, core="ice", orbit=Orbit(6, 2, 0), position=(-1.0, 0.0))
    game.add_asteroid("D", mantle=3, core="carbon", position=(0.0, -1.0))
    game.link("A", "B", "C")
    game.link("C", "D")
    game.add_settler("s1", "A", {"iron": 1})
    game.add_robot("r1", "B")
    game.add_ufo("u1", "C")
    game.add_gates("g1", "A", "g2", "s1")
    game.add_gates("g3", "A", "g4", "D")
    game.forecast(3, ["C", "D"])
    doc: dict[str, Any] = json.loads(json.dumps(game.to_json()))
    return doc


def test_a_sound_document_reads_the_same_both_ways() -> None:
    doc = full_game()
    kind, again, _ = agree(doc)
    assert kind == "game" and again == doc


def _set(where: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
    def damage(doc: dict[str, Any]) -> None:
        target: Any = doc
        for step in where[:-1]:
            target = target[step]
        target[where[-1]] = value
    return damage


DAMAGES: list[tuple[Callable[[dict[str, Any]], None], str]] = [
    (_set(["asteroids", 1, "id"], "A"), "asteroids[1].id"),
    (_set(["asteroids", 1, "id"], "9x"), "asteroids[1].id"),
    (_set(["asteroids", 1, "id"], "game"), "asteroids[1].id"),
    (_set(["asteroids", 1, "id"], "B\nC"), "asteroids[1].id"),
    (_set(["asteroids", 1, "id"], 7), "asteroids[1].id"),
    (_set(["asteroids", 2, "mantle"], True), "asteroids[2].mantle"),
    (_set(["asteroids", 2, "mantle"], 1.0), "asteroids[2].mantle"),
    (_set(["asteroids", 2, "exposures"], None), "asteroids[2].exposures"),
    (_set(["asteroids", 2, "exists"], 1), "asteroids[2].exists"),
    (_set(["asteroids", 2, "surveyed"], "yes"), "asteroids[2].surveyed"),
    (_set(["asteroids", 2, "core"], ["ice"]), "asteroids[2].core"),
    (_set(["asteroids", 2, "pinned"], "near"), "asteroids[2].pinned"),
    (_set(["asteroids", 1, "pinned"], None), "asteroids[1].pinned"),
    (_set(["asteroids", 1, "pinned"], 3), "asteroids[1].pinned"),
    (_set(["asteroids", 2, "orbit"], "4/1"), "asteroids[2].orbit"),
    (_set(["asteroids", 2, "orbit"], 4), "asteroids[2].orbit"),
    (_set(["asteroids", 3, "position"], [1, 2, 3]), "asteroids[3].position"),
    (_set(["asteroids", 3, "position"], [1, True]), "asteroids[3].position"),
    (_set(["asteroids", 3, "position"], [10**400, 0]), "asteroids[3].position"),
    (_set(["asteroids", 3], ["D"]), "asteroids[3]"),
    (_set(["asteroids", 0, "neighbours"], ["B", "C", "B"]), "asteroids[0].neighbours[2]"),
    (_set(["asteroids", 0, "neighbours"], ["B", "A"]), "asteroids[0].neighbours[1]"),
    (_set(["asteroids", 0, "neighbours"], ["B", "C", "D"]), "asteroids[0].neighbours"),
    (_set(["asteroids", 0, "neighbours"], ["B"]), "asteroids[2].neighbours"),
    (_set(["asteroids", 0, "neighbours"], ["B", ["C"]]), "asteroids[0].neighbours[1]"),
    (_set(["asteroids", 0, "neighbours"], ["B", 3]), "asteroids[0].neighbours[1]"),
    (_set(["asteroids", 0, "neighbours"], ["B", "s1"]), "asteroids[0].neighbours[1]"),
    (_set(["asteroids", 0, "neighbours"], "BC"), "asteroids[0].neighbours"),
    (_set(["settlers", 0, "id"], "D"), "settlers[0].id"),
    (_set(["order", 0], "s"), "order[4]"),
    (_set(["order", 0], 1), "order[0]"),
    (_set(["order"], []), "order"),
    (_set(["history"], [{"type": "move"}, 3]), "history[1]"),
]


@pytest.mark.parametrize(("damage", "path"), DAMAGES)
def test_a_damaged_document_gives_the_same_error_both_ways(
    damage: Callable[[dict[str, Any]], None], path: str
) -> None:
    doc = full_game()
    damage(doc)
    kind, where, _ = agree(doc)
    assert (kind, where) == ("error", path)


def test_a_position_beyond_floats_is_an_error_not_a_crash() -> None:
    doc = full_game()
    doc["asteroids"][3]["position"] = [10**400, 0]
    with pytest.raises(GameFormatError, match="must be"):
        Game.from_json(doc)


VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-2, 3), st.floats(allow_nan=False), st.sampled_from("ABCDEs1g1xy"),
    st.sampled_from(["near", "far", "6/2/0", "0/0/0", "game", "ice", "a b"]),
    st.lists(st.sampled_from("ABCD"), max_size=4), st.just({}),
)
"""Replacement values: wrong types, other ids, valid-looking and invalid values."""


@st.composite
def damaged(draw: st.DrawFn) -> dict[str, Any]:
    """A saved game from a random belt with one to three fields of its asteroids or its order replaced."""
    belt = draw(belts(min_size=3, max_size=8))
    game = Game.new(belt, Options(ufos=1), seed=draw(st.integers(0, 99)), settlers=2)
    doc: dict[str, Any] = json.loads(json.dumps(game.to_json()))
    for _ in range(draw(st.integers(1, 3))):
        part = draw(st.sampled_from(("field", "neighbour", "order", "drop")))
        asteroid = draw(st.sampled_from(doc["asteroids"]))
        if part == "field":
            asteroid[draw(st.sampled_from(sorted(asteroid) or ["id"]))] = draw(VALUES)
        elif part == "neighbour" and isinstance(asteroid.get("neighbours"), list) and asteroid["neighbours"]:
            neighbours = asteroid["neighbours"]
            neighbours[draw(st.integers(0, len(neighbours) - 1))] = draw(VALUES)
        elif part == "order":
            doc["order"][draw(st.integers(0, len(doc["order"]) - 1))] = draw(st.sampled_from("asrugx"))
        elif asteroid:
            asteroid.pop(draw(st.sampled_from(sorted(asteroid))))
    return doc


@settings(max_examples=300, deadline=None)
@given(damaged())
def test_any_damage_gives_the_same_outcome_both_ways(doc: dict[str, Any]) -> None:
    agree(doc)


def test_pairs_resolve_to_the_names_themselves_or_not_at_all() -> None:
    from asteroid_mining.rules.bulk import resolve_pairs

    names = ["ab", "bc", "cd"]
    index = {name: n for n, name in enumerate(names)}
    copies = [["".join(["b", "c"]), "".join(["a", "b"])], ["ab", "cd"]]  # equal to the names, not the names
    assert copies[0][0] is not names[1]
    resolved = resolve_pairs(copies, index, names)
    assert resolved is not None
    pairs, keys = resolved
    assert pairs == [("bc", "ab"), ("ab", "cd")] and keys == [1, 2]
    assert pairs[0][0] is names[1] and pairs[0][1] is names[0]
    for bad in (["ab", "ab"], ["ab", "zz"], ["ab"], ("ab", "bc"), ["ab", 1], "ab", None, ["ab", "bc", "cd"]):
        assert resolve_pairs([["ab", "bc"], bad], index, names) is None
