"""Regression tests of the WebSocket side's hardening (in process): games acquired and released on every path,
one ref one effect, bounded answers to `sync`. Each failed before its fix."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import TYPE_CHECKING, Any

import pytest
from starlette.websockets import WebSocketDisconnect

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server import live as live_module
from asteroid_mining.server.outbox import MESSAGE_OVERHEAD, Outbox, SendBudget
from asteroid_mining.server.play import SYNC_BURST

from .helpers import in_process, two_loops_belt

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


def ws_path(game: dict[str, Any], seat: int | None = None, token: str | None = None) -> str:
    path = f"/api/games/{game['id']}/ws"
    if token is not None:
        return f"{path}?token={token}"
    return f"{path}?token={game['seats'][seat - 1]['token']}" if seat else path


def app_client(settings: Settings) -> TestClient:
    from fastapi.testclient import TestClient

    return TestClient(create_app(settings))


def new_game(client: TestClient, seats: int = 1) -> dict[str, Any]:
    answer = client.post("/api/games", json={"seats": seats, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                             "seed": 3})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


# ----- a wrong token for a finished game: the game is let go again -----
def test_bad_tokens_for_finished_games_leave_nothing_held(client: TestClient) -> None:
    hub = client.app.state.hub  # type: ignore[attr-defined]
    games = [new_game(client) for _ in range(4)]
    for game in games:  # finished: abandoned by their seat, then let go by the hub (nobody is connected)
        token = game["seats"][0]["token"]
        assert client.post(f"/api/games/{game['id']}/abandon", json={"token": token}).status_code == 200
    held = len(hub.games)
    assert not any(game["id"] in hub.games for game in games)
    for game in games:
        for _ in range(3):
            with client.websocket_connect(ws_path(game, token="not-a-token")) as session:
                answer = session.receive_json()
                assert answer["code"] == "bad_token"
                with pytest.raises(WebSocketDisconnect) as closed:
                    session.receive_json()
                assert closed.value.code == 4401
    assert len(hub.games) == held
    assert not any(game["id"] in hub.games for game in games)


def test_every_refusal_after_loading_lets_the_game_go(settings: Settings) -> None:
    """The other paths that load a game and refuse the connection: a game full of connections."""
    with app_client(settings.with_changes(max_connections_per_game=1)) as client:
        hub = client.app.state.hub  # type: ignore[attr-defined]
        game = new_game(client)
        token = game["seats"][0]["token"]
        assert client.post(f"/api/games/{game['id']}/abandon", json={"token": token}).status_code == 200
        with client.websocket_connect(ws_path(game)) as watcher:
            assert watcher.receive_json()["type"] == "state"
            with client.websocket_connect(ws_path(game)) as second:
                assert second.receive_json()["code"] == "too_many_connections"
        assert game["id"] not in hub.games


# ----- one ref, one effect -----
def test_an_act_sent_again_with_its_ref_is_played_once(client: TestClient) -> None:
    game = new_game(client)
    with client.websocket_connect(ws_path(game, 1)) as session:
        me = in_process(session)
        me.next_of("state")
        me.act("s1", "wait", ref="r-1")
        first = me.next_of("update")
        assert first["seq"] == 1 and first["ref"] == "r-1"
        me.act("s1", "wait", ref="r-1")  # the answer was lost: the client sends it again, as the docs tell it to
        again = me.next()
        assert again == {"type": "ack", "ref": "r-1", "seq": 1}
        me.act("s1", "wait", ref="r-2")  # a new ref is a new command
        assert me.next_of("update")["seq"] == 2
    steps = client.get(f"/api/games/{game['id']}/events").json()["steps"]
    assert [step["seq"] for step in steps] == [1, 2]
    assert [step["by"].get("ref") for step in steps] == ["r-1", "r-2"]  # stored with the command


def test_a_ref_is_recognised_after_a_restart(settings: Settings) -> None:
    with app_client(settings) as client:
        game = new_game(client)
        with client.websocket_connect(ws_path(game, 1)) as session:
            me = in_process(session)
            me.next_of("state")
            me.act("s1", "wait", ref=41)
            assert me.next_of("update")["seq"] == 1
    with app_client(settings) as client, client.websocket_connect(ws_path(game, 1)) as session:
        me = in_process(session)
        me.next_of("state")
        me.act("s1", "wait", ref=41)
        assert me.next() == {"type": "ack", "ref": 41, "seq": 1}
        assert client.get(f"/api/games/{game['id']}").json()["seq"] == 1


def test_a_ref_played_before_a_snapshot_is_recognised_after_a_restart(settings: Settings) -> None:
    settings = dataclasses.replace(settings, snapshot_every=2)
    with app_client(settings) as client:
        game = new_game(client)
        with client.websocket_connect(ws_path(game, 1)) as session:
            me = in_process(session)
            me.next_of("state")
            for seq, ref in enumerate((41, 42, 43), start=1):
                me.act("s1", "wait", ref=ref)
                assert me.next_of("update")["seq"] == seq
    with app_client(settings) as client, client.websocket_connect(ws_path(game, 1)) as session:
        me = in_process(session)
        me.next_of("state")
        for seq, ref in enumerate((41, 42, 43), start=1):  # before the snapshot at seq 2, at it, after it
            me.act("s1", "wait", ref=ref)
            assert me.next() == {"type": "ack", "ref": ref, "seq": seq}
        assert client.get(f"/api/games/{game['id']}").json()["seq"] == 3


def test_a_ref_belongs_to_its_seat(client: TestClient) -> None:
    game = new_game(client, seats=2)
    with client.websocket_connect(ws_path(game, 1)) as s1, client.websocket_connect(ws_path(game, 2)) as s2:
        one, two = in_process(s1), in_process(s2)
        one.next_of("state")
        two.next_of("state")
        one.act("s1", "wait", ref=7)
        assert one.next_of("update")["seq"] == 1
        assert two.next_of("update")["seq"] == 1
        two.act("s2", "wait", ref=7)  # the same ref from another seat: another command
        assert two.next_of("update")["seq"] == 2
        one.act("s1", "wait", ref=7)
        assert one.next_of("ack") == {"type": "ack", "ref": 7, "seq": 1}
        s1.send_text(json.dumps({"type": "act", "settler": "s1", "action": "wait", "ref": 8}))
        assert one.next_of("update")["seq"] == 3


# ----- every buffer of a connection is bounded in bytes -----
class Wire:
    """An ASGI send that waits, like a socket whose client reads nothing, until `reading` is set."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.reading = asyncio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        await self.reading.wait()
        self.sent.append(message["text"])


async def settle() -> None:
    """Let every ready task run until it waits (a number of loop iterations, no clock)."""
    for _ in range(10):
        await asyncio.sleep(0)


def test_an_outbox_is_bounded_in_bytes_not_only_in_messages() -> None:
    async def scenario() -> None:
        wire, cut = Wire(), []
        box = Outbox(1_000, wire.send, limit_bytes=10_000, cut_off=lambda: cut.append(True))
        runner = asyncio.create_task(box.run())
        box.put("x" * 4_000)  # waits on the wire
        box.put("y" * 4_000)  # queued: 8 KB waiting
        assert not box.overflowed and box.waiting == 8_000 + 2 * MESSAGE_OVERHEAD
        box.put("z" * 4_000)  # 12 KB would wait, far fewer than 1,000 messages
        assert box.overflowed and box.closed and cut == [True]
        assert box.waiting == 0  # the queue is dropped; the one on the wire goes, or the socket is aborted
        wire.reading.set()
        await asyncio.wait_for(runner, 10)
        assert box.waiting == 0 and [len(t) for t in wire.sent] == [4_000]

    asyncio.run(scenario())


def test_the_process_budget_cuts_off_the_client_with_the_most_waiting() -> None:
    async def scenario() -> None:
        budget = SendBudget(30_000)
        wires = [Wire() for _ in range(3)]
        boxes = [Outbox(1_000, wire.send, limit_bytes=1_000_000, budget=budget) for wire in wires]
        runners = [asyncio.create_task(box.run()) for box in boxes]
        for _ in range(3):  # the greedy one: 15 KB and more waiting
            boxes[0].put("g" * 5_000)
        boxes[1].put("a" * 5_000)
        boxes[2].put("b" * 5_000)
        assert budget.waiting <= 30_000 and not any(box.overflowed for box in boxes)
        boxes[1].put("a" * 5_000)  # past the budget: the one with the most waiting goes, not this one
        assert boxes[0].overflowed and not boxes[1].overflowed and not boxes[2].overflowed
        assert budget.waiting == sum(box.waiting for box in boxes) <= 30_000
        boxes[2].put("c" * 40_000)  # a message larger than anyone's backlog: its own connection goes
        assert boxes[2].overflowed and not boxes[1].overflowed
        for wire in wires:
            wire.reading.set()
        for box in boxes:
            box.close()
        await asyncio.wait_for(asyncio.gather(*runners), 10)
        assert budget.waiting == 0  # everything sent or dropped is given back

    asyncio.run(scenario())


def test_a_client_cut_off_counts_no_more_in_the_budget() -> None:
    """A client cut off may keep its message on the way until its socket closes; the budget is for the others (it
    once counted that message still, and cutting off "the largest" again did nothing: the loop never ended)."""
    async def scenario() -> None:
        budget = SendBudget(10_000)
        first, second = Wire(), Wire()
        a = Outbox(1_000, first.send, budget=budget)
        b = Outbox(1_000, second.send, budget=budget)
        runners = [asyncio.create_task(box.run()) for box in (a, b)]
        a.put("a" * 6_000)  # on the way, waiting for a client that does not read
        b.put("b" * 3_000)
        a.put("a" * 3_000)  # past the budget, and `a` holds the most: `a` goes
        assert a.overflowed and not b.overflowed
        assert budget.waiting == b.waiting == 3_000 + MESSAGE_OVERHEAD
        b.put("b" * 2_000)  # fits now
        assert not b.overflowed and budget.waiting == 5_000 + 2 * MESSAGE_OVERHEAD
        first.reading.set()
        second.reading.set()
        b.close()
        await asyncio.wait_for(asyncio.gather(*runners), 10)
        assert budget.waiting == 0

    asyncio.run(scenario())


def test_a_cancelled_sender_gives_its_bytes_back() -> None:
    async def scenario() -> None:
        budget = SendBudget(1_000_000)
        wire = Wire()
        box = Outbox(1_000, wire.send, budget=budget)
        runner = asyncio.create_task(box.run())
        for _ in range(5):
            box.put("q" * 1_000)
        await settle()
        assert budget.waiting > 5_000
        runner.cancel()  # the connection has gone
        with pytest.raises(asyncio.CancelledError):
            await runner
        assert budget.waiting == 0 and box.waiting == 0

    asyncio.run(scenario())


# ----- answers to `sync`: bounded, and syncs rate limited on their own -----
def test_a_sync_from_beyond_the_kept_text_gets_the_state(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live_module, "SYNC_BUFFER_BYTES", 1_000)  # a few updates' text (each about 250 bytes)
    game = new_game(client)
    with client.websocket_connect(ws_path(game, 1)) as session:
        me = in_process(session)
        me.next_of("state")
        for i in range(8):
            me.act("s1", "wait", ref=i)
            me.next_of("update")
        live = client.app.state.hub.games[game["id"]]  # type: ignore[attr-defined]
        kept = [seq for seq, _ in live._recent]
        assert sum(len(text) for _, text in live._recent) <= 1_000
        assert kept[-1] == 8 and 1 < len(kept) < 8  # bounded by its text, not only by `sync_buffer` (128)
        me.send({"type": "sync", "after": kept[0] - 1})
        assert [me._receive(10)["seq"] for _ in kept] == kept  # updates, when they are kept
        me.send({"type": "sync", "after": kept[0] - 2})
        answer = me._receive(10)  # from further back than the kept text: one state, not a long list of updates
        assert answer["type"] == "state" and answer["seq"] == 8


def test_syncs_have_a_rate_limit_of_their_own(settings: Settings) -> None:
    with app_client(settings.with_changes(sync_per_second=0.0)) as client:
        game = new_game(client)
        with client.websocket_connect(ws_path(game)) as session:
            me = in_process(session)
            me.next_of("state")
            for _ in range(SYNC_BURST):  # each answered with the whole state
                me.send({"type": "sync", "after": 10**6})
                assert me.next()["type"] == "state"
            me.send({"type": "sync", "after": 10**6})
            answer = me.next()
            assert answer["type"] == "error" and answer["code"] == "rate_limited"
            assert "sync" in answer["message"]
