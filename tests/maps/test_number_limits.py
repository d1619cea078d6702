"""Belt files with numbers JSON Schema refuses: `map check` reports each and goes on with the other files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from asteroid_mining.maps import BeltError, load_belt
from asteroid_mining.maps.cli import app
from asteroid_mining.maps.schema import belt_schema

GOOD = {"format": "asteroid-mining/belt", "version": 1, "start": "A",
        "asteroids": [{"id": "A", "orbit": "6/2/0"}, {"id": "B"}], "links": [["A", "B"]]}


def text_with(value: str, where: str = "storm_sector") -> str:
    return json.dumps({**GOOD, where: "@"}).replace('"@"', value)


BAD = {
    "nan.json": text_with("NaN"),
    "inf.json": text_with("Infinity"),
    "huge_float.json": text_with("1e400"),
    "digits.json": text_with("9" * 5000, "storm_interval"),
    "interval.json": text_with("1" + "0" * 30, "storm_interval"),
    "arabic.json": json.dumps({**GOOD, "asteroids": [{"id": "A", "orbit": "٣/1/0"}, {"id": "B"}]}),
    "long_orbit.json": json.dumps({**GOOD, "asteroids": [{"id": "A", "orbit": "1234567/1/0"}, {"id": "B"}]}),
    "mantle.json": json.dumps({**GOOD, "asteroids": [{"id": "A", "mantle": 2**70}, {"id": "B"}]}),
    "surrogate.json": json.dumps({**GOOD, "name": "\ud800"}),  # found by the fuzzer: could not be written again
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_is_refused_with_its_place(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text(BAD[name], encoding="utf-8")
    with pytest.raises(BeltError) as refused:
        load_belt(path)
    assert refused.value.problems and len(str(refused.value)) < 500


def test_map_check_goes_on_after_each(tmp_path: Path) -> None:
    files = []
    for name, text in sorted(BAD.items()):
        (tmp_path / name).write_text(text, encoding="utf-8")
        files.append(str(tmp_path / name))
    (tmp_path / "good.json").write_text(json.dumps(GOOD), encoding="utf-8")
    files.append(str(tmp_path / "good.json"))
    result = CliRunner().invoke(app, ["check", *files])
    assert (result.exit_code == 2 and result.exception is None) or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output and "set_int_max_str_digits" not in result.output
    assert f"{tmp_path / 'good.json'}: ok" in result.stdout
    for name in BAD:
        assert f"{tmp_path / name}: not a valid belt" in result.stderr


def test_the_schema_refuses_what_the_loader_refuses() -> None:
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(belt_schema())
    for name in ("arabic.json", "long_orbit.json", "mantle.json", "interval.json"):
        assert not validator.is_valid(json.loads(BAD[name])), name
    assert validator.is_valid(GOOD)
