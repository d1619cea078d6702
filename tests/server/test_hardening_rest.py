"""Regression tests of the REST side's hardening (issue 23): belts of many gates, strict bodies, the logs of games
in play, replay caches in bytes, damaged rows. Each failed before its fix."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server import limits as limits_module

from .helpers import two_loops_belt, winning_seed

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


def app_client(settings: Settings) -> TestClient:
    from fastapi.testclient import TestClient

    return TestClient(create_app(settings))


def gates_belt(pairs: int, asteroids: int = 2) -> dict[str, Any]:
    """A belt of `asteroids` in a line and `pairs` gate pairs, every one between the first two asteroids."""
    ids = [f"a{i}" for i in range(asteroids)]
    return {"format": "asteroid-mining/belt", "version": 1, "start": "a0",
            "asteroids": [{"id": aid, "mantle": 1, "core": "ice"} for aid in ids],
            "links": [[ids[i], ids[i + 1]] for i in range(asteroids - 1)],
            "gates": [{"first": f"g{k}x", "first_at": "a0", "second": f"g{k}y", "second_at": "a1"}
                      for k in range(pairs)]}


# ----- 1. gate pairs are bounded, checked by hand and attached in order -----
def test_gate_pairs_past_the_limit_are_refused_naming_it(tmp_path: Path) -> None:
    with app_client(Settings(data_dir=tmp_path, max_belt_gates=5)) as client:
        answer = client.post("/api/games", json={"belt": gates_belt(6)})
        assert answer.status_code == 422, answer.text
        error = answer.json()["error"]
        assert error["code"] == "belt_too_large" and error["field"] == "belt"
        assert "6 gate pairs" in error["message"] and "(5)" in error["message"]
        assert client.post("/api/games", json={"belt": gates_belt(5)}).status_code == 201  # the limit itself: fine


def test_the_default_gate_limit_refuses_a_megabytes_belt_of_gates(client: TestClient) -> None:
    pairs = Settings().max_belt_gates + 1
    answer = client.post("/api/games", json={"belt": gates_belt(pairs)})
    assert answer.status_code == 422 and answer.json()["error"]["code"] == "belt_too_large"


def test_many_gates_around_one_asteroid_keep_their_creation_order(client: TestClient) -> None:
    """Gates are attached in creation order without sorting them all again for each (that was n² log n)."""
    answer = client.post("/api/games", json={"belt": gates_belt(300), "seed": 1})
    assert answer.status_code == 201, answer.text
    view = client.get(f"/api/games/{answer.json()['id']}").json()["state"]
    at_a0 = [g["id"] for g in view["gates"] if g["at"] == "a0"]
    assert at_a0 == [f"g{k}x" for k in range(300)]


@pytest.mark.parametrize(("gate", "problem"), [
    ("not a pair", "gates[0]: must be an object, not a string"),
    ({"first": "g1", "first_at": "a0", "second": "g2"}, "gates[0].second_at: missing (this field is required)"),
    ({"first": "g1", "first_at": "a0", "second": "g2", "second_at": "a1", "colour": "red"},
     "gates[0].colour: unknown field"),
    ({"first": 7, "first_at": "a0", "second": "g2", "second_at": "a1"},
     "gates[0].first: an id must be a string, not a whole number"),
])
def test_gate_elements_are_judged_by_hand_as_the_schema_would(client: TestClient, gate: Any, problem: str) -> None:
    belt = gates_belt(0)
    belt["gates"] = [gate]
    answer = client.post("/api/games", json={"belt": belt})
    assert answer.status_code == 422 and answer.json()["error"]["message"].startswith(f"belt.{problem}")


def test_a_large_body_is_parsed_off_the_event_loop(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A megabyte of JSON is parsed in a worker thread, once: the event loop (every game's) is never held by it."""
    threads: list[str] = []
    parse = limits_module.parse_strict

    def watched(body: bytes) -> tuple[str | None, Any]:
        threads.append(threading.current_thread().name)
        return parse(body)

    monkeypatch.setattr(limits_module, "parse_strict", watched)
    belt = gates_belt(0)
    belt["description"] = "x" * (limits_module.PARSE_INLINE + 1)
    loop_thread = client.portal.call(lambda: threading.current_thread().name)  # type: ignore[union-attr]
    assert client.post("/api/games", json={"belt": belt}).status_code == 201
    assert len(threads) == 1 and threads[0] != loop_thread


# ----- 10. strict bodies: no coercion, deep nesting is 422 like every other bad body -----
@pytest.mark.parametrize(("body", "field"), [
    ({"turn_seconds": "5"}, "turn_seconds"),
    ({"turn_seconds": True}, "turn_seconds"),
    ({"seats": 2.0}, "seats"),
    ({"seats": "2"}, "seats"),
    ({"seats": True}, "seats"),
    ({"settlers_per_seat": 1.0}, "settlers_per_seat"),
    ({"seed": 5.0}, "seed"),
    ({"seed": "5"}, "seed"),
    ({"options": {"ufos": 2.0}}, "options.ufos"),
    ({"options": {"ufos": "2"}}, "options.ufos"),
    ({"difficulty": 3}, "difficulty"),
    ({"bots": {"2": 5}}, "bots.2"),
])
def test_create_game_coerces_nothing(client: TestClient, body: dict[str, Any], field: str) -> None:
    answer = client.post("/api/games", json={"seats": 2, **body})
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "invalid" and error["field"] == field


def test_abandon_coerces_nothing(client: TestClient, two_seats: dict[str, Any]) -> None:
    answer = client.post(f"/api/games/{two_seats['id']}/abandon", json={"token": 12345})
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "token"


def test_whole_numbers_still_make_a_timer(client: TestClient) -> None:
    answer = client.post("/api/games", json={"turn_seconds": 5, "belt": two_loops_belt()})
    assert answer.status_code == 201
    assert client.get(f"/api/games/{answer.json()['id']}").json()["turn_seconds"] == 5


@pytest.mark.parametrize("depth", [33, 1000, 5000])
@pytest.mark.parametrize("path", ["/api/games", "/api/games/nope/abandon", "/api/lessons/first/games"])
def test_deep_nesting_is_422_invalid(client: TestClient, depth: int, path: str) -> None:
    text = '{"belt": ' + "[" * depth + "]" * depth + "}"
    answer = client.post(path, content=text, headers={"content-type": "application/json"})
    if path != "/api/games" and len(text) > limits_module.OTHER_BODY_BYTES:  # refused unread (test_attack_s18)
        assert answer.status_code == 413, answer.text
        assert answer.json()["error"]["code"] == "too_large"
        return
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "invalid" and "nested deeper than 32 levels" in error["message"]


def test_nesting_up_to_the_limit_reaches_the_schema(client: TestClient) -> None:
    text = json.dumps({"belt": {"format": "asteroid-mining/belt", "x": json.loads("[" * 29 + "]" * 29)}})
    error = client.post("/api/games", content=text, headers={"content-type": "application/json"}).json()["error"]
    assert error["code"] == "invalid" and error["field"] == "belt" and "nested" not in error["message"]



def test_a_body_sent_slowly_is_timed_out_by_a_real_server(tmp_path: Path) -> None:
    """A body trickled a byte at a time no longer holds the connection for as long as the client likes."""
    import socket
    import time

    import httpx

    from .helpers import running_server

    with running_server(tmp_path, "--body-timeout", "0.5") as server:
        with socket.create_connection(("127.0.0.1", server.port)) as slow:
            slow.sendall(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"Content-Length: 100000\r\n\r\n{")
            slow.settimeout(0.2)
            received = b""
            deadline = time.monotonic() + 20.0
            while time.monotonic() < deadline:
                try:
                    slow.sendall(b" ")  # a byte now and then does not keep it open
                    chunk = slow.recv(4096)
                except TimeoutError:
                    continue
                except OSError:  # reset after the answer: closed too
                    break
                if chunk == b"":
                    break
                received += chunk
            else:
                pytest.fail("the server kept a trickled body's connection open")
        assert received.startswith(b"HTTP/1.1 408"), received[:200]
        assert b'"request_timeout"' in received
        assert httpx.get(f"{server.url}/api/health", timeout=10).status_code == 200
        assert "Traceback" not in server.log.read_text()


# ----- 6. the log of a game in play shows its hidden cores: it is public once the game has ended -----
def test_the_log_of_a_game_in_play_is_refused_to_everyone(client: TestClient, two_seats: dict[str, Any]) -> None:
    log = f"/api/games/{two_seats['id']}/log"
    for headers in ({}, {"authorization": f"Bearer {two_seats['seats'][0]['token']}"}):
        answer = client.get(log, headers=headers)
        assert answer.status_code == 409, answer.text
        error = answer.json()["error"]
        assert error["code"] == "game_running" and "seed" not in answer.json() and "belt" not in answer.json()
    client.post(f"/api/games/{two_seats['id']}/abandon", json={"token": two_seats["seats"][0]["token"]})
    ended = client.get(log).json()  # once it has ended: everyone's
    assert ended["status"] == "abandoned" and "seed" in ended and ended["belt"]["asteroids"]


def test_what_a_game_in_play_shows_anyone_hides_unsurveyed_cores(client: TestClient) -> None:
    """The detail, replay and events of a game in play are built from the players' view (R17): no core of an
    asteroid nobody has stood on, and no seed, in any of them."""
    belt = two_loops_belt()
    belt["asteroids"][1]["core"] = "uranium"
    belt["asteroids"][1]["mantle"] = 2
    game = client.post("/api/games", json={"belt": belt, "seed": 424242}).json()
    answers = [client.get(f"/api/games/{game['id']}{path}").json() for path in ("", "/replay", "/events", "/summary")]
    for answer in answers:
        text = json.dumps(answer)
        assert "424242" not in text and "seed" not in text
    views = [answers[0]["state"], answers[1]["state"]]
    for view in views:
        hidden = next(a for a in view["asteroids"] if a["id"] == belt["asteroids"][1]["id"])
        assert hidden["core"] == "unknown"


# ----- 9. a damaged row damages its game alone: listed as damaged with a reason, never a 500 -----
def played_games(settings: Settings, commands: int = 3) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two games of two seats on the two-loops belt, the first with `commands` waits played, the other with one."""
    from .helpers import in_process

    with app_client(settings) as client:
        body = {"belt": two_loops_belt(), "seats": 2, "settlers_per_seat": 1, "seed": winning_seed()}
        games = [client.post("/api/games", json=body).json() for _ in range(2)]
        for game, count in zip(games, (commands, 1), strict=True):
            tokens = [seat["token"] for seat in game["seats"]]
            with client.websocket_connect(f"/api/games/{game['id']}/ws?token={tokens[0]}") as one, \
                    client.websocket_connect(f"/api/games/{game['id']}/ws?token={tokens[1]}") as two:
                players = [in_process(one), in_process(two)]
                for player in players:
                    player.next_of("state")
                for seq in range(1, count + 1):
                    players[(seq - 1) % 2].act(f"s{1 + (seq - 1) % 2}", "wait")
                    assert players[0].next_of("update")["seq"] == seq
    return games[0], games[1]


def damage(settings: Settings, statement: str, *values: object) -> None:
    import sqlite3

    with sqlite3.connect(settings.data_dir / "games.sqlite3") as db:
        db.execute(statement, values)


def test_a_command_that_is_not_json_damages_its_game_not_the_server(settings: Settings) -> None:
    bad, good = played_games(settings)
    damage(settings, "UPDATE commands SET action = '{\"type\"' WHERE game = ? AND seq = 2", bad["id"])
    with app_client(settings) as client:
        for path in ("", "/log", "/replay", "/events", "/summary"):
            answer = client.get(f"/api/games/{bad['id']}{path}")
            assert answer.status_code == 409, (path, answer.text)
            assert answer.json()["error"]["code"] == "game_damaged"
            assert "commands[2].action: not JSON" in answer.json()["error"]["message"]
        lobby = {g["id"]: g for g in client.get("/api/games").json()["games"]}
        assert lobby[bad["id"]]["status"] == "damaged" and lobby[good["id"]]["status"] == "running"
        assert client.get(f"/api/games/{good['id']}/replay").status_code == 200
        assert client.post("/api/games", json={}).status_code == 201


def test_a_created_that_is_not_a_number_damages_its_game_not_the_lobby(settings: Settings) -> None:
    bad, good = played_games(settings)
    damage(settings, "UPDATE games SET created = 'yesterday' WHERE id = ?", bad["id"])
    with app_client(settings) as client:
        answer = client.get("/api/games")
        assert answer.status_code == 200, answer.text
        lobby = {g["id"]: g for g in answer.json()["games"]}
        assert lobby[bad["id"]]["status"] == "damaged" and lobby[good["id"]]["status"] == "running"
        assert "created" in client.get(f"/api/games/{bad['id']}").json()["error"]["message"]


@pytest.mark.parametrize("state", ["{\"not\": \"a game\"}", "not JSON at all"])
def test_a_damaged_snapshot_is_rebuilt_from_the_log(tmp_path: Path, state: str) -> None:
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static", snapshot_every=2)
    game, _ = played_games(settings, commands=3)
    damage(settings, "UPDATE snapshots SET state = ? WHERE game = ?", state, game["id"])
    with app_client(settings) as client:
        detail = client.get(f"/api/games/{game['id']}")
        assert detail.status_code == 200, detail.text
        assert detail.json()["seq"] == 3 and detail.json()["status"] == "running"
        assert all(g["status"] != "damaged" for g in client.get("/api/games").json()["games"])


def test_a_database_whose_tables_are_gone_is_one_line_and_exit_2(tmp_path: Path) -> None:
    import sqlite3
    import subprocess
    import sys

    from .helpers import free_port

    data = tmp_path / "data"
    played_games(Settings(data_dir=data, bot_delay=0.0, static_dir=tmp_path / "static"), commands=1)
    with sqlite3.connect(data / "games.sqlite3") as db:
        db.execute("DROP TABLE commands")
    run = subprocess.run([sys.executable, "-m", "asteroid_mining.server", "--port", str(free_port()), "--data",
                          str(data)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    errors = [line for line in run.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and "damaged (table commands is missing)" in errors[0], run.stderr
    assert "Traceback" not in run.stderr + run.stdout


# ----- 7. histories cached in bytes, events from the cache, the costly reads rate-limited per address -----
def test_the_history_cache_is_bounded_in_bytes(tmp_path: Path) -> None:
    def settings(**changes: Any) -> Settings:
        return Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static", **changes)

    with app_client(settings()) as client:  # three games alike (the same belt, no command yet)
        games = [client.post("/api/games", json={"belt": two_loops_belt(), "seed": 1}).json()["id"] for _ in range(3)]
        client.get(f"/api/games/{games[0]}/replay")
        one = client.app.state.replays.bytes  # type: ignore[attr-defined]
    budget = int(one * 2.5)  # room for two of them, not for three
    with app_client(settings(replay_cache_bytes=budget)) as client:
        cache = client.app.state.replays  # type: ignore[attr-defined]
        for game in games:
            assert client.get(f"/api/games/{game}/replay").status_code == 200
            assert 0 < cache.bytes <= budget
        assert len(cache) == 2 and cache.builds == 3
        client.get(f"/api/games/{games[-1]}/events")  # the latest is kept: no build
        assert cache.builds == 3
        client.get(f"/api/games/{games[0]}/events")  # the oldest was dropped: built again
        assert cache.builds == 4 and cache.bytes <= budget
    with app_client(settings(replay_cache_bytes=10)) as client:  # larger than the whole budget: answered, not kept
        assert client.get(f"/api/games/{games[0]}/replay").json()["seq"] == 0
        assert client.app.state.replays.bytes == 0  # type: ignore[attr-defined]


def test_events_come_from_the_replays_cache_for_any_after(settings: Settings,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The events once replayed the whole game for every request (a third of a second of CPU for a long one)."""
    from asteroid_mining.server import replay as replay_module

    rebuilds: list[str] = []
    rebuild = replay_module.rebuild  # type: ignore[attr-defined]

    def counted(record: Any, *args: Any, **kwargs: Any) -> Any:
        rebuilds.append(record.id)
        return rebuild(record, *args, **kwargs)

    monkeypatch.setattr(replay_module, "rebuild", counted)
    game, _ = played_games(settings, commands=3)
    with app_client(settings) as client:
        cache = client.app.state.replays  # type: ignore[attr-defined]
        whole = client.get(f"/api/games/{game['id']}/events").json()
        assert [s["seq"] for s in whole["steps"]] == [1, 2, 3] and whole["seq"] == 3
        later = client.get(f"/api/games/{game['id']}/events", params={"after": 1}).json()
        assert later == {**whole, "steps": whole["steps"][1:]}
        assert client.get(f"/api/games/{game['id']}/events", params={"after": 9}).json()["steps"] == []
        replay = client.get(f"/api/games/{game['id']}/replay").json()
        assert [{k: s[k] for k in ("seq", "by", "events")} for s in replay["steps"]] == whole["steps"]
        assert cache.builds == 1 and rebuilds == [game["id"]]  # one replay of the game for the four answers


def test_the_costly_reads_are_rate_limited_per_address(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        history_rate_per_second=0.001, history_rate_burst=3)
    with app_client(settings) as client:
        game = client.post("/api/games", json={}).json()["id"]
        for path in ("/replay", "/events", "/log"):
            assert client.get(f"/api/games/{game}{path}").status_code in (200, 409), path
        for path in ("/replay", "/events", "/log"):
            answer = client.get(f"/api/games/{game}{path}")
            assert answer.status_code == 429, (path, answer.text)
            assert answer.json()["error"]["code"] == "rate_limited" and int(answer.headers["retry-after"]) >= 1
        assert client.get(f"/api/games/{game}").status_code == 200  # the cheap reads are not counted


@pytest.mark.parametrize(("column", "value", "where"), [
    ("action", '{"type": "fly", "actor": "s1"}', "commands[2].action"),  # (named by seq)
    ("author", '{"seat": "one"}', "commands[2].by.seat"),
])
def test_a_finished_games_log_with_a_command_that_is_no_action_is_409(settings: Settings, column: str, value: str,
                                                                     where: str) -> None:
    """JSON that is no action (or no author) once made `GET /log` fail its own answer's check: a 500."""
    bad, good = played_games(settings)
    with app_client(settings) as client:
        for game in (bad, good):
            client.post(f"/api/games/{game['id']}/abandon", json={"token": game["seats"][0]["token"]})
    damage(settings, f"UPDATE commands SET {column} = ? WHERE game = ? AND seq = 2", value, bad["id"])
    with app_client(settings) as client:
        answer = client.get(f"/api/games/{bad['id']}/log")
        assert answer.status_code == 409, answer.text
        assert answer.json()["error"]["code"] == "game_damaged" and where in answer.json()["error"]["message"]
        log = client.get(f"/api/games/{good['id']}/log")
        assert log.status_code == 200 and [c["seq"] for c in log.json()["commands"]] == [1]


def test_the_abandon_body_is_read_as_the_create_body(client: TestClient, two_seats: dict[str, Any]) -> None:
    """Parsed once, strictly: `null` is no body, an unknown field is refused (a body past `OTHER_BODY_BYTES` is
    refused unread: `test_attack_s18`)."""
    path = f"/api/games/{two_seats['id']}/abandon"
    big = {"token": "x", "padding": "y" * (limits_module.OTHER_BODY_BYTES - 100)}
    assert client.post(path, json=big).json()["error"]["field"] == "padding"
    assert client.post(path, content=b"null", headers={"content-type": "application/json"}).status_code == 401
    assert client.post("/api/games", content=b"null",
                       headers={"content-type": "application/json"}).json()["error"]["message"].startswith(
        "the request needs a JSON body")
    bearer = {"authorization": f"Bearer {two_seats['seats'][1]['token']}"}
    assert client.post(path, json={"token": None}, headers=bearer).json()["status"] == "abandoned"
