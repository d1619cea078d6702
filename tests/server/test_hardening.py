"""Regression tests of the inputs that once broke the server (in process): each failed before its fix."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from starlette.websockets import WebSocketDisconnect

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.main import RedactTokens
from asteroid_mining.storage import SqliteStore, StorageError

from .helpers import PLANS, in_process, play_plan, stored_log, two_loops_belt, winning_seed

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


def ws_path(game: dict[str, Any], seat: int | None = None) -> str:
    path = f"/api/games/{game['id']}/ws"
    return f"{path}?token={game['seats'][seat - 1]['token']}" if seat else path


def app_client(settings: Settings, **kwargs: Any) -> TestClient:
    from fastapi.testclient import TestClient

    return TestClient(create_app(settings), **kwargs)


# ----- 1. a ref outside 64 bits: refused before anything is stored -----
@pytest.mark.parametrize("ref", [-(2**63) - 1, 2**63, 10**30])
def test_a_ref_outside_64_bits_is_refused_and_nothing_is_stored(client: TestClient, two_seats: dict[str, Any],
                                                                ref: int) -> None:
    with client.websocket_connect(ws_path(two_seats, 1)) as session:
        me = in_process(session)
        me.next_of("state")
        session.send_text(json.dumps({"type": "act", "settler": "s1", "action": "move", "target": "a1", "ref": ref}))
        answer = me.next()
        assert answer["type"] == "error" and answer["code"] == "invalid" and answer["field"] == "ref"
        me.act("s1", "move", target="a1", ref=2**63 - 1)  # the edges are fine
        update = me.next_of("update")
        assert update["seq"] == 1 and update["ref"] == 2**63 - 1
    assert [c["seq"] for c in stored_log(client, two_seats["id"])["commands"]] == [1]


# ----- 2. an asteroid called s1: the seats own the settlers the engine made -----
def test_a_belt_with_an_asteroid_named_like_a_settler(client: TestClient) -> None:
    belt = two_loops_belt()
    belt["asteroids"][1]["id"] = "s1"
    belt["links"] = [[("s1" if end == "a1" else end) for end in link] for link in belt["links"]]
    game = client.post("/api/games", json={"seats": 2, "settlers_per_seat": 2, "belt": belt, "seed": 1}).json()
    seats = [seat["settlers"] for seat in game["seats"]]
    assert seats == [["s2", "s4"], ["s3", "s5"]]
    with client.websocket_connect(ws_path(game, 1)) as one, client.websocket_connect(ws_path(game, 2)) as two:
        first, second = in_process(one), in_process(two)
        state = first.next_of("state")
        second.next_of("state")
        engine_settlers = {s["id"] for s in state["state"]["settlers"]}
        assert engine_settlers == {"s2", "s3", "s4", "s5"}
        for player, settler in ((first, "s2"), (second, "s3"), (first, "s4"), (second, "s5")):
            assert first.view is not None and first.view["turn"] == settler
            player.act(settler, "wait")
            assert first.next_of("update")["action"]["actor"] == settler
            second.next_of("update")


# ----- 3. NaN and Infinity are refused everywhere; a game that cannot be loaded is listed as damaged -----
@pytest.mark.parametrize("text", [
    '{"belt": {"format": "asteroid-mining/belt", "version": 1, "start": "A", "asteroids": [{"id": "A"}], '
    '"storm_sector": NaN}}',
    '{"turn_seconds": Infinity}',
    '{"seed": -Infinity}',
    '{"turn_seconds": 1e400}',
    '{"seats": ' + "9" * 5000 + "}",
])
def test_non_finite_numbers_are_refused(client: TestClient, text: str) -> None:
    answer = client.post("/api/games", content=text.encode(), headers={"content-type": "application/json"})
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["code"] == "invalid"
    assert client.get("/api/games").json()["games"] == []


def test_a_stored_game_that_cannot_be_loaded_is_listed_as_damaged(settings: Settings) -> None:
    with app_client(settings) as client:
        game = client.post("/api/games", json={"belt": two_loops_belt(), "seats": 2, "settlers_per_seat": 1}).json()
        good = client.post("/api/games", json={}).json()
    with sqlite3.connect(settings.data_dir / "games.sqlite3") as db:  # what a NaN once became: null
        belt = json.loads(db.execute("SELECT belt FROM games WHERE id = ?", (game["id"],)).fetchone()[0])
        belt["storm_sector"] = None
        db.execute("UPDATE games SET belt = ? WHERE id = ?", (json.dumps(belt), game["id"]))
    with app_client(settings, raise_server_exceptions=False) as client:
        lobby = {g["id"]: g for g in client.get("/api/games").json()["games"]}
        assert lobby[game["id"]]["status"] == "damaged" and lobby[good["id"]]["status"] == "open"
        assert lobby[game["id"]]["seats"][0]["settlers"] == ["s1"]
        for path in ("", "/replay"):
            answer = client.get(f"/api/games/{game['id']}{path}")
            assert answer.status_code == 409, (path, answer.text)
            assert answer.json()["error"]["code"] == "game_damaged"
        log = f"/api/games/{game['id']}/log"  # a damaged game in play: its log to its seats' tokens only
        assert client.get(log).json()["error"]["code"] == "game_running"
        bearer = {"authorization": f"Bearer {game['seats'][1]['token']}"}
        assert client.get(log, headers=bearer).json()["id"] == game["id"]
        assert client.get(log, headers={"authorization": f"Bearer {good['seats'][0]['token']}"}).status_code == 409
        with client.websocket_connect(ws_path(game, 1)) as session:
            assert session.receive_json()["code"] == "game_damaged"
            with pytest.raises(WebSocketDisconnect) as closed:
                session.receive_json()
            assert closed.value.code == 4410


# ----- 4. every number of the schemas is bounded -----
@pytest.mark.parametrize(("change", "where"), [
    ({"asteroids": 5}, "asteroids"),
    ({"asteroids": True}, "asteroids"),
    ({"links": 3.5}, "links"),
    ({"links": 5}, "links"),
    ({"storm_interval": 10**30}, "storm_interval"),
])
def test_belt_sections_and_numbers_out_of_range_are_422(client: TestClient, change: dict[str, Any],
                                                        where: str) -> None:
    belt = {**two_loops_belt(), **change}
    answer = client.post("/api/games", json={"belt": belt})
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["field"] == "belt"
    assert where in answer.json()["error"]["message"] or "more problems" in answer.json()["error"]["message"]


def test_a_huge_mantle_is_422(client: TestClient) -> None:
    belt = two_loops_belt()
    belt["asteroids"][3]["mantle"] = 2**70
    answer = client.post("/api/games", json={"belt": belt})
    assert answer.status_code == 422 and "asteroids[3].mantle" in answer.json()["error"]["message"]


@pytest.mark.parametrize("body", [
    {"seats": True}, {"settlers_per_seat": True}, {"seed": True}, {"seed": 2**64}, {"options": {"ufos": 10**30}},
    {"options": {"storm_interval": -1}},
])
def test_request_numbers_out_of_range_are_422(client: TestClient, body: dict[str, Any]) -> None:
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 422, answer.text


# ----- 5. the turn timer has a floor; replays are cached -----
def test_turn_seconds_has_a_floor(tmp_path: Path) -> None:
    with app_client(Settings(data_dir=tmp_path)) as client:
        for seconds in (1e-300, 0.5):
            error = client.post("/api/games", json={"turn_seconds": seconds}).json()["error"]
            assert error["field"] == "turn_seconds" and "at least 1" in error["message"]
        assert client.post("/api/games", json={"turn_seconds": 1}).status_code == 201


def test_replays_are_built_once_per_seq(client: TestClient, two_seats: dict[str, Any]) -> None:
    cache = client.app.state.replays  # type: ignore[attr-defined]
    first = client.get(f"/api/games/{two_seats['id']}/replay").json()
    assert client.get(f"/api/games/{two_seats['id']}/replay").json() == first
    assert cache.builds == 1
    with client.websocket_connect(ws_path(two_seats, 1)) as session:
        me = in_process(session)
        me.next_of("state")
        me.act("s1", "move", target="a1")
        me.next_of("update")
    after = client.get(f"/api/games/{two_seats['id']}/replay").json()
    assert cache.builds == 2 and after["seq"] == 1 and len(after["steps"]) == 1


# ----- 7. quotas free themselves -----
def test_open_games_expire_and_finished_games_do_not_count(settings: Settings) -> None:
    settings = settings.with_changes(max_games_per_client=2, open_game_ttl=600.0)
    body = {"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": winning_seed()}
    with app_client(settings) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        now = [hub.clock()]
        hub.clock = lambda: now[0]
        won = client.post("/api/games", json=body).json()
        idle = client.post("/api/games", json=body).json()
        assert client.post("/api/games", json=body).json()["error"]["code"] == "too_many_games"
        with client.websocket_connect(ws_path(won, 1)) as s1, client.websocket_connect(ws_path(won, 2)) as s2:
            one, two = in_process(s1), in_process(s2)
            one.next_of("state")
            two.next_of("state")
            assert play_plan({"s1": one, "s2": two}, PLANS)["diff"]["status"] == "won"
        third = client.post("/api/games", json=body)  # the won game no longer counts
        assert third.status_code == 201
        assert client.post("/api/games", json=body).json()["error"]["code"] == "too_many_games"
        now[0] += 601  # both open games expire: out of the lobby, out of the quota
        assert [g["id"] for g in client.get("/api/games").json()["games"]] == []
        made = [client.post("/api/games", json=body) for _ in range(3)]
        assert [answer.status_code for answer in made] == [201, 201, 429]
        with client.websocket_connect(ws_path(idle, 1)) as session:  # not past its creator's quota (attack s15)
            assert session.receive_json()["code"] == "server_full"
        newest = made[1].json()
        assert client.post(f"/api/games/{newest['id']}/abandon",
                           json={"token": newest["seats"][0]["token"]}).status_code == 200
        with client.websocket_connect(ws_path(idle, 1)) as session:  # within it, its link still opens it
            assert in_process(session).next_of("state")["seq"] == 0
    with app_client(settings) as client:  # after a restart too
        hub = client.app.state.hub  # type: ignore[attr-defined]
        hub.clock = lambda: now[0] + 601
        assert client.post("/api/games", json=body).status_code == 201


# ----- 8. tokens are never logged, however the URL spells their name -----
@pytest.mark.parametrize("query", ["token=SECRET", "tok%65n=SECRET", "%74oken=SECRET", "a=1&TOKEN=x&token=SECRET",
                                   "tok%65n=SECRET&b=2", "token=SECRET%20x"])
def test_tokens_are_redacted_after_decoding(query: str) -> None:
    record = logging.LogRecord("uvicorn.access", logging.INFO, "", 0, '%s - "WebSocket /api/games/g/ws?%s" %d',
                               ("127.0.0.1:5", query, 101), None)
    RedactTokens().filter(record)
    assert "SECRET" not in record.getMessage() and "…" in record.getMessage()


def test_a_decoded_token_name_plays_the_seat(client: TestClient, two_seats: dict[str, Any]) -> None:
    token = two_seats["seats"][0]["token"]
    with client.websocket_connect(f"/api/games/{two_seats['id']}/ws?tok%65n={token}") as session:
        assert in_process(session).next_of("state")["you"]["seat"] == 1  # so it must be redacted too


# ----- 9. a WebSocket to an unknown path; a chunked body over the limit -----
@pytest.mark.parametrize("path", ["/nowhere", "/api/games", "/api/games/x/ws/more", "/"])
def test_a_websocket_to_an_unknown_path_is_refused_cleanly(client: TestClient, path: str) -> None:
    with pytest.raises(WebSocketDisconnect) as refused, client.websocket_connect(path):
        pass
    assert refused.value.code in (403, 4404, 1000)


def test_a_chunked_body_over_the_limit_is_413(tmp_path: Path) -> None:
    with app_client(Settings(data_dir=tmp_path, max_request_bytes=1000)) as client:
        def chunks() -> Iterator[bytes]:
            yield b'{"belt": "'
            for _ in range(20):
                yield b"x" * 100
            yield b'"}'

        answer = client.post("/api/games", content=chunks(), headers={"content-type": "application/json"})
        assert answer.status_code == 413 and answer.json()["error"]["code"] == "too_large"
        assert client.post("/api/games", json={}).status_code == 201


# ----- 10. storage faults -----
class FullDisk(SqliteStore):
    async def create(self, record: Any, progress: Any) -> None:
        raise StorageError("OperationalError: database or disk is full")


def test_a_full_disk_on_create_is_a_storage_code(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    with TestClient(create_app(Settings(data_dir=tmp_path), FullDisk(tmp_path))) as client:
        answer = client.post("/api/games", json={})
        assert answer.status_code == 507 and answer.json()["error"]["code"] == "storage_full"
        assert client.get("/api/games").json()["games"] == []


# ----- 11. small ones -----
def test_an_empty_body_says_what_is_needed(client: TestClient) -> None:
    answer = client.post("/api/games", content=b"", headers={"content-type": "application/json"})
    assert answer.status_code == 422
    message = answer.json()["error"]["message"]
    assert "None" not in message and "JSON body" in message


def test_non_ascii_digits_in_an_orbit_are_refused(client: TestClient) -> None:
    belt = two_loops_belt()
    belt["asteroids"][2]["orbit"] = "٣/1/0"
    answer = client.post("/api/games", json={"belt": belt})
    assert answer.status_code == 422 and "asteroids[2].orbit" in answer.json()["error"]["message"]
