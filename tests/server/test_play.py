"""Playing over the WebSocket, in process (Starlette's TestClient)."""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from starlette.websockets import WebSocketDisconnect

from .helpers import PLANS, Player, in_process, play_plan, stored_log, two_loops_belt, winning_seed

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


def ws_path(game: dict[str, Any], seat: int | None = None, choices: bool = True) -> str:
    path = f"/api/games/{game['id']}/ws"
    path = f"{path}?token={game['seats'][seat - 1]['token']}" if seat else f"{path}?"
    return path if choices else f"{path}&choices=false"


class Sessions:
    """The test's WebSocket clients, all closed at its end (even when it fails: no client left hanging)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.open: list[Player] = []

    def __call__(self, game: dict[str, Any], seat: int | None = None, choices: bool = True) -> Player:
        session = self.client.websocket_connect(ws_path(game, seat, choices))
        session.__enter__()
        player = in_process(session)
        self.open.append(player)
        assert player.next()["type"] == "state"
        return player

    def close(self, player: Player) -> None:
        if player in self.open:
            self.open.remove(player)
            player.session.__exit__(None, None, None)


@pytest.fixture
def connect(client: TestClient) -> Iterator[Sessions]:
    sessions = Sessions(client)
    yield sessions
    for player in list(sessions.open):
        sessions.close(player)


def test_a_full_game_to_a_win(client: TestClient, two_seats: dict[str, Any], connect: Sessions) -> None:
    one = connect(two_seats, 1)
    two = connect(two_seats, 2)
    watcher = connect(two_seats)
    assert one.you == {"seat": 1, "settlers": ["s1"]} and watcher.you is None
    last = play_plan({"s1": one, "s2": two}, PLANS)
    watcher_last = watcher.messages
    while watcher.seq < last["seq"]:
        watcher.next()
    assert last["diff"]["status"] == "won"
    assert any(event["type"] == "won" for event in last["events"])
    assert last["seq"] == 26
    final = client.get(f"/api/games/{two_seats['id']}").json()
    # every client's view, built from diffs, is the server's view
    assert one.view == two.view == watcher.view == final["state"]
    assert final["status"] == "won" and final["seq"] == 26
    assert watcher_last
    # a finished game leaves the lobby but can still be read and replayed
    assert client.get("/api/games").json()["games"] == []
    log = client.get(f"/api/games/{two_seats['id']}/log").json()
    assert [c["seq"] for c in log["commands"]] == list(range(1, 27))


def test_refusals_change_nothing_and_keep_the_connection(client: TestClient, two_seats: dict[str, Any],
                                                         connect: Sessions) -> None:
    one = connect(two_seats, 1)
    before = client.get(f"/api/games/{two_seats['id']}").json()

    def refused(message: Any, code: str, field: str | None = None) -> dict[str, Any]:
        one.send(message) if isinstance(message, dict) else one.session.send_text(message)
        answer = one.next()
        assert answer["type"] == "error" and answer["code"] == code, answer
        assert answer.get("field") == field, answer
        return answer

    refused({"type": "act", "settler": "s2", "action": "wait"}, "not_your_settler", "settler")
    refused({"type": "act", "settler": "s1", "action": "mine"}, "core_hollow")  # Home is hollow (R11)
    refused({"type": "act", "settler": "s1", "action": "move", "target": "b3"}, "not_neighbour")
    refused("{not json", "invalid")
    refused("[1, 2]", "invalid")
    refused({"type": "jump"}, "unknown_type", "type")
    refused({"settler": "s1"}, "invalid", "type")
    refused({"type": "act", "settler": "s1", "action": "wait", "colour": "red"}, "invalid", "colour")
    refused({"type": "act", "settler": "s1", "action": "fly"}, "invalid", "action")
    refused({"type": "act", "settler": 1, "action": "wait"}, "invalid", "settler")
    refused({"type": "act", "settler": "s1", "action": "move"}, "invalid", "target")
    refused({"type": "act", "settler": "s1", "action": "drill", "target": "a1"}, "invalid", "target")
    refused({"type": "sync", "after": -1}, "invalid", "after")
    too_big = json.dumps({"type": "act", "settler": "s1", "action": "wait", "ref": "x" * 60, "pad": "y" * 70_000})
    refused(too_big, "too_large")
    one.session.send_bytes(b'{"type": "sync", "after": 0}')
    assert one.next()["code"] == "invalid"
    answer = refused({"type": "act", "settler": "s1", "action": "deposit", "kind": "ice", "ref": 7}, "not_carried")
    assert answer["ref"] == 7
    after = client.get(f"/api/games/{two_seats['id']}").json()
    assert after == before
    # still usable: a legal action is played
    one.act("s1", "move", target="a1", ref="go")
    update = one.next()
    assert update["type"] == "update" and update["seq"] == 1 and update["ref"] == "go"
    assert update["action"] == {"type": "move", "actor": "s1", "target": "a1"}
    # out of turn: it is s2's step now (R9a)
    refused({"type": "act", "settler": "s1", "action": "mine"}, "not_your_turn")


def test_wrong_token_is_told_and_closed(client: TestClient, two_seats: dict[str, Any]) -> None:
    with client.websocket_connect(f"/api/games/{two_seats['id']}/ws?token=guess") as session:
        answer = session.receive_json()
        assert answer == {"type": "error", "code": "bad_token", "message": "this token plays no seat of this game"}
        with pytest.raises(WebSocketDisconnect) as closed:
            session.receive_json()
        assert closed.value.code == 4401


def test_unknown_game_is_told_and_closed(client: TestClient) -> None:
    with client.websocket_connect("/api/games/nosuchgame/ws") as session:
        assert session.receive_json()["code"] == "game_not_found"
        with pytest.raises(WebSocketDisconnect) as closed:
            session.receive_json()
        assert closed.value.code == 4404


def test_spectators_only_watch(client: TestClient, two_seats: dict[str, Any], connect: Sessions) -> None:
    watcher = connect(two_seats)
    watcher.act("s1", "wait")
    assert watcher.next()["code"] == "read_only"
    one = connect(two_seats, 1)
    one.act("s1", "wait")
    assert one.next()["seq"] == 1
    assert watcher.next()["seq"] == 1  # but they see everything


def test_reconnect_and_sync(client: TestClient, two_seats: dict[str, Any], connect: Sessions) -> None:
    one = connect(two_seats, 1)
    two = connect(two_seats, 2)
    play_plan({"s1": one, "s2": two}, PLANS, steps=4)
    connect.close(two)
    play_plan({"s1": one}, {"s1": PLANS["s1"][2:]}, steps=1)  # s1's step while seat 2 is away
    assert one.seq == 5
    # back again: the state comes first; then a sync from what it had resends only what it missed
    again = connect(two_seats, 2)
    assert again.seq == 5 and again.view == one.view
    again.seq, again.view = 4, two.view
    again.send({"type": "sync", "after": 4})
    missed = again.next()
    assert missed["type"] == "update" and missed["seq"] == 5
    assert again.view == one.view
    # a sync from before what the server keeps, or from the future, gets the whole state
    again.send({"type": "sync", "after": 99})
    assert again.next()["type"] == "state"


class GameClock:
    """The clock of live games (`live.time`): stands still until a test moves it, so that a turn timer fires when
    the test says, and only then — however busy the machine. Waits in between are real, but only bounded."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return 1_700_000_000.0 + self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def game_clock(monkeypatch: pytest.MonkeyPatch) -> GameClock:
    from asteroid_mining.server import live

    clock = GameClock()
    monkeypatch.setattr(live, "time", clock)
    return clock


def test_turn_timer_waits_for_the_idle(client: TestClient, connect: Sessions, game_clock: GameClock) -> None:
    game = client.post("/api/games", json={"seats": 2, "settlers_per_seat": 1, "turn_seconds": 0.3,
                                           "seed": 1}).json()
    one = connect(game, 1)
    assert one.messages[0]["deadline"] == round(game_clock.time() + 0.3, 3)
    # before the deadline the timer has not played: an action the rules refuse, sent now, is refused by the
    # game's owner (which plays the timer too) before any update
    one.act("s1", "mine")
    refusal = one.next(timeout=30)
    assert refusal["type"] == "error" and refusal["code"] == "core_hollow" and one.seq == 0
    game_clock.advance(0.3)
    update = one.next_of("update", timeout=30)
    assert update["by"] == {"seat": 1, "auto": "timer"}
    assert update["action"] == {"type": "wait", "actor": "s1"}
    assert update["diff"]["turn"] == "s2"
    assert update["deadline"] == round(game_clock.time() + 0.3, 3)  # s2's turn has its own whole 0.3 s
    game_clock.advance(0.3)
    update = one.next_of("update", timeout=30)
    assert update["by"] == {"seat": 2, "auto": "timer"}
    log = stored_log(client, game["id"])["commands"]
    assert [c["by"].get("auto") for c in log[:2]] == ["timer", "timer"]


def test_the_clock_stands_still_while_nobody_is_connected(client: TestClient, connect: Sessions,
                                                          game_clock: GameClock) -> None:
    game = client.post("/api/games", json={"seats": 1, "turn_seconds": 0.1, "seed": 1}).json()
    game_clock.advance(3600)  # an hour with nobody connected: no turn is due
    detail = client.get(f"/api/games/{game['id']}").json()
    assert detail["seq"] == 0
    one = connect(game, 1)
    # the turn's whole time starts with the first client (not an hour overdue, which would play at once)
    assert one.messages[0]["deadline"] == round(game_clock.time() + 0.1, 3)
    one.act("s1", "wait", ref="mine")
    played = one.next_of("update", timeout=30)
    assert played["seq"] == 1 and played["by"] == {"seat": 1, "ref": "mine"}
    game_clock.advance(0.1)
    assert one.next_of("update", timeout=30)["by"] == {"seat": 1, "auto": "timer"}


class FakeClock:
    """A monotonic clock that moves only when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def frozen_buckets(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Every connection's rate limit runs on one fake clock, which stands still unless a test moves it."""
    from asteroid_mining.server import play
    from asteroid_mining.server.security import TokenBucket

    clock = FakeClock()
    monkeypatch.setattr(play, "TokenBucket", functools.partial(TokenBucket, clock=clock))
    return clock


def test_the_token_bucket_refills_with_its_clock() -> None:
    from asteroid_mining.server.security import TokenBucket

    clock = FakeClock()
    bucket = TokenBucket(rate=4.0, burst=3, clock=clock)
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    clock.now += 0.2  # 0.8 of a token
    assert not bucket.take()
    clock.now += 0.05  # one token
    assert bucket.take() and not bucket.take()
    clock.now += 60  # never more than the burst
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]


def test_rate_limit(client: TestClient, two_seats: dict[str, Any], settings: Any, connect: Sessions,
                    frozen_buckets: FakeClock) -> None:
    one = connect(two_seats, 1)
    for _ in range(settings.rate_burst + 10):
        one.send({"type": "sync", "after": 0})
    codes = [one.next()["code"] for _ in range(10)]
    assert codes == ["rate_limited"] * 10


def test_flooding_closes_the_connection(tmp_path: Any, frozen_buckets: FakeClock) -> None:
    from fastapi.testclient import TestClient

    from asteroid_mining.server import Settings, create_app

    settings = Settings(data_dir=tmp_path, rate_per_second=1, rate_burst=2, rate_violations=5, bot_delay=0)
    with TestClient(create_app(settings)) as client:
        game = client.post("/api/games", json={}).json()
        with client.websocket_connect(ws_path(game, 1)) as session:
            for _ in range(10):
                session.send_json({"type": "sync", "after": 0})
            with pytest.raises(WebSocketDisconnect) as closed:
                while True:
                    session.receive_json()
            assert closed.value.code == 4429


def test_origin_check(client: TestClient, two_seats: dict[str, Any]) -> None:
    from starlette.testclient import WebSocketDenialResponse

    path = ws_path(two_seats, 1)
    with pytest.raises(WebSocketDenialResponse) as denied, client.websocket_connect(
        path, headers={"origin": "https://evil.example"}
    ):
        pass
    assert denied.value.status_code == 403
    assert denied.value.json()["error"]["code"] == "origin_not_allowed"
    with client.websocket_connect(path, headers={"origin": "http://testserver"}) as session:
        assert session.receive_json()["type"] == "state"


def test_allowed_origins(tmp_path: Any) -> None:
    from fastapi.testclient import TestClient

    from asteroid_mining.server import Settings, create_app

    settings = Settings(data_dir=tmp_path, allowed_origins=("https://play.example",))
    with TestClient(create_app(settings)) as client:
        game = client.post("/api/games", json={}).json()
        with client.websocket_connect(ws_path(game, 1), headers={"origin": "https://play.example"}) as session:
            assert session.receive_json()["type"] == "state"


def test_connections_per_game(tmp_path: Any) -> None:
    from fastapi.testclient import TestClient

    from asteroid_mining.server import Settings, create_app

    with TestClient(create_app(Settings(data_dir=tmp_path, max_connections_per_game=2))) as client:
        game = client.post("/api/games", json={}).json()
        with client.websocket_connect(ws_path(game, 1)) as first, client.websocket_connect(ws_path(game)) as second:
            first.receive_json()
            second.receive_json()
            with client.websocket_connect(ws_path(game)) as third:
                assert third.receive_json()["code"] == "too_many_connections"
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.receive_json()
                assert closed.value.code == 4409


def test_connections_per_address(tmp_path: Any) -> None:
    from fastapi.testclient import TestClient

    from asteroid_mining.server import Settings, create_app

    with TestClient(create_app(Settings(data_dir=tmp_path, max_connections_per_client=2))) as client:
        one, two = (client.post("/api/games", json={}).json() for _ in range(2))
        with client.websocket_connect(ws_path(one, 1)) as first, client.websocket_connect(ws_path(two)) as second:
            assert first.receive_json()["type"] == second.receive_json()["type"] == "state"
            with client.websocket_connect(ws_path(one)) as third:
                refusal = third.receive_json()
                assert refusal["code"] == "too_many_client_connections" and "(2)" in refusal["message"]
                with pytest.raises(WebSocketDisconnect) as closed:
                    third.receive_json()
                assert closed.value.code == 4409
            assert client.get("/api/games").json()["games"][0]["seats"][0]["connected"] in (0, 1)
        with client.websocket_connect(ws_path(two, 1)) as again:  # closed ones no longer count
            assert again.receive_json()["type"] == "state"


def test_an_action_that_cannot_be_stored_is_not_played(tmp_path: Any) -> None:
    from fastapi.testclient import TestClient

    from asteroid_mining.server import Settings, create_app
    from asteroid_mining.storage import SqliteStore, StorageError

    class Flaky(SqliteStore):
        fail = False

        async def append(self, *args: Any, **kwargs: Any) -> None:
            if self.fail:
                raise StorageError("disk full")
            await super().append(*args, **kwargs)

    store = Flaky(tmp_path)
    with TestClient(create_app(Settings(data_dir=tmp_path), store=store)) as client:
        game = client.post("/api/games", json={"seats": 2, "settlers_per_seat": 1, "seed": 1}).json()
        before = client.get(f"/api/games/{game['id']}").json()["state"]
        with client.websocket_connect(ws_path(game, 1)) as session:
            one = in_process(session)
            one.next_of("state")
            store.fail = True
            one.act("s1", "wait", ref="w")
            answer = one.next()
            assert answer["type"] == "error" and answer["code"] == "storage_failed" and answer["ref"] == "w"
            assert client.get(f"/api/games/{game['id']}").json()["state"] == before
            store.fail = False
            one.act("s1", "wait")
            assert one.next()["seq"] == 1
        assert [c["seq"] for c in stored_log(client, game["id"])["commands"]] == [1]


def test_a_failure_after_storing_resends_the_whole_state(client: TestClient, two_seats: dict[str, Any],
                                                          monkeypatch: pytest.MonkeyPatch, connect: Sessions) -> None:
    from asteroid_mining.server.diff import ViewTracker

    one = connect(two_seats, 1)
    real = ViewTracker.prepare

    def broken(self: ViewTracker) -> Any:
        monkeypatch.setattr(ViewTracker, "prepare", real)
        raise RuntimeError("a bug")

    monkeypatch.setattr(ViewTracker, "prepare", broken)  # the update is made before the command is stored
    one.act("s1", "move", target="a1")
    state = one.next()
    assert state["type"] == "state" and state["seq"] == 1  # stored, so played: everyone is told so
    assert client.get(f"/api/games/{two_seats['id']}").json()["state"] == state["state"]
    one.send({"type": "sync", "after": 0})
    assert one.next()["type"] == "state"


def test_a_restart_resumes_from_the_snapshot_and_the_log(tmp_path: Any) -> None:
    """Snapshots every 3 commands: after a restart the game is its last snapshot plus the commands after it."""
    from fastapi.testclient import TestClient

    from asteroid_mining.server import Settings, create_app

    settings = Settings(data_dir=tmp_path, snapshot_every=3)
    body = {"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": winning_seed()}
    with TestClient(create_app(settings)) as client:
        game = client.post("/api/games", json=body).json()
        with client.websocket_connect(ws_path(game, 1)) as s1, client.websocket_connect(ws_path(game, 2)) as s2:
            one, two = in_process(s1), in_process(s2)
            one.next_of("state")
            two.next_of("state")
            play_plan({"s1": one, "s2": two}, PLANS, steps=7)
        before = client.get(f"/api/games/{game['id']}").json()
    with sqlite3.connect(tmp_path / "games.sqlite3") as db:
        assert db.execute("SELECT seq FROM snapshots").fetchall() == [(6,)]
    with TestClient(create_app(settings)) as client:
        after = client.get(f"/api/games/{game['id']}").json()
        assert after["state"] == before["state"] == one.view and after["seq"] == 7
        with client.websocket_connect(ws_path(game, 1)) as s1, client.websocket_connect(ws_path(game, 2)) as s2:
            one, two = in_process(s1), in_process(s2)
            one.next_of("state")
            two.next_of("state")
            rest = {"s1": PLANS["s1"][4:], "s2": PLANS["s2"][3:]}
            assert play_plan({"s1": one, "s2": two}, rest)["diff"]["status"] == "won"
        assert len(client.get(f"/api/games/{game['id']}/log").json()["commands"]) == 26
