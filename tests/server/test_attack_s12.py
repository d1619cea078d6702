"""What the third fresh attack on the server found, each held by a test at the level it was found."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.live import (
    BYTES_PER_ASTEROID,
    BYTES_PER_GAME,
    BYTES_PER_GATE_PAIR,
    BYTES_PER_ID_CHARACTER,
    BYTES_PER_LINK,
    BYTES_PER_LINK_CHARACTER,
    belt_memory,
)
from asteroid_mining.server.schemas import CreateGame

from .helpers import running_server, two_loops_belt


def _finished_game(client: TestClient) -> dict[str, Any]:
    """A one-seat game, abandoned (finished: let go of, and loaded from the store for each read)."""
    game: dict[str, Any] = client.post("/api/games", json={"seats": 1, "belt": two_loops_belt(), "seed": 3}).json()
    token = game["seats"][0]["token"]
    assert client.post(f"/api/games/{game['id']}/abandon", json={"token": token}).status_code == 200
    assert game["id"] not in client.app.state.hub.games  # type: ignore[attr-defined]
    return game


# ----- refusals that load a finished game are charged like the reads that do -----
def test_abandon_and_hint_of_a_finished_game_are_charged_to_the_address(tmp_path: Path) -> None:
    """`POST …/abandon` and `POST …/hint` loaded a finished game from the store to refuse it (403 with a wrong
    token, 409 with the right one), uncharged: 27 ms of CPU a request on the `large` belt (0.3 s on the largest
    accepted belt), in a loop, while every read that loads one takes a token of the address's history bucket."""
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        history_rate_per_second=0.001, history_rate_burst=4)
    with TestClient(create_app(settings)) as client:
        game = _finished_game(client)
        token = game["seats"][0]["token"]
        answers = [client.post(f"/api/games/{game['id']}/{path}", json={"token": tok})
                   for path in ("abandon", "hint") for tok in ("wrong", token)]
        assert [a.status_code for a in answers] == [403, 409, 403, 409], [a.text for a in answers]
        for path in ("abandon", "hint"):
            refused = client.post(f"/api/games/{game['id']}/{path}", json={"token": token})
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"]["code"] == "rate_limited" and int(refused.headers["retry-after"]) >= 1


def test_no_hint_for_an_abandoned_game(client: TestClient) -> None:
    """A hint for an abandoned game was answered (the engine of an abandoned game still says `running`): 409
    `game_over`, as for a game won or lost."""
    game = _finished_game(client)
    answer = client.post(f"/api/games/{game['id']}/hint", json={"token": game["seats"][0]["token"]})
    assert answer.status_code == 409, answer.text
    assert answer.json()["error"]["code"] == "game_over" and "abandoned" in answer.json()["error"]["message"]


# ----- loading a game with many gates is linear -----
_COUNT_SORTED = textwrap.dedent("""
    import json, sys
    from asteroid_mining.rules import ENGINE, Game, CLASSIC, serialize
    from asteroid_mining.maps import parse_belt
    assert ENGINE == "pure", ENGINE
    pairs = int(sys.argv[1])
    ids = [f"a{i}" for i in range(4)]
    belt = {"format": "asteroid-mining/belt", "version": 1, "start": "a0",
            "asteroids": [{"id": a, "mantle": 2, "core": "ice"} for a in ids],
            "links": [[ids[i], ids[i + 1]] for i in range(3)],
            "gates": [{"first": f"g{k}x", "first_at": "a0", "second": f"g{k}y", "second_at": "a1"}
                      for k in range(pairs)]}
    game = Game.new(parse_belt(belt), CLASSIC, 1, 1)
    document = game.to_json()
    items = [0]
    real = sorted
    def counted(iterable, **kwargs):
        out = real(iterable, **kwargs)
        items[0] += len(out)
        return out
    serialize.sorted = counted  # (the module's global shadows the builtin: the pure engine looks it up there)
    loaded = Game.from_json(document)
    assert loaded.to_json() == document
    print(json.dumps(items[0]))
""")


def test_loading_a_game_sorts_each_asteroids_gates_once() -> None:
    """`Game.from_json` sorted an asteroid's gates again for each of its gates: quadratic, 0.29 s of CPU (compiled,
    holding the GIL throughout, so every game's event loop waited) to load a game of the largest accepted belt
    (1,000 gate pairs around two asteroids) for a finished game's read, a hint's copy, a snapshot. Each asteroid's
    gates are sorted once: the items sorted are as many as the gates (counted in the pure engine, whose module
    globals can be replaced)."""
    pairs = 300
    result = subprocess.run([sys.executable, "-c", _COUNT_SORTED, str(pairs)], capture_output=True, text=True,
                            timeout=120, env={**os.environ, "ASTEROID_MINING_ENGINE": "pure"}, check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) <= 2 * pairs  # it was pairs * (pairs + 1): each gate sorted its asteroid's


# ----- WebSocket handshakes refused by `websockets` and by the server -----
def _handshake_answer(port: int, path: str, extra: str) -> tuple[bytes, bool]:
    """Send a WebSocket handshake with `extra` header lines; the server's answer, and whether it then closed the
    connection (within a generous deadline: a server that never answers fails here)."""
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n").encode())
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except TimeoutError:
            return answer, False
        return answer, True


def test_a_handshake_websockets_refuses_is_answered_and_closed(tmp_path: Path) -> None:
    """The HTTP layer takes 64 KiB of headers, but `websockets` refuses a handshake with a header line over 8 KiB
    or more than 128 headers: it wrote a `431` where uvicorn never looks, and the client heard nothing while its
    socket stayed open for as long as it kept it (a browser's Cookie header can pass 8 KiB). Answered and closed;
    nothing in the log is an error."""
    with running_server(tmp_path) as server:
        game = json.loads(httpx_post(server.url + "/api/games", {"seats": 1, "belt": "tutorial"}))
        path = f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}"
        for extra in (f"Cookie: {'c' * 9000}\r\n", "".join(f"X-Header-{i}: {i}\r\n" for i in range(200)),
                      "Sec-WebSocket-Protocol: " + ", ".join(f"p{i}" for i in range(3000)) + "\r\n"):
            answer, closed = _handshake_answer(server.port, path, extra)
            assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
            assert closed
        answer, _ = _handshake_answer(server.port, path, "Cookie: short\r\n")  # what passes is served
        assert answer.startswith(b"HTTP/1.1 101 ")
        log = server.log.read_text()
        assert "Traceback" not in log and " ERROR " not in log


def test_a_refused_origin_is_no_error_in_the_log(tmp_path: Path) -> None:
    """A WebSocket from another site's page is refused with a `403` answer (`send_denial_response`), which uvicorn
    logged as an error ("ASGI callable returned without completing handshake") for every such handshake."""
    with running_server(tmp_path) as server:
        game = json.loads(httpx_post(server.url + "/api/games", {"seats": 1, "belt": "tutorial"}))
        for origin in ("http://elsewhere.example", "null"):
            answer, closed = _handshake_answer(server.port, f"/api/games/{game['id']}/ws", f"Origin: {origin}\r\n")
            assert answer.startswith(b"HTTP/1.1 403 ") and b"origin_not_allowed" in answer and closed
        log = server.log.read_text()
        assert log.count("connection rejected (403") >= 2 or log.count(" 403") >= 2
        assert "Traceback" not in log and " ERROR " not in log


def httpx_post(url: str, body: dict[str, Any]) -> str:
    """POST `body` as JSON; the answer's text (201 expected)."""
    import httpx

    answer = httpx.post(url, json=body, timeout=60)
    assert answer.status_code == 201, answer.text
    return answer.text


# ----- a lesson's goals asked of another game -----
def _belt_with_home(mantle: int) -> dict[str, Any]:
    """A belt whose settlers start on Dock, next to a Home of ice under `mantle` layers that nobody has visited."""
    return {"format": "asteroid-mining/belt", "version": 1, "name": "Secret", "start": "Dock",
            "asteroids": [{"id": "Dock", "mantle": 0, "core": "hollow", "orbit": {"sun": "far"}},
                          {"id": "Home", "mantle": mantle, "core": "ice", "orbit": {"sun": "far"}}],
            "links": [["Dock", "Home"]], "gates": []}


def test_a_lessons_goals_do_not_tell_a_core_nobody_has_surveyed(client: TestClient) -> None:
    """`GET /api/games/{id}/goals?lesson=deposit` judged the lesson's expectations (`Home.core == ice`) on the
    whole game, of any game: it told whether an asteroid called Home that nobody had surveyed held ice, which the
    view shows as `unknown` (R17). An expectation of a core the players do not know does not hold."""
    hidden = client.post("/api/games", json={"seats": 1, "belt": _belt_with_home(3)}).json()
    view = client.get(f"/api/games/{hidden['id']}").json()["state"]
    assert [a["core"] for a in view["asteroids"] if a["id"] == "Home"] == ["unknown"]
    goals = client.get(f"/api/games/{hidden['id']}/goals", params={"lesson": "deposit"})
    assert goals.status_code == 200, goals.text
    assert goals.json()["steps"][-1] is False and goals.json()["goal"] is False

    bare = client.post("/api/games", json={"seats": 1, "belt": _belt_with_home(0)}).json()  # a bare core: known
    assert client.get(f"/api/games/{bare['id']}/goals", params={"lesson": "deposit"}).json()["goal"] is True


# ----- games in play are bounded in bytes, not only in number -----
def _in_server(client: TestClient, work: Callable[[], Awaitable[Any]]) -> Any:
    """What `work` (a coroutine function of the server's) answers, run on the server's event loop."""
    portal = client.portal
    assert portal is not None
    return portal.call(work)


def _create_from(client: TestClient, address: str) -> Any:
    """A one-seat game on the two-loops belt created by `address` (the test client has one address only)."""
    hub = client.app.state.hub  # type: ignore[attr-defined]
    request = CreateGame.model_validate({"seats": 1, "belt": two_loops_belt()})
    return _in_server(client, lambda: hub.create(request, address))


def test_running_games_are_bounded_in_bytes_per_address(tmp_path: Path) -> None:
    """An address could hold `max_games_per_client` running games whatever their size (10 MB each on the largest
    accepted belt), so the server's memory was bounded by a count only. Each game's memory is estimated from its
    belt (`belt_memory`), and an address whose games would pass `max_live_bytes_per_client` is refused as the
    count refuses it: nothing is stored, other addresses still create, a game that ends frees its share, and the
    games loaded from the store after a restart count as well."""
    one = belt_memory(two_loops_belt())
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        max_live_bytes_per_client=2 * one + one // 2)
    body = {"seats": 1, "belt": two_loops_belt()}
    with TestClient(create_app(settings)) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        made = [client.post("/api/games", json=body) for _ in range(3)]
        assert [a.status_code for a in made] == [201, 201, 429], [a.text for a in made]
        refusal = made[2].json()["error"]
        assert refusal["code"] == "too_many_games" and "MB" in refusal["message"], refusal
        assert len(_in_server(client, hub.store.unfinished)) == 2  # the refused game was not stored
        assert all(live.memory_bytes >= one for live in hub.games.values())
        other, _ = _create_from(client, "elsewhere")
        assert other.client == "elsewhere"
        first = made[0].json()
        abandoned = client.post(f"/api/games/{first['id']}/abandon", json={"token": first["seats"][0]["token"]})
        assert abandoned.status_code == 200, abandoned.text
        assert client.post("/api/games", json=body).status_code == 201  # the ended game's share is free again
    with TestClient(create_app(settings)) as client:  # the games loaded at start count
        again = client.post("/api/games", json=body)
        assert again.status_code == 429 and again.json()["error"]["code"] == "too_many_games", again.text


def test_running_games_are_bounded_in_bytes_on_the_server(tmp_path: Path) -> None:
    """250 addresses, each holding twenty games of the largest accepted belt, would have held 37 GB: the games
    held in all are bounded by `max_live_bytes` (503 `server_full`, as `max_live_games`), whoever creates them."""
    one = belt_memory(two_loops_belt())
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        max_live_bytes=2 * one + one // 2)
    with TestClient(create_app(settings)) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        assert client.post("/api/games", json={"seats": 1, "belt": two_loops_belt()}).status_code == 201
        _create_from(client, "elsewhere")
        full = client.post("/api/games", json={"seats": 1, "belt": two_loops_belt()})
        assert full.status_code == 503 and full.json()["error"]["code"] == "server_full", full.text
        assert len(_in_server(client, hub.store.unfinished)) == 2
        assert client.post("/api/games", json={"seats": 1, "belt": "tutorial"}).status_code == 503


def test_belt_memory_is_counted_from_what_the_belt_holds() -> None:
    """The estimate grows with the asteroids, links and gate pairs (each rounded up from what they were measured
    to hold) and with the characters of their ids, and a document that is not a belt costs the base alone."""
    belt = two_loops_belt()
    gate = {"first": "gx", "first_at": "a1", "second": "gy", "second_at": "b1"}
    bigger = {**belt, "gates": [gate]}
    assert belt_memory(bigger) == belt_memory(belt) + BYTES_PER_GATE_PAIR + 4 * BYTES_PER_ID_CHARACTER
    names = sum(len(a["id"]) for a in belt["asteroids"])
    ends = sum(len(end) for link in belt["links"] for end in link)
    assert belt_memory(belt) == (BYTES_PER_GAME + BYTES_PER_ASTEROID * len(belt["asteroids"])
                                 + BYTES_PER_LINK * len(belt["links"]) + BYTES_PER_ID_CHARACTER * names
                                 + BYTES_PER_LINK_CHARACTER * ends)
    assert belt_memory("not a belt") == BYTES_PER_GAME
    assert belt_memory({**belt, "links": "not a list", "gates": [1, "x"]}) == (
        belt_memory({**belt, "links": []}) + 2 * BYTES_PER_GATE_PAIR)  # items that are not pairs count, ids not


def _wide_belt(id_length: int) -> dict[str, Any]:
    """2,500 asteroids in a ring, each also linked to its 14 next but one: 37,499 links, ids of `id_length`."""
    ids = [f"a{i}".rjust(id_length, "x") for i in range(2_500)]
    links = [[ids[i], ids[i + 1]] for i in range(len(ids) - 1)]
    links += [[ids[i], ids[(i + k) % len(ids)]] for k in range(2, 16) for i in range(len(ids))]
    return {"format": "asteroid-mining/belt", "version": 1, "name": "Wide", "start": ids[0],
            "asteroids": [{"id": aid, "mantle": 1, "core": "iron", "orbit": {"sun": "far"}} for aid in ids],
            "links": links, "gates": []}


def test_belt_memory_counts_many_links_of_long_ids_at_what_they_hold() -> None:
    """`belt_memory` counted a link at 64 bytes and ids not at all: a game on 2,500 asteroids with 37,499 links of
    24-character ids (a 3 MB body, accepted) grew the server's RSS by 18.3 MB and was counted 9.1 MB, so
    `max_live_bytes` let twice the memory it names be taken. Links are counted at what they were measured to hold,
    and ids by their characters."""
    short, long = _wide_belt(6), _wide_belt(24)
    assert belt_memory(long) > belt_memory(short)
    assert belt_memory(long) >= 18_300_000  # the RSS growth measured for one game of it, played once
    assert belt_memory(short) >= 179 * len(short["links"]) + 2_048 * len(short["asteroids"])


def test_a_game_of_bots_only_ends_after_max_game_rounds(tmp_path: Path) -> None:
    """A game whose every seat is a bot has no token to abandon it with: it played on for as long as anyone
    watched, its log growing without end. Once its round `max_game_rounds` is over, the server ends it as
    abandoned (seat 0): stored so, every connection told with `ended`, no more commands, listed as ended."""
    limit = 2
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        max_game_rounds=limit)
    with TestClient(create_app(settings)) as client:
        game = client.post("/api/games", json={"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                               "seed": 5, "bots": {"1": "planner", "2": "planner"}}).json()
        assert all(seat["token"] is None for seat in game["seats"])
        past = 0
        with client.websocket_connect(f"/api/games/{game['id']}/ws") as spectator:  # the bots play while watched
            for _ in range(1_000):
                message = spectator.receive_json()
                if message["type"] == "ended":
                    break
                if message["type"] == "update":
                    assert message["diff"]["status"] == "running", "the game ended by its rules first"
                    past += message["diff"]["round"] > limit
                    assert past <= 1, "a command was played after round max_game_rounds was over"
            else:
                raise AssertionError("the game never ended")
        assert message == {"type": "ended", "seq": message["seq"], "status": "abandoned", "by": {"seat": 0}}
        detail = client.get(f"/api/games/{game['id']}").json()
        assert detail["status"] == "abandoned" and detail["round"] == limit + 1 and detail["seq"] == message["seq"]
        log = client.get(f"/api/games/{game['id']}/log").json()  # public once the game has ended
        assert log["status"] == "abandoned" and len(log["commands"]) == message["seq"]
        assert game["id"] not in {g["id"] for g in client.get("/api/games").json()["games"]}
        assert game["id"] not in client.app.state.hub.games  # type: ignore[attr-defined]  # let go: nobody watches


def test_a_game_past_max_game_rounds_ends_when_the_server_starts(tmp_path: Path) -> None:
    """A running game already past `max_game_rounds` when the server starts (the limit lowered, or a game from
    before it) is ended by its owner at once, watched or not: stored as abandoned, out of the lobby."""
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static")
    with TestClient(create_app(settings)) as client:
        game = client.post("/api/games", json={"seats": 1, "settlers_per_seat": 2, "belt": two_loops_belt(),
                                               "seed": 5, "bots": {"1": "planner"}}).json()
        with client.websocket_connect(f"/api/games/{game['id']}/ws") as spectator:
            for _ in range(1_000):  # (the planner wins this belt in 13 rounds)
                message = spectator.receive_json()
                assert message["type"] != "update" or message["diff"]["status"] == "running", message
                if message["type"] == "update" and message["diff"]["round"] >= 3:
                    break
    with TestClient(create_app(settings.with_changes(max_game_rounds=1))) as client:
        deadline = time.monotonic() + 60  # the owner ends it in its first step after start-up
        while (status := client.get(f"/api/games/{game['id']}").json()["status"]) != "abandoned":
            assert time.monotonic() < deadline, status
            time.sleep(0.02)
        assert game["id"] not in {g["id"] for g in client.get("/api/games").json()["games"]}
        assert _in_server(client, client.app.state.hub.store.unfinished) == []  # type: ignore[attr-defined]
