"""Belt files under mutation, as `map check` and the server read them: a belt or a BeltError, nothing else; a belt
that loads can be played, written out and read back the same."""

from __future__ import annotations

import orjson
from hypothesis import given

from asteroid_mining.maps import BeltError, belt_to_json, parse_belt
from asteroid_mining.maps.format import parse_belt_text
from asteroid_mining.rules import CLASSIC, Game, SetupError

from .conftest import EXAMPLES, fuzz_settings
from .mutations import mutated
from .support import belts


@fuzz_settings(ci_examples=200)
@given(text=mutated(belts()))
def test_belt_text(text: str) -> None:
    EXAMPLES["belt: documents"] += 1
    try:
        belt = parse_belt_text(text, source="fuzz.json")
    except BeltError as refused:
        assert refused.problems and all(str(p) for p in refused.problems)
        assert len(str(refused)) < 100_000
        return
    EXAMPLES["belt: documents (valid)"] += 1
    doc = belt_to_json(belt)
    assert parse_belt(orjson.loads(orjson.dumps(doc))) == belt  # encodable, and the same once read back
    try:
        Game.new(belt, CLASSIC, 1, 2)
    except SetupError as refused:  # a belt no game can start on (its start explodes at once): the server's 422
        assert str(refused).startswith("the start asteroid")
