"""`POST /api/games/{id}/hint`: the planner's action for the settler whose step it is, for the seat that plays it,
made from what the players may know (R17)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from asteroid_mining.server.hints import HINT_BURST, Hint

from .helpers import in_process, two_loops_belt, winning_seed

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


def _hidden_belt(a_core: str, b_core: str) -> dict[str, Any]:
    """Home (a shelter) between two asteroids under one layer of rock, nobody has stood on either: the player
    cannot know which of them holds the iron."""
    asteroids = [{"id": "Home", "mantle": 0, "core": "hollow", "orbit": {"sun": "far"}},
                 {"id": "Alpha", "mantle": 1, "core": a_core, "orbit": {"sun": "far"}},
                 {"id": "Beta", "mantle": 1, "core": b_core, "orbit": {"sun": "far"}},
                 {"id": "Gamma", "mantle": 2, "core": "ice", "orbit": {"sun": "far"}}]
    links = [["Home", "Alpha"], ["Home", "Beta"], ["Alpha", "Gamma"], ["Beta", "Gamma"]]
    return {"format": "asteroid-mining/belt", "version": 1, "name": "Hidden", "start": "Home",
            "asteroids": asteroids, "links": links, "gates": []}


def _create(client: TestClient, belt: dict[str, Any], seats: int = 1) -> dict[str, Any]:
    body = {"seats": seats, "settlers_per_seat": 1, "belt": belt, "seed": 3, "options": {"storm_interval": 0}}
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def _hint(client: TestClient, game: dict[str, Any], token: str | None) -> Any:
    return client.post(f"/api/games/{game['id']}/hint", json={"token": token})


def test_a_hint_is_a_legal_action_for_the_seats_settler(client: TestClient) -> None:
    game = _create(client, two_loops_belt())
    token = game["seats"][0]["token"]
    answer = _hint(client, game, token)
    assert answer.status_code == 200, answer.text
    hint = Hint.model_validate(answer.json())
    assert hint.settler == "s1" and hint.seq == 0
    action = answer.json()["action"]
    assert action["actor"] == "s1" and action["type"] in {"move", "mine", "drill", "wait"}
    assert hint.params["here"] == "Home"
    # the rules take it: played over the WebSocket, it is answered by an update, not an error
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={token}") as ws:
        player = in_process(ws)
        assert player.next()["type"] == "state"
        fields = {k: v for k, v in action.items() if k not in {"type", "actor"}}
        player.act("s1", action["type"], **fields)
        update = player.next_of("update")
        assert update["action"] == action


def test_the_same_hint_whatever_a_hidden_core_holds(client: TestClient) -> None:
    """The iron under Alpha or under Beta: the player cannot tell, and neither can the hint."""
    answers = []
    for a_core, b_core in (("iron", "hollow"), ("hollow", "iron"), ("uranium", "carbon")):
        game = _create(client, _hidden_belt(a_core, b_core))
        answer = _hint(client, game, game["seats"][0]["token"])
        assert answer.status_code == 200, answer.text
        answers.append(answer.json())
    assert answers[0] == answers[1] == answers[2]
    assert answers[0]["reason"] == "survey"  # it goes to see, not to the iron it cannot know of


@pytest.mark.parametrize(("token", "status", "code"), [
    (None, 401, "token_required"), ("not-a-token", 403, "bad_token")])
def test_a_hint_needs_the_seats_token(client: TestClient, token: str | None, status: int, code: str) -> None:
    game = _create(client, two_loops_belt())
    answer = _hint(client, game, token)
    assert answer.status_code == status and answer.json()["error"]["code"] == code


def test_a_hint_only_for_the_seat_whose_step_it_is(client: TestClient, two_seats: dict[str, Any]) -> None:
    seat_of_s1 = next(s for s in two_seats["seats"] if "s1" in s["settlers"])
    other = next(s for s in two_seats["seats"] if s is not seat_of_s1)
    answer = _hint(client, two_seats, other["token"])
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "not_your_turn"
    # the token in the Authorization header works as in the body
    bearer = {"Authorization": f"Bearer {seat_of_s1['token']}"}
    answer = client.post(f"/api/games/{two_seats['id']}/hint", headers=bearer)
    assert answer.status_code == 200 and answer.json()["settler"] == "s1"


def test_no_hint_for_a_game_that_does_not_exist(client: TestClient) -> None:
    answer = client.post("/api/games/nope/hint", json={"token": "x"})
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "game_not_found"


def test_a_bad_body_is_named(client: TestClient) -> None:
    game = _create(client, two_loops_belt())
    answer = client.post(f"/api/games/{game['id']}/hint", json={"token": 5})
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "token"


def test_hints_are_rate_limited_per_address(client: TestClient) -> None:
    game = _create(client, two_loops_belt(), seats=1)
    token = game["seats"][0]["token"]
    codes = [_hint(client, game, token).status_code for _ in range(HINT_BURST * 3)]
    assert codes[0] == 200
    assert 429 in codes  # far more than the burst, far faster than the refill
    limited = next(r for r in (_hint(client, game, token) for _ in range(HINT_BURST)) if r.status_code == 429)
    assert limited.json()["error"]["code"] == "rate_limited" and int(limited.headers["retry-after"]) >= 1


def test_winning_seed_belt_hint_after_a_step(client: TestClient) -> None:
    """After a step, the hint is made for the game as it is now (its seq)."""
    body = {"seats": 1, "settlers_per_seat": 2, "belt": two_loops_belt(), "seed": winning_seed()}
    game = client.post("/api/games", json=body).json()
    token = game["seats"][0]["token"]
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={token}") as ws:
        player = in_process(ws)
        assert player.next()["type"] == "state"
        player.act("s1", "move", target="a1")
        player.next_of("update")
        answer = _hint(client, game, token)
        assert answer.status_code == 200, answer.text
        assert answer.json()["settler"] == "s2" and answer.json()["seq"] == 1
