"""The WebSocket protocol under sizes and rates, not only shapes: long histories asked for with `sync`, clients that
never read while they ask for the most, and floods of pings.

- `test_sync_answers`: a game whose history is longer than the server keeps, and bursts of `sync` from anywhere in
  it: every answer is the updates after `after` (each as it was first sent, the last with the client's choices),
  or one `state`; never more than `sync_buffer` updates or `SYNC_BUFFER_BYTES` of them; the client's view is then
  the server's.
- `test_floods`: a real server (uvicorn, in a thread) with a game in play and a client that reads everything,
  attacked by clients that never read a byte while they send syncs from far ahead, syncs from long ago, acts,
  garbage or pings, each at its own pace. During and after every attack, what waits for each connection is within
  its bounds (the messages queued within `send_buffer_bytes`, the process's within `send_buffer_total_bytes`, its
  socket's unread bytes within the bound plus one message), the reading client sees every update without a gap,
  its view is the server's, and once the attackers are gone nothing waits for them any more.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
import uvicorn
from hypothesis import given
from hypothesis import strategies as st
from websockets.frames import Frame, Opcode
from websockets.sync.client import connect

from asteroid_mining.server import live as live_module
from asteroid_mining.server.main import uvicorn_config
from asteroid_mining.server.outbox import MESSAGE_OVERHEAD

from ..server.helpers import apply_diff, free_port, in_process, two_loops_belt, websocket_handshake
from .conftest import EXAMPLES, LogWatch, fuzz_settings
from .support import fuzz_settings as server_settings

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

DEADLINE = 30.0
"""The most any condition below is waited for."""


# ----- long histories and sync -----
class History:
    """A one-seat game with a long history, and its player's connection."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        body = {"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": 5}
        self.game = client.post("/api/games", json=body).json()
        self.session = client.websocket_connect(f"/api/games/{self.game['id']}/ws?token="
                                                f"{self.game['seats'][0]['token']}")
        self.session.__enter__()
        self.receive = in_process(self.session)._receive
        state = self.receive(10)
        self.view, self.seq = state["state"], state["seq"]
        self.sent: dict[int, dict[str, Any]] = {}
        self.play(200)  # longer than the 128 updates a game keeps

    def play(self, count: int) -> None:
        for _ in range(count):
            if self.view["status"] != "running":
                return
            self.session.send_text(json.dumps({"type": "act", "settler": self.view["turn"], "action": "wait"}))
            while True:
                message = self.receive(10)
                if message["type"] == "update":
                    assert message["seq"] == self.seq + 1
                    apply_diff(self.view, message["diff"])
                    self.seq = message["seq"]
                    self.sent[self.seq] = {k: v for k, v in message.items() if k != "choices"}
                    break

    def close(self) -> None:
        self.session.__exit__(None, None, None)


@pytest.fixture(scope="module")
def history(client: TestClient) -> Iterator[History]:
    found = History(client)
    yield found
    found.close()


@fuzz_settings(ci_examples=25)
@given(more=st.integers(0, 12), afters=st.lists(st.integers(-3, 260), min_size=1, max_size=6))
def test_sync_answers(history: History, log_watch: LogWatch, more: int, afters: list[int]) -> None:
    EXAMPLES["ws rates: sync examples"] += 1
    history.play(more)
    for after in afters:
        after = max(0, after)
        EXAMPLES["ws rates: syncs (sent)"] += 1
        history.session.send_text(json.dumps({"type": "sync", "after": after}))
        if after == history.seq:
            continue  # nothing missed: nothing is sent
        first = history.receive(10)
        if first["type"] == "error":  # the syncs' own rate limit
            assert first["code"] == "rate_limited", first
            continue
        if first["type"] == "state":
            EXAMPLES["ws rates: syncs (answered: the state)"] += 1
            assert first["seq"] == history.seq and first["state"] == history.view
            continue
        updates, total = [first], len(json.dumps(first))
        while updates[-1]["seq"] < history.seq:
            updates.append(history.receive(10))
            total += len(json.dumps(updates[-1]))
        EXAMPLES["ws rates: syncs (answered: updates)"] += 1
        assert [u["seq"] for u in updates] == list(range(after + 1, history.seq + 1))
        assert len(updates) <= 128
        assert total - len(json.dumps(updates[-1].get("choices", {}))) <= live_module.SYNC_BUFFER_BYTES + 64 * len(
            updates)  # (the text as kept; json.dumps adds spaces)
        for update in updates:
            assert {k: v for k, v in update.items() if k != "choices"} == history.sent[update["seq"]]
    detail = history.client.get(f"/api/games/{history.game['id']}").json()
    assert detail["seq"] == history.seq and detail["state"] == history.view
    log_watch.check()


# ----- clients that never read, and floods -----
def client_frame(opcode: int, payload: bytes) -> bytes:
    """A client's frame (masked, FIN set) as it goes on the wire; text frames are not checked for UTF-8."""
    return Frame(Opcode(opcode), payload).serialize(mask=True)


class Served:
    """The app on a real uvicorn server (as `serve` configures it) in a thread, with a game in play and a client
    that reads everything."""

    def __init__(self, data: Path) -> None:
        self.settings = server_settings(data).with_changes(port=free_port(), send_buffer_bytes=256 * 1024,
                                                           send_buffer_total_bytes=1024 * 1024,
                                                           sync_per_second=100_000.0)
        self.server = uvicorn.Server(uvicorn_config(self.settings, lifespan="on"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + DEADLINE
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.01)
        self.url = f"http://127.0.0.1:{self.settings.port}"
        self.app: Any = self.server.config.loaded_app
        # the standard belt: a `state` of some 65 KB, so that a few hundred answers are more than the sockets take
        body = {"seats": 2, "settlers_per_seat": 1, "belt": "standard", "seed": 7, "bots": {"2": "random"}}
        self.game = httpx.post(f"{self.url}/api/games", json=body, timeout=DEADLINE).json()
        self.path = f"/api/games/{self.game['id']}/ws"
        self.exits = contextlib.ExitStack()
        self.reader = self.exits.enter_context(connect(
            f"ws://127.0.0.1:{self.settings.port}{self.path}?token={self.game['seats'][0]['token']}",
            open_timeout=DEADLINE, max_size=None))
        state = json.loads(self.reader.recv(timeout=DEADLINE))
        self.view, self.seq, self.largest = state["state"], state["seq"], len(json.dumps(state))
        hub = self.app.state.hub
        self.live = hub.games[self.game["id"]]
        assert self.live._task is not None
        self.loop = self.live._task.get_loop()

    def on_loop(self, work: Any) -> Any:
        """`work()` run on the server's event loop (its objects are that loop's alone)."""
        async def run() -> Any:
            return work()

        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(DEADLINE)

    def waiting(self) -> list[tuple[int, int]]:
        """Each connection's bytes waiting in its outbox and in its socket, and the process's total last."""
        def measure() -> list[tuple[int, int]]:
            hub = self.app.state.hub
            found = []
            for live in hub.games.values():
                for conn in live.connections:
                    buffered = conn.outbox._buffered() if conn.outbox._buffered is not None else 0
                    found.append((conn.outbox.waiting, buffered))
            found.append((hub.send_budget.waiting, 0))
            return found

        result: list[tuple[int, int]] = self.on_loop(measure)
        return result

    def check_bounds(self) -> None:
        *each, (total, _) = self.waiting()
        assert total <= self.settings.send_buffer_total_bytes
        assert total >= sum(waiting for waiting, _ in each)  # (a connection closed meanwhile may still hold some)
        for waiting, buffered in each:
            assert waiting <= self.settings.send_buffer_bytes
            # written at once only below the socket's high-water mark: the bound, plus one message, plus pongs
            assert buffered <= self.settings.send_buffer_bytes + self.largest + MESSAGE_OVERHEAD + 256 * 1024

    def read_updates(self) -> None:
        """Take in what the reading client has been sent, checking every seq."""
        while True:
            try:
                message = json.loads(self.reader.recv(timeout=0.05))
            except TimeoutError:
                return
            if message["type"] == "update":
                assert message["seq"] == self.seq + 1, f"a gap: {message['seq']} after {self.seq}"
                apply_diff(self.view, message["diff"])
                self.seq = message["seq"]
                self.largest = max(self.largest, len(json.dumps(message)))
            elif message["type"] == "state":
                self.view, self.seq = message["state"], message["seq"]

    def close(self) -> None:
        self.exits.close()
        self.server.should_exit = True
        self.thread.join(DEADLINE)


@contextlib.contextmanager
def never_reading(port: int, path: str) -> Iterator[socket.socket]:
    """A WebSocket over a plain socket with a small receive buffer, that reads nothing after the handshake."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        websocket_handshake(sock, path)
        sock.settimeout(1.0)
        yield sock
    finally:
        sock.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, log_watch: LogWatch) -> Iterator[Served]:
    found = Served(tmp_path_factory.mktemp("floods"))
    yield found
    found.close()
    log_watch.check()


ATTACK = st.sampled_from(["sync far", "sync old", "pings", "acts", "garbage"])
ATTACKERS = st.lists(st.tuples(ATTACK, st.integers(1, 400), st.integers(1, 50)), min_size=1, max_size=4)
"""Each attacker: what it sends, how many messages, how many at a time between checks."""


def attack_message(kind: str, i: int) -> bytes:
    if kind == "sync far":
        return client_frame(0x1, json.dumps({"type": "sync", "after": 10**9 + i}).encode())
    if kind == "sync old":
        return client_frame(0x1, json.dumps({"type": "sync", "after": i % 3}).encode())
    if kind == "pings":
        return client_frame(0x9, b"p" * 125) * 200
    if kind == "acts":
        return client_frame(0x1, json.dumps({"type": "act", "settler": "s1", "action": "wait", "ref": i}).encode())
    return client_frame(0x1, b'{"type": "act", "pad": "' + b"x" * 2000 + b'"')


@fuzz_settings(ci_examples=6)
@given(attackers=ATTACKERS)
def test_floods(served: Served, log_watch: LogWatch, attackers: list[tuple[str, int, int]]) -> None:
    EXAMPLES["ws rates: flood examples"] += 1
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(never_reading(served.settings.port, served.path)) for _ in attackers]
        left = [count for _, count, _ in attackers]
        while any(left):
            for i, ((kind, _, step), sock) in enumerate(zip(attackers, socks, strict=True)):
                for _ in range(min(step, left[i])):
                    left[i] -= 1
                    EXAMPLES["ws rates: attack messages (sent)"] += 1
                    with contextlib.suppress(OSError):  # closed by the server, or it is not reading either
                        sock.sendall(attack_message(kind, left[i]))
            served.check_bounds()
            served.read_updates()
    deadline = time.monotonic() + DEADLINE
    while True:  # the attackers gone, nothing waits for them any more
        served.read_updates()
        *each, (total, _) = served.waiting()
        if len(each) == 1 and total == each[0][0]:
            break
        assert time.monotonic() < deadline, f"still waiting after the attackers left: {each}, {total}"
        time.sleep(0.05)
    detail = httpx.get(f"{served.url}/api/games/{served.game['id']}", timeout=DEADLINE).json()
    while served.seq < detail["seq"]:
        served.read_updates()
        assert time.monotonic() < deadline, f"the reading client is at {served.seq}, the game at {detail['seq']}"
    assert served.seq == detail["seq"] and served.view == detail["state"]
    log_watch.check()
