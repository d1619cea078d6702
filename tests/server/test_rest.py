"""The REST API: health, creating games, the lobby, a game's view and log, errors, static files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from asteroid_mining.maps import load_shipped, parse_belt
from asteroid_mining.rules import CLASSIC, EXTENDED, Game, action_from_json
from asteroid_mining.server.diff import with_sun

from .helpers import stored_log, two_loops_belt

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

    from asteroid_mining.server import Settings


def test_health(client: TestClient) -> None:
    answer = client.get("/api/health")
    assert answer.status_code == 200 and answer.json() == {"status": "ok"}


def test_create_with_defaults(client: TestClient) -> None:
    answer = client.post("/api/games", json={})
    assert answer.status_code == 201
    game = answer.json()
    assert set(game) == {"id", "seats", "watch"}
    [seat] = game["seats"]
    assert seat["seat"] == 1 and seat["kind"] == "human" and seat["settlers"] == ["s1", "s2", "s3"]
    assert len(seat["token"]) >= 32
    assert seat["invite"] == f"http://testserver/#/game/{game['id']}?seat=1&token={seat['token']}"
    assert game["watch"] == f"http://testserver/#/watch/{game['id']}"
    assert answer.headers["cache-control"] == "no-store"  # tokens and links: kept by no cache
    detail = client.get(f"/api/games/{game['id']}").json()
    assert detail["status"] == "open" and detail["seq"] == 0 and detail["round"] == 1 and detail["turn"] == "s1"
    assert detail["rules"] == "classic" and detail["belt"] == "tutorial"
    belt = load_shipped("tutorial")
    assert {a["id"] for a in detail["state"]["asteroids"]} == {a.id for a in belt.asteroids}


def test_seats_take_turns(client: TestClient) -> None:
    game = client.post("/api/games", json={"seats": 3, "settlers_per_seat": 2, "rules": "extended",
                                           "seed": 5, "belt": "small"}).json()
    assert [s["settlers"] for s in game["seats"]] == [["s1", "s4"], ["s2", "s5"], ["s3", "s6"]]
    assert len({s["token"] for s in game["seats"]}) == 3
    detail = client.get(f"/api/games/{game['id']}").json()
    assert detail["rules"] == "extended" and detail["asteroids"] == 80
    assert detail["state"]["options"] == EXTENDED.to_json()


def test_options_over_the_preset(client: TestClient) -> None:
    body = {"rules": "extended", "options": {"storm_interval": 3, "haywire_gates": False, "ufos": 0}, "seed": 1}
    game = client.post("/api/games", json=body).json()
    options = client.get(f"/api/games/{game['id']}").json()["state"]["options"]
    assert options == {**EXTENDED.to_json(), "storm_interval": 3, "haywire_gates": False, "ufos": 0}
    assert stored_log(client, game["id"])["options"] == options


@pytest.mark.parametrize(("options", "field"), [
    ({"turns": "free"}, "options.turns"),
    ({"turns": 1}, "options.turns"),
    ({"gravity": 2}, "options.gravity"),
    ({"uranium_fuse": 0}, "options.uranium_fuse"),
    ({"ufos": 100_000}, "options.ufos"),
    ({"storm_interval": "often"}, "options.storm_interval"),
    ({"haywire_gates": 1}, "options.haywire_gates"),
])
def test_bad_options_name_the_option(client: TestClient, options: dict[str, Any], field: str) -> None:
    answer = client.post("/api/games", json={"options": options})
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["field"] == field


def test_the_replay_is_what_the_players_saw(client: TestClient, two_seats: dict[str, Any]) -> None:
    seen = []
    with client.websocket_connect(f"/api/games/{two_seats['id']}/ws?token={two_seats['seats'][0]['token']}") as one, \
            client.websocket_connect(f"/api/games/{two_seats['id']}/ws?token={two_seats['seats'][1]['token']}") as two:
        first = one.receive_json()["state"]
        two.receive_json()
        for session, settler, target in ((one, "s1", "a1"), (two, "s2", "b1"), (one, "s1", None)):
            act = {"type": "act", "settler": settler, "action": "move" if target else "mine"}
            session.send_json({**act, "target": target} if target else act)
            seen.append(one.receive_json())
            two.receive_json()
    replay = client.get(f"/api/games/{two_seats['id']}/replay").json()
    assert replay["state"] == first and replay["seq"] == 3
    assert replay["steps"] == [{k: u[k] for k in ("seq", "action", "by", "events", "diff")} for u in seen]
    assert client.get("/api/games/nope/replay").status_code == 404


def test_the_view_is_the_engines(client: TestClient) -> None:
    game = client.post("/api/games", json={"seed": 3, "belt": "puzzle-gates", "settlers_per_seat": 2}).json()
    detail = client.get(f"/api/games/{game['id']}").json()
    assert with_sun(detail["state"]) == Game.new(load_shipped("puzzle-gates"), CLASSIC, 3, 2).view()


def test_the_lobby_hides_tokens(client: TestClient) -> None:
    games = [client.post("/api/games", json={"seats": 2}).json() for _ in range(3)]
    text = client.get("/api/games").text
    for game in games:
        for seat in game["seats"]:
            assert seat["token"] not in text
        assert game["id"] in text
    lobby = json.loads(text)["games"]
    assert [g["id"] for g in lobby] == [g["id"] for g in reversed(games)]  # newest first
    assert all("token" not in seat for g in lobby for seat in g["seats"])
    for game in games:
        for path in (f"/api/games/{game['id']}", f"/api/games/{game['id']}/log"):
            body = client.get(path).text
            assert all(seat["token"] not in body for seat in game["seats"])


def test_the_log_replays(client: TestClient, two_seats: dict[str, Any]) -> None:
    with client.websocket_connect(f"/api/games/{two_seats['id']}/ws?token={two_seats['seats'][0]['token']}") as ws:
        ws.receive_json()
        ws.send_json({"type": "act", "settler": "s1", "action": "move", "target": "a1"})
        assert ws.receive_json()["seq"] == 1
    view = client.get(f"/api/games/{two_seats['id']}").json()["state"]
    assert client.get(f"/api/games/{two_seats['id']}/log").json()["error"]["code"] == "game_running"
    client.post(f"/api/games/{two_seats['id']}/abandon", json={"token": two_seats["seats"][0]["token"]})
    log = client.get(f"/api/games/{two_seats['id']}/log").json()  # public once the game has ended
    assert log["seed"] == two_seats_seed(client, two_seats) and log["settlers"] == 2
    assert log["commands"][0]["action"] == {"type": "move", "actor": "s1", "target": "a1"}
    assert log["commands"][0]["by"] == {"seat": 1}
    game = Game.replay(parse_belt(log["belt"]), CLASSIC, log["seed"], log["settlers"],
                       [c["action"] for c in log["commands"]])
    assert game.view() == with_sun(view)
    assert action_from_json(log["commands"][0]["action"]).actor == "s1"


def two_seats_seed(client: TestClient, game: dict[str, Any]) -> int:
    return int(stored_log(client, game["id"])["seed"])


@pytest.mark.parametrize(("body", "field"), [
    ({"seats": 0}, "seats"),
    ({"seats": "two"}, "seats"),
    ({"settlers_per_seat": 99}, "settlers_per_seat"),
    ({"rules": "brutal"}, "rules"),
    ({"seed": -1}, "seed"),
    ({"turn_seconds": 0}, "turn_seconds"),
    ({"belt": "nowhere"}, "belt"),
    ({"belt": {"format": "asteroid-mining/belt", "version": 1}}, "belt"),
    ({"colour": "red"}, "colour"),
    ({"bots": {"9": "planner"}}, "bots.9"),
    ({"bots": {"2": "planner"}}, "bots.2"),
])
def test_bad_requests_name_the_field(client: TestClient, body: dict[str, Any], field: str) -> None:
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["field"] == field and error["code"] in ("invalid", "bots_unavailable") and error["message"]


def test_a_bad_belt_says_where(client: TestClient) -> None:
    belt = two_loops_belt()
    belt["asteroids"][1]["core"] = "gold"
    error = client.post("/api/games", json={"belt": belt}).json()["error"]
    assert error["field"] == "belt" and "asteroids[1].core" in error["message"]


def test_malformed_json_body(client: TestClient) -> None:
    answer = client.post("/api/games", content=b"{", headers={"content-type": "application/json"})
    assert answer.status_code == 422 and answer.json()["error"]["message"].startswith("malformed JSON")


def test_belt_size_limit(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from asteroid_mining.server import Settings, create_app

    with TestClient(create_app(Settings(data_dir=tmp_path, max_belt_asteroids=20))) as client:
        error = client.post("/api/games", json={"belt": "tutorial"}).json()["error"]
        assert error["code"] == "belt_too_large" and error["field"] == "belt"
        assert client.post("/api/games", json={"belt": two_loops_belt()}).status_code == 201


def test_request_size_limit(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from asteroid_mining.server import Settings, create_app

    with TestClient(create_app(Settings(data_dir=tmp_path, max_request_bytes=1000))) as client:
        answer = client.post("/api/games", json={"belt": two_loops_belt(), "pad": "x" * 2000})
        assert answer.status_code == 413 and answer.json()["error"]["code"] == "too_large"


def test_games_per_client(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from asteroid_mining.server import Settings, create_app

    with TestClient(create_app(Settings(data_dir=tmp_path, max_games_per_client=2))) as client:
        assert [client.post("/api/games", json={}).status_code for _ in range(2)] == [201, 201]
        answer = client.post("/api/games", json={})
        assert answer.status_code == 429 and answer.json()["error"]["code"] == "too_many_games"


def test_not_found_is_json(client: TestClient) -> None:
    for path in ("/api/games/nope", "/api/games/nope/log", "/api/nothing", "/favicon.ico"):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert answer.json()["error"]["code"] in ("game_not_found", "not_found")
    answer = client.delete("/api/games")
    assert answer.status_code == 405 and answer.json()["error"]["code"] == "method_not_allowed"


def test_openapi_docs(client: TestClient) -> None:
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    assert {"/api/health", "/api/games", "/api/games/{game_id}", "/api/games/{game_id}/log"} <= set(paths)


def test_the_page_before_the_client_is_built(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "not been built" in page.text and "make play" in page.text


def test_the_built_client_is_served(client: TestClient, settings: Settings) -> None:
    settings.static_dir.mkdir()
    (settings.static_dir / "index.html").write_text("<!doctype html><title>Asteroid Mining</title>")
    (settings.static_dir / "app.js").write_text("console.log('hi')")
    assert "<title>Asteroid Mining</title>" in client.get("/").text
    assert client.get("/app.js").text == "console.log('hi')"
    assert client.get("/api/health").json() == {"status": "ok"}
    assert client.get("/missing.js").status_code == 404


def test_crash_answers_a_plain_json_500(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fastapi.testclient import TestClient

    from asteroid_mining.server import Settings, create_app
    from asteroid_mining.server.hub import GameHub

    def broken(self: GameHub) -> list[dict[str, Any]]:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(GameHub, "lobby", broken)
    with TestClient(create_app(Settings(data_dir=tmp_path)), raise_server_exceptions=False) as client:
        answer = client.get("/api/games")
        assert answer.status_code == 500
        assert answer.json() == {"error": {"code": "internal", "message": "internal server error"}}
        assert "secret" not in answer.text and "Traceback" not in answer.text
