"""A large body creating a game is read first in another process (`server.offload`): one the server refuses for
its belt's size is never parsed in the server's process, and every answer is the one the server gives when it
reads the body itself."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from asteroid_mining.bodies import precheck
from asteroid_mining.server import Settings, create_app
from asteroid_mining.server import limits as limits_module
from asteroid_mining.server.offload import PARSE_APART, BodyChecker


def gates_document(pairs: int, **more: Any) -> dict[str, Any]:
    """A create-game body whose belt has `pairs` gate pairs between its two asteroids."""
    gates = [{"first": f"g{k}x", "first_at": "a0", "second": f"g{k}y", "second_at": "a1"} for k in range(pairs)]
    return {"belt": {"format": "asteroid-mining/belt", "version": 1, "start": "a0",
                     "asteroids": [{"id": "a0"}, {"id": "a1"}], "gates": gates}, **more}


def body_of(document: dict[str, Any]) -> bytes:
    return json.dumps(document).encode()


@pytest.fixture
def parsed_here(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the bodies parsed in the server's own process."""
    sizes: list[int] = []
    parse = limits_module.parse_strict

    def watched(body: bytes) -> tuple[str | None, Any]:
        sizes.append(len(body))
        return parse(body)

    monkeypatch.setattr(limits_module, "parse_strict", watched)
    return sizes


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def post(client: TestClient, body: bytes) -> tuple[int, Any]:
    answer = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    return answer.status_code, answer.json()


def test_a_belt_far_over_the_limits_is_refused_without_being_parsed_here(client: TestClient, settings: Settings,
                                                                         parsed_here: list[int]) -> None:
    body = body_of(gates_document(40_000))
    assert len(body) > PARSE_APART
    status, answer = post(client, body)
    assert status == 422 and answer["error"]["code"] == "belt_too_large" and answer["error"]["field"] == "belt"
    assert answer["error"]["message"] == (f"belt: 40000 gate pairs is more than this server allows "
                                          f"({settings.max_belt_gates})")
    assert parsed_here == []
    assert client.app.state.body_checker._pool is not None  # type: ignore[attr-defined]


@pytest.mark.parametrize("document", [
    gates_document(40_000, seats=0),                 # a field before the belt: its own answer, as ever
    gates_document(40_000, turn_seconds="5"),
    gates_document(40_000, rules="nonsense"),
    gates_document(40_000, difficulty="nightmare"),  # the belt's size is judged before its difficulty
])
def test_every_answer_is_the_one_given_when_the_body_is_read_here(client: TestClient, document: dict[str, Any],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    body = body_of(document)
    apart = post(client, body)
    monkeypatch.setattr(BodyChecker, "wants", lambda self, scope, size: False)
    assert post(client, body) == apart and apart[0] == 422


def test_malformed_json_is_answered_as_before(client: TestClient, parsed_here: list[int],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    body = body_of(gates_document(40_000))[:-2] + b"NaN}"
    apart = post(client, body)
    assert apart[0] == 422 and apart[1]["error"]["message"].startswith("malformed JSON") and parsed_here == []
    monkeypatch.setattr(BodyChecker, "wants", lambda self, scope, size: False)
    assert post(client, body) == apart


def test_a_large_body_the_server_may_play_is_read_here(client: TestClient, parsed_here: list[int]) -> None:
    document = gates_document(2)
    document["belt"]["description"] = "x" * (PARSE_APART + 1)
    status, answer = post(client, body_of(document))
    assert status == 201, answer
    assert parsed_here == [len(body_of(document))]


def test_the_process_stops_with_the_application(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        assert post(client, body_of(gates_document(40_000)))[0] == 422
        checker = client.app.state.body_checker  # type: ignore[attr-defined]
        pool = checker._pool
        processes = list(pool._processes.values())
        assert processes and all(process.is_alive() for process in processes)
    assert checker._pool is None and not any(process.is_alive() for process in processes)


def test_the_precheck_leaves_the_belt_items_out_and_keeps_the_counts() -> None:
    document = gates_document(5, seats=3)
    assert precheck(body_of(document), (10, 10, 10)) is None  # within the limits: read where it is played
    found = precheck(body_of(document), (10, 10, 4))
    assert found is not None and found[0] is None
    stub = found[1]
    assert stub["seats"] == 3 and stub["belt"]["start"] == "a0"
    assert stub["belt"]["gates"] == [None] * 5 and stub["belt"]["asteroids"] == [None, None]
    assert precheck(b"[" * 40 + b"]" * 40, (1, 1, 1)) == ("malformed JSON: nested deeper than 32 levels", None)
