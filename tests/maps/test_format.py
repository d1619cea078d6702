"""The belt file format: every kind of problem with its path, exact round trips, the schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asteroid_mining.maps import (
    BeltError,
    Problem,
    belt_problems,
    belt_to_json,
    dumps_belt,
    load_belt,
    parse_belt,
    save_belt,
)
from asteroid_mining.maps.format import parse_belt_text
from asteroid_mining.maps.schema import belt_schema
from asteroid_mining.rules.belt import AsteroidSpec, Belt, GatePairSpec
from asteroid_mining.rules.orbit import Orbit

ROOT = Path(__file__).resolve().parents[2]


def problems(doc: Any) -> list[str]:
    return [str(p) for p in belt_problems(doc)]


def only(doc: Any) -> str:
    found = problems(doc)
    assert len(found) == 1, found
    return found[0]


# ----- a valid belt -----


def test_valid_document_loads(doc: dict[str, Any]) -> None:
    belt = parse_belt(doc)
    assert [a.id for a in belt.asteroids] == ["A", "B", "C"]
    assert belt.asteroids[1] == AsteroidSpec("B", 2, "iron", Orbit(6, 2, 0), "far", (0.0, 10.0))
    assert belt.asteroids[2].orbit is None and belt.asteroids[2].sun == "near"
    assert belt.links == (("A", "B"), ("B", "C"))
    assert belt.gates == (GatePairSpec("g1", "A", "g2", "C"),)
    assert (belt.start, belt.name, belt.storm_sector) == ("A", "Three", 30.0)


def test_defaults_follow_the_scenario_language() -> None:
    belt = parse_belt({"format": "asteroid-mining/belt", "version": 1, "start": "A", "asteroids": [{"id": "A"}]})
    assert belt.asteroids[0] == AsteroidSpec("A", 3, "hollow", None, "far", None)
    assert (belt.links, belt.gates, belt.name, belt.description, belt.storm_sector) == ((), (), "", "", 30.0)


def test_round_trip_is_exact(doc: dict[str, Any], tmp_path: Path, standard: Belt) -> None:
    for belt in (parse_belt(doc), standard):
        path = tmp_path / "belt.json"
        save_belt(belt, path)
        again = load_belt(path)
        assert again == belt
        assert belt_to_json(again) == belt_to_json(belt)
        assert path.read_text(encoding="utf-8") == dumps_belt(belt)


def test_written_text_is_one_item_a_line(doc: dict[str, Any]) -> None:
    text = dumps_belt(parse_belt(doc))
    assert '    {"id": "B", "mantle": 2, "core": "iron", "orbit": "6/2/0", "position": [0.0, 10.0]},' in text
    assert '    ["A", "B"],' in text
    assert json.loads(text) == belt_to_json(parse_belt(doc))


def test_load_accepts_text_and_paths(doc: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert load_belt(json.dumps(doc)) == load_belt(path) == load_belt(str(path))


def test_save_refuses_an_invalid_belt(tmp_path: Path) -> None:
    bad = Belt(asteroids=(AsteroidSpec("A"),), links=(("A", "Z"),), start="A")
    with pytest.raises(BeltError) as caught:
        save_belt(bad, tmp_path / "bad.json")
    assert [str(p) for p in caught.value.problems] == ["links[0][1]: 'Z' is not an asteroid of this belt"]
    assert not list(tmp_path.iterdir())


# ----- every kind of problem, with its path -----


def test_not_a_material(doc: dict[str, Any]) -> None:
    doc["asteroids"][1]["core"] = "gold"
    assert only(doc).startswith("asteroids[1].core: 'gold' is not a material")


def test_dangling_and_self_links(doc: dict[str, Any]) -> None:
    doc["links"] += [["A", "Q"], ["C", "C"], ["g1", "A"]]
    assert problems(doc) == [
        "links[2][1]: 'Q' is not an asteroid of this belt",
        "links[3]: links 'C' to itself (no asteroid neighbours itself, R2)",
        "links[4][0]: 'g1' is a gate, not an asteroid",
    ]


def test_duplicate_links_either_way(doc: dict[str, Any]) -> None:
    doc["links"] += [["B", "A"], ["B", "C"]]
    assert problems(doc) == [
        "links[2]: duplicate link: B–A is already links[0]",
        "links[3]: duplicate link: B–C is already links[1]",
    ]


def test_duplicate_ids_across_asteroids_and_gates(doc: dict[str, Any]) -> None:
    doc["asteroids"].append({"id": "B", "position": [1, 1]})
    doc["gates"][0]["second"] = "C"
    assert problems(doc) == [
        "asteroids[3].id: duplicate id 'B' (already asteroids[1].id)",
        "gates[0].second: duplicate id 'C' (already asteroids[2].id)",
    ]


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("1A", "'1A' is not a valid id (a letter, then letters, digits, '_' or '-')"),
        ("A B", "'A B' is not a valid id (a letter, then letters, digits, '_' or '-')"),
        ("A\n", "'A\\n' is not a valid id (a letter, then letters, digits, '_' or '-')"),
        ("", "'' is not a valid id (a letter, then letters, digits, '_' or '-')"),
        ("none", "'none' is reserved and cannot be an id"),
        ("game", "'game' is reserved and cannot be an id"),
        ("true", "'true' is reserved and cannot be an id"),
        ("false", "'false' is reserved and cannot be an id"),
        (7, "an id must be a string, not a whole number"),
        ("A" * 65, "id 'AAAAAAAAAAAAAAAAAAAA'... is too long (at most 64 characters)"),
    ],
)
def test_bad_ids(doc: dict[str, Any], bad: object, message: str) -> None:
    doc["asteroids"].append({"id": bad, "position": [1, 1]})
    assert only(doc) == f"asteroids[3].id: {message}"


def test_good_id_forms(doc: dict[str, Any]) -> None:
    for good in ("a", "Z9", "a_b-c", "None", "A" * 64):
        doc["asteroids"].append({"id": good, "position": [1, 1]})
    assert problems(doc) == []


NOT_AN_ORBIT = 'an orbit must be "P/K/F" or {"sun": "near"} or {"sun": "far"}, not '


@pytest.mark.parametrize(
    ("orbit", "message"),
    [
        ("6/7/0", "orbit near-window must be between 0 and 6, not 7"),
        ("0/0/0", "orbit period must be at least 1, not 0"),
        ("6/2/6", "orbit phase must be between 0 and 5, not 6"),
        ("6/2", "orbit must be P/K/F with whole numbers, not '6/2'"),
        ("6/-1/0", "orbit must be P/K/F with whole numbers, not '6/-1/0'"),
        ({"sun": "hot"}, NOT_AN_ORBIT + '{"sun": "hot"}'),
        ({"sun": "far", "x": 1}, NOT_AN_ORBIT + '{"sun": "far", "x": 1}'),
        (6, NOT_AN_ORBIT + "6"),
    ],
)
def test_orbits_out_of_range(doc: dict[str, Any], orbit: object, message: str) -> None:
    doc["asteroids"][1]["orbit"] = orbit
    assert only(doc) == f"asteroids[1].orbit: {message}"


def test_a_whole_number_written_as_a_decimal_is_a_whole_number(doc: dict[str, Any]) -> None:
    doc["asteroids"][0]["mantle"] = 2.0
    assert parse_belt(doc).asteroids[0].mantle == 2
    assert isinstance(parse_belt(doc).asteroids[0].mantle, int)


@pytest.mark.parametrize("mantle", [-1, 1.5, -1.0, True, "2", None])
def test_bad_mantles(doc: dict[str, Any], mantle: object) -> None:
    doc["asteroids"][0]["mantle"] = mantle
    assert only(doc).startswith("asteroids[0].mantle: the mantle must be a whole number of layers")


@pytest.mark.parametrize("position", [[1.0], [1, 2, 3], ["1", 2], [True, 0], [float("nan"), 0], "1,2", None])
def test_bad_positions(doc: dict[str, Any], position: object) -> None:
    doc["asteroids"][0]["position"] = position
    assert only(doc) == "asteroids[0].position: a position must be [x, y], two finite numbers"


def test_positions_all_or_none(doc: dict[str, Any]) -> None:
    del doc["asteroids"][1]["position"]
    assert only(doc).startswith("asteroids[1].position: missing: either every asteroid has a position or none")
    for a in doc["asteroids"][1:]:
        a.pop("position", None)
    assert only(doc).startswith("asteroids[0].position: given: either every asteroid has a position or none")


def test_asteroid_structure(doc: dict[str, Any]) -> None:
    doc["asteroids"] += [5, {"mantle": 1, "colour": "red", "position": [1, 1]}]
    assert problems(doc) == [
        "asteroids[3]: an asteroid must be an object, not a whole number",
        "asteroids[4].colour: unknown field",
        "asteroids[4].id: missing (this field is required)",
    ]


def test_link_structure(doc: dict[str, Any]) -> None:
    doc["links"] += [["A"], "A-B", ["A", "B", "C"], [1, "B"]]
    assert problems(doc) == [
        "links[2]: a link must be a pair of asteroid ids, [a, b]",
        "links[3]: a link must be a pair of asteroid ids, [a, b]",
        "links[4]: a link must be a pair of asteroid ids, [a, b]",
        "links[5][0]: an id must be a string, not a whole number",
    ]


def test_gate_problems(doc: dict[str, Any]) -> None:
    doc["gates"] += [
        {"first": "g3", "first_at": "B", "second": "g4", "second_at": "B"},
        {"first": "g5", "first_at": "Nowhere", "second": "g1", "second_at": "A"},
        {"first": "g6", "first_at": "A"},
        "gate",
    ]
    assert problems(doc) == [
        "gates[1]: both gates of a pair orbit 'B' (they must orbit two different asteroids)",
        "gates[2].first_at: 'Nowhere' is not an asteroid of this belt",
        "gates[2].second: duplicate id 'g1' (already gates[0].first)",
        "gates[3].second: missing (this field is required)",
        "gates[3].second_at: missing (this field is required)",
        "gates[4]: must be an object, not a string",
    ]


def test_top_level_problems(doc: dict[str, Any]) -> None:
    doc["storm_sector"] = 0
    doc["name"] = 3
    doc["colour"] = "red"
    doc["start"] = "Q"
    del doc["links"]
    assert problems(doc) == [
        "name: must be a string, not a whole number",
        "start: 'Q' is not an asteroid of this belt",
        "storm_sector: must be more than 0, not 0",
        "colour: unknown field",
    ]


def test_missing_fields() -> None:
    assert problems({"format": "asteroid-mining/belt", "version": 1}) == [
        "start: missing (this field is required)",
        "asteroids: missing (this field is required)",
    ]


def test_empty_belt(doc: dict[str, Any]) -> None:
    doc["asteroids"], doc["links"], doc["gates"] = [], [], []
    assert problems(doc) == ["start: 'A' is not an asteroid of this belt", "asteroids: must not be empty"]


def test_wrong_format_or_a_future_version(doc: dict[str, Any]) -> None:
    doc["format"] = "asteroid-mining/game"
    assert problems(doc) == [
        'format: "asteroid-mining/game" is not "asteroid-mining/belt": this is not an Asteroid Mining belt file'
    ]
    doc["format"] = "asteroid-mining/belt"
    doc["version"] = 2
    doc["asteroids"] = "anything: a newer format is not read further"
    assert problems(doc) == [
        "version: this belt uses format version 2, newer than this game reads (1); update the game to open it"
    ]
    for wrong in (0, "1", True, 1.5):
        doc["version"] = wrong
        doc["asteroids"] = VALID_ASTEROIDS
        assert problems(doc) == [f"version: must be 1, not {json.dumps(wrong)}"]


VALID_ASTEROIDS = [{"id": "A"}, {"id": "B"}, {"id": "C"}]


def test_not_an_object() -> None:
    assert problems([1, 2]) == ["a belt must be a JSON object, not an array"]
    assert problems({}) == ["format: missing: this is not an Asteroid Mining belt file"]


def test_malformed_json_gives_line_and_column() -> None:
    with pytest.raises(BeltError) as caught:
        parse_belt_text('{\n  "format": "asteroid-mining/belt",\n  "version": 1\n  "start": "A"\n}')
    assert caught.value.problems == [Problem("4:3", "malformed JSON: Expecting ',' delimiter")]


def test_every_problem_at_once(doc: dict[str, Any]) -> None:
    doc["asteroids"][1]["core"] = "gold"
    doc["asteroids"][2]["orbit"] = "1/2/3"
    doc["links"].append(["A", "A"])
    doc["start"] = "none"
    with pytest.raises(BeltError) as caught:
        parse_belt(doc, source="x.json")
    error = caught.value
    assert len(error.problems) == 4
    assert str(error).splitlines()[0] == "4 problems in x.json:"
    assert error.lines("x.json")[0] == "x.json: start: 'none' is reserved and cannot be an id"
    assert error.code == "belt_invalid"


def test_file_problems(tmp_path: Path) -> None:
    with pytest.raises(BeltError) as caught:
        load_belt(tmp_path / "missing.json")
    assert [str(p) for p in caught.value.problems] == ["no such file"]
    with pytest.raises(BeltError) as caught:
        load_belt(tmp_path)
    assert [str(p) for p in caught.value.problems] == ["is a directory, not a belt file"]
    binary = tmp_path / "b.json"
    binary.write_bytes(b'{"name": "\xff"}')
    with pytest.raises(BeltError) as caught:
        load_belt(binary)
    assert str(caught.value.problems[0]).startswith("not UTF-8 text")


# ----- the schema -----


def test_docs_copy_of_the_schema_is_the_shipped_one() -> None:
    docs = json.loads((ROOT / "docs" / "belt.schema.json").read_text(encoding="utf-8"))
    assert docs == belt_schema()


def test_valid_documents_pass_the_full_schema(doc: dict[str, Any], standard: Belt) -> None:
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(belt_schema())
    Draft202012Validator.check_schema(belt_schema())
    assert list(validator.iter_errors(doc)) == []
    assert list(validator.iter_errors(belt_to_json(standard))) == []


ids = st.one_of(
    st.sampled_from(["A", "b7", "x_-y", "none", "true", "1a", "", "a b", "Ä", "A" * 65]),
    st.text(alphabet="aZ0_- ", max_size=6),
    st.integers(),
)
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.floats(allow_nan=False), st.text(max_size=4))
asteroid_items = st.fixed_dictionaries(
    {"id": ids},
    optional={
        "mantle": st.one_of(st.integers(-2, 9), scalars),
        "core": st.one_of(st.sampled_from(["ice", "iron", "carbon", "uranium", "hollow", "gold"]), scalars),
        "orbit": st.one_of(
            st.sampled_from(["6/2/1", "6/7/0", "1/0/0", "x", {"sun": "near"}, {"sun": "far"}, {"sun": "hot"}]),
            scalars,
        ),
        "position": st.one_of(
            st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), min_size=2, max_size=2), scalars
        ),
        "extra": scalars,
    },
)


@settings(max_examples=300, deadline=None)
@given(asteroid_items)
def test_hand_checks_agree_with_the_full_schema_on_asteroids(item: dict[str, Any]) -> None:
    """The loader checks asteroids by hand for speed; where the schema can judge, it judges alike.

    Orbit ranges (K ≤ P, F < P) are beyond a schema, so they are left out of the comparison.
    """
    from jsonschema import Draft202012Validator

    if isinstance(item.get("orbit"), str) and item["orbit"] not in ("6/2/1", "x"):
        return
    validator = Draft202012Validator(belt_schema())
    first: dict[str, Any] = {"id": "S", "position": [0, 0]} if "position" in item else {"id": "S"}
    doc = {"format": "asteroid-mining/belt", "version": 1, "start": "S", "asteroids": [first, item]}
    schema_ok = not list(validator.iter_errors(doc))
    hand_ok = not [p for p in belt_problems(doc) if p.path.startswith("asteroids[1]")]
    if item.get("id") == "S":
        return  # a duplicate: beyond the schema
    assert schema_ok == hand_ok, (item, belt_problems(doc))


gate_items = st.one_of(
    scalars,
    st.fixed_dictionaries(
        {},
        optional={"first": ids, "first_at": st.sampled_from(["S", "T", "none", 7]), "second": ids,
                  "second_at": st.sampled_from(["S", "T", "", None]), "extra": scalars},
    ),
)


@settings(max_examples=300, deadline=None)
@given(gate_items)
def test_hand_checks_agree_with_the_full_schema_on_gates(item: Any) -> None:
    """The loader checks gate pairs by hand (jsonschema took half a millisecond a pair); where the schema can
    judge, it judges alike, and every problem is named at the pair's path."""
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(belt_schema())
    doc = {"format": "asteroid-mining/belt", "version": 1, "start": "S", "asteroids": [{"id": "S"}, {"id": "T"}],
           "links": [["S", "T"]], "gates": [item]}
    schema_ok = not list(validator.iter_errors(doc))
    hand = [p for p in belt_problems(doc) if p.path.startswith("gates[0]")]
    beyond_schema = isinstance(item, dict) and (
        item.get("first_at") == item.get("second_at") or item.get("first") == item.get("second")
        or {item.get("first"), item.get("second")} & {"S", "T"}
        or (item.get("first_at") == 7 or item.get("second_at") in ("", None)))
    if not beyond_schema:  # duplicates, the pair's own ends and unknown asteroids are the hand check's alone
        assert schema_ok == (not hand), (item, hand)
    if not schema_ok:
        assert hand, item


@pytest.mark.parametrize(
    ("field", "text", "message"),
    [
        ("name", "\u202eevil", "name: must not hold control characters nor characters that change the direction "
                               "of text (U+202E at character 1)"),
        ("name", "a\x00b", "name: must not hold control characters nor characters that change the direction of "
                           "text (U+0000 at character 2)"),
        ("name", "two\nlines", "name: must not hold control characters nor characters that change the direction "
                               "of text (U+000A at character 4)"),
        ("name", "ends\n", "name: must not hold control characters nor characters that change the direction of "
                           "text (U+000A at character 5)"),
        ("description", "story\u2067isolated", "description: must not hold control characters nor characters "
                                               "that change the direction of text (U+2067 at character 6)"),
    ],
)
def test_names_that_would_disguise_themselves_are_refused(doc: dict[str, Any], field: str, text: str,
                                                          message: str) -> None:
    """A belt's name is listed in the lobby beside other players' games: a right-to-left override (U+202E) or a
    NUL in it was stored and listed, so one game's name could pass for another's, or turn the text after it."""
    doc[field] = text
    assert only(doc) == message


def test_names_in_any_script_and_descriptions_of_lines_are_taken(doc: dict[str, Any]) -> None:
    doc["name"] = "Kisbolygóöv — Пояс — 小惑星帯 — حزام"
    doc["description"] = "First line.\n\tSecond line, indented.\r\n"
    assert problems(doc) == []
    assert parse_belt(doc).name == doc["name"]
