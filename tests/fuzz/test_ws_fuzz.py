"""The WebSocket protocol under mutated messages, from players and a spectator of one game at once.

After each example every client is brought up to date: no client may have seen a gap in the seqs of its
updates, and every client's view (its `state` with every update's diff applied) must be the server's view.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ..server.helpers import apply_diff, in_process, two_loops_belt
from .conftest import EXAMPLES, LogWatch, fuzz_settings
from .mutations import STRINGS, mutated
from .support import IDS, client_messages

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

SENTINEL = "end-of-example"


class Client:
    """One WebSocket client: its view kept up to date, and the gap check.

    An update must come right after the last one (`seq` + 1), or be one sent again because the client asked
    (`sync` after an earlier seq): then it must be the very update sent the first time (but for the
    connection's own fields: its `ref` and its settlers' `choices`). A seq beyond the next is
    a gap, and fails.
    """

    def __init__(self, session: Any) -> None:
        self.session = session
        self._receive = in_process(session)._receive
        self.view: dict[str, Any] | None = None
        self.seq = -1
        self.seen: dict[int, dict[str, Any]] = {}

    def next(self, timeout: float) -> dict[str, Any]:
        message = self._receive(timeout)
        if message["type"] == "state":
            self.view, self.seq = message["state"], message["seq"]
        elif message["type"] == "update":
            seq = message["seq"]
            assert seq <= self.seq + 1, f"a gap: update {seq} after {self.seq}"
            if seq == self.seq + 1:
                EXAMPLES["ws: updates (seen)"] += 1
                assert self.view is not None
                apply_diff(self.view, message["diff"])
                self.seq = seq
                self.seen[seq] = {k: v for k, v in message.items() if k not in ("ref", "choices")}
            else:
                first = self.seen.get(seq)
                assert first is None or first == {k: v for k, v in message.items() if k not in ("ref", "choices")}, seq
        return message

    def next_of(self, kind: str) -> dict[str, Any]:
        while True:
            message = self.next(10)
            if message["type"] == kind:
                return message


class Table:
    """One game and three clients of it (seat 1, seat 2, a spectator); a new game once it is over."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.game: dict[str, Any] = {}
        self.players: list[Client] = []
        self._sessions: list[Any] = []

    def ready(self) -> list[Client]:
        if self.players and self.detail()["status"] in ("open", "running"):
            return self.players
        self.close()
        body = {"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": len(self.game)}
        self.game = self.client.post("/api/games", json=body).json()
        for seat in (1, 2, None):
            token = f"?token={self.game['seats'][seat - 1]['token']}" if seat else ""
            session = self.client.websocket_connect(f"/api/games/{self.game['id']}/ws{token}")
            session.__enter__()
            self._sessions.append(session)
            player = Client(session)
            player.next_of("state")
            self.players.append(player)
        return self.players

    def detail(self) -> dict[str, Any]:
        answer = self.client.get(f"/api/games/{self.game['id']}")
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def close(self) -> None:
        for session in self._sessions:
            session.__exit__(None, None, None)
        self._sessions, self.players = [], []


@pytest.fixture(scope="module")
def table(client: TestClient) -> Iterator[Table]:
    table = Table(client)
    yield table
    table.close()


def valid_act(view: dict[str, Any], choice: int) -> dict[str, Any] | None:
    """An `act` for the settler whose turn it is (legal or not: a move, a drill, a mine or a wait)."""
    turn = view.get("turn")
    if turn is None:
        return None
    action = ["wait", "wait", "move", "move", "drill", "mine"][choice % 6]
    act: dict[str, Any] = {"type": "act", "settler": turn, "action": action}
    if action == "move":
        act["target"] = IDS[choice % len(IDS)]
    return act


SENDS = st.lists(st.tuples(
    st.integers(0, 2),  # which client sends
    st.one_of(
        mutated(client_messages()),  # a message from the schemas, maybe changed
        st.integers(0, 1000).map(lambda n: ("valid", n)),  # a proper act of whoever's turn it is
        st.integers(0, 1000).map(lambda n: ("valid", n)),  # (twice: as likely as a mutated message)
        STRINGS,  # not JSON at all
        st.binary(max_size=64),  # not text at all
        st.integers(16 * 1024, 70 * 1024).map(lambda n: json.dumps({"type": "sync", "after": 0, "pad": "x" * n})),
    ),
), min_size=1, max_size=12)


@fuzz_settings(ci_examples=60)
@given(sends=SENDS)
def test_messages(table: Table, log_watch: LogWatch, sends: list[tuple[int, Any]]) -> None:
    EXAMPLES["ws: examples"] += 1
    players = table.ready()
    for who, message in sends:
        EXAMPLES["ws: messages (sent)"] += 1
        session = players[who].session
        if isinstance(message, tuple):
            assert players[0].view is not None
            act = valid_act(players[0].view, message[1])
            if act is not None:  # from the seat that plays it
                players[0 if act["settler"] == "s1" else 1].session.send_text(json.dumps(act))
        elif isinstance(message, bytes):
            session.send_bytes(message)
        else:
            session.send_text(message)
        for player in players:  # take in what has arrived so far, checking the seqs as they come
            drain(player, until=None)
    for i, player in enumerate(players):  # every message sent before this one has been read by the server
        player.session.send_text(json.dumps({"type": "act", "settler": "zz", "action": "wait",
                                             "ref": f"{SENTINEL}-{i}"}))
        drain(player, until=f"{SENTINEL}-{i}")
    catch_up(table, players)
    log_watch.check()


def drain(player: Client, until: str | None) -> None:
    """Read what is there (until is None) or up to the error answering `until`; Player checks every seq."""
    while True:
        if until is None:
            try:
                message = player.next(0.001)
            except TimeoutError:
                return
        else:
            message = player.next(10)
        assert message["type"] in ("state", "update", "error"), message
        if message["type"] == "error":
            assert message["code"] and message["message"] and "Traceback" not in message["message"]
            if until is not None and message.get("ref") == until:
                return


def catch_up(table: Table, players: list[Client]) -> None:
    """Wait (a bounded time) until the game has no command in hand and every client has its last update; then
    every client's view must be the server's."""
    deadline = time.monotonic() + 60
    while True:
        detail = table.detail()
        behind = [p for p in players if p.seq != detail["seq"]]
        live = table.client.app.state.hub.games.get(table.game["id"])  # type: ignore[attr-defined]
        if not behind and (live is None or not live._inbox):
            break
        assert time.monotonic() < deadline, f"clients at {[p.seq for p in players]}, the game at {detail['seq']}"
        for player in behind:
            with contextlib.suppress(TimeoutError):
                player.next(0.05)
    for player in players:
        assert player.view == detail["state"]
