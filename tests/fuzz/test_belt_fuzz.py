"""Belt files under mutation, as `map check` and the server read them: a belt or a BeltError, nothing else; a belt
that loads can be played, written out and read back the same."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson
from hypothesis import given
from hypothesis import strategies as st

from asteroid_mining.maps import BeltError, belt_to_json, parse_belt
from asteroid_mining.maps.format import parse_belt_text
from asteroid_mining.rules import CLASSIC, Game, SetupError

from .conftest import EXAMPLES, LogWatch, fuzz_settings
from .mutations import mutated
from .support import belts

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


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


@fuzz_settings(ci_examples=20)
@given(asteroids=st.integers(2, 40), pairs=st.sampled_from([0, 1, 2, 500, 999, 1_000, 1_001, 2_500]),
       spread=st.booleans(), links=st.integers(0, 300))
def test_belts_near_the_size_bounds(client: TestClient, log_watch: LogWatch, asteroids: int, pairs: int,
                                    spread: bool, links: int) -> None:
    """Belts of many gate pairs (around one asteroid, or spread over all) and links, at and past the server's
    bounds: a game (201) or `422 belt_too_large` naming the bound, never anything else."""
    EXAMPLES["belt: near the bounds"] += 1
    ids = [f"a{i}" for i in range(asteroids)]
    pairs_of_ids = [(ids[i], ids[j]) for i in range(asteroids) for j in range(i + 1, asteroids)][:links]
    gates = [{"first": f"g{k}x", "first_at": ids[k % asteroids if spread else 0],
              "second": f"g{k}y", "second_at": ids[(k + 1) % asteroids if spread else 1]} for k in range(pairs)]
    belt = {"format": "asteroid-mining/belt", "version": 1, "start": "a0",
            "asteroids": [{"id": aid, "mantle": 2, "core": "ice"} for aid in ids],
            "links": [list(p) for p in pairs_of_ids], "gates": gates}
    answer = client.post("/api/games", json={"belt": belt, "seed": 1})
    limit = client.app.state.settings.max_belt_gates  # type: ignore[attr-defined]
    if pairs > limit:
        assert answer.status_code == 422, answer.text
        assert answer.json()["error"]["code"] == "belt_too_large" and f"({limit})" in answer.text
    else:
        assert answer.status_code == 201, answer.text
        EXAMPLES["belt: near the bounds (201)"] += 1
        view = client.get(f"/api/games/{answer.json()['id']}").json()["state"]
        assert len(view["gates"]) == 2 * pairs
    log_watch.check()
