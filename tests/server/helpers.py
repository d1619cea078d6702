"""Helpers of the server tests: a small winnable belt and its plan, scripted clients, a server process."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import httpx
import uvicorn

from asteroid_mining.maps import parse_belt
from asteroid_mining.rules import CLASSIC, Game, action_from_json
from asteroid_mining.server import Settings
from asteroid_mining.server.main import uvicorn_config

if TYPE_CHECKING:
    from starlette.testclient import WebSocketTestSession

def stored_log(client: Any, game_id: str) -> dict[str, Any]:
    """A game's whole log (belt, options, seed, settlers, status, seq, commands) read from the server's store, for
    tests that hold the engine to what a game in play has stored: `GET /log` shows it only once the game has
    ended (the belt and seed would show its hidden cores)."""
    found = client.portal.call(client.app.state.hub.store.log, game_id)
    assert found is not None, f"no game {game_id}"
    record, progress, commands = found
    return {"id": record.id, "belt": record.belt, "options": record.options, "seed": record.seed,
            "settlers": record.settlers, "status": progress.status, "seq": progress.seq,
            "commands": [c.to_json() for c in commands]}


# ----- a small belt two settlers win in 13 rounds -----
LOOP_A = [("a1", "ice"), ("a2", "iron"), ("a3", "carbon"), ("a4", "uranium"), ("a5", "ice"), ("a6", "iron")]
LOOP_B = [("b1", "carbon"), ("b2", "uranium"), ("b3", "ice"), ("b4", "iron"), ("b5", "carbon"), ("b6", "uranium")]


def two_loops_belt() -> dict[str, Any]:
    """Home (a shelter) on two loops of six bare asteroids; together they hold 3 units of every kind."""
    asteroids = [{"id": "Home", "mantle": 0, "core": "hollow", "orbit": {"sun": "far"}}]
    links = []
    for loop in (LOOP_A, LOOP_B):
        ids = ["Home", *(aid for aid, _ in loop), "Home"]
        asteroids += [{"id": aid, "mantle": 0, "core": core, "orbit": {"sun": "far"}} for aid, core in loop]
        links += [[ids[i], ids[i + 1]] for i in range(len(ids) - 1)]
    return {"format": "asteroid-mining/belt", "version": 1, "name": "Two Loops", "description": "A test belt.",
            "start": "Home", "asteroids": asteroids, "links": links, "gates": []}


def loop_plan(settler: str, loop: list[tuple[str, str]]) -> list[dict[str, str]]:
    """Move round the loop mining every core, then home: 13 `act` fields."""
    steps: list[dict[str, str]] = []
    for aid, _ in loop:
        steps += [{"settler": settler, "action": "move", "target": aid}, {"settler": settler, "action": "mine"}]
    return [*steps, {"settler": settler, "action": "move", "target": "Home"}]


PLANS = {"s1": loop_plan("s1", LOOP_A), "s2": loop_plan("s2", LOOP_B)}
"""What each settler of a two-seat, one-settler-each game does, in order."""


def as_action(settler_step: dict[str, str]) -> dict[str, Any]:
    """An `act` field set as the engine's action JSON."""
    out: dict[str, Any] = {"type": settler_step["action"], "actor": settler_step["settler"]}
    if "target" in settler_step:
        out["target"] = settler_step["target"]
    return out


@cache
def winning_seed() -> int:
    """A seed with which no storm spoils the plan (storms are random, R7): found by playing it in the engine."""
    belt = parse_belt(two_loops_belt())
    for seed in range(500):
        game = Game.new(belt, CLASSIC, seed, 2)
        for a, b in zip(PLANS["s1"], PLANS["s2"], strict=True):
            for step in (a, b):
                if game.status == "running" and game.check(action_from_json(as_action(step))) is None:
                    game.apply(action_from_json(as_action(step)))
        if game.status == "won":
            return seed
    raise AssertionError("no seed lets the plan win")


# ----- views -----
SECTIONS = ("asteroids", "settlers", "robots", "ufos", "gates")


def apply_diff(view: dict[str, Any], diff: dict[str, Any]) -> None:
    """Bring a client's view up to date with an update's diff (as docs/server.md says a client does)."""
    for key, value in diff.items():
        if key not in SECTIONS:
            view[key] = value
            continue
        index = {record["id"]: i for i, record in enumerate(view[key])}
        for record in value:
            if record["id"] in index:
                view[key][index[record["id"]]] = record
            else:
                view[key].append(record)


class Player:
    """A scripted client: keeps the view up to date from `state` and `update` messages, checks seqs."""

    def __init__(self, receive: Callable[[float], dict[str, Any]], send: Callable[[dict[str, Any]], None]) -> None:
        self._receive = receive
        self._send = send
        self.view: dict[str, Any] | None = None
        self.seq = -1
        self.you: dict[str, Any] | None = None
        self.messages: list[dict[str, Any]] = []
        self.session: Any = None
        """The TestClient session underneath, for in-process players."""

    def send(self, message: dict[str, Any]) -> None:
        self._send(message)

    def act(self, settler: str, action: str, **fields: Any) -> None:
        self._send({"type": "act", "settler": settler, "action": action, **fields})

    def next(self, timeout: float = 30.0) -> dict[str, Any]:
        message = self._receive(timeout)
        self.messages.append(message)
        if message["type"] == "state":
            self.view, self.seq, self.you = message["state"], message["seq"], message["you"]
        elif message["type"] == "update":
            assert self.view is not None
            assert message["seq"] == self.seq + 1, f"seq {message['seq']} after {self.seq}"
            self.seq = message["seq"]
            apply_diff(self.view, message["diff"])
        return message

    def next_of(self, kind: str, timeout: float = 30.0) -> dict[str, Any]:
        """The next message of type `kind` (others are taken in on the way)."""
        deadline = time.monotonic() + timeout
        while True:
            message = self.next(max(0.01, deadline - time.monotonic()))
            if message["type"] == kind:
                return message


def in_process(session: WebSocketTestSession) -> Player:
    """A Player over a Starlette TestClient WebSocket session."""

    def receive(timeout: float) -> dict[str, Any]:
        async def get() -> Any:
            with anyio.fail_after(timeout):
                return await session._send_rx.receive()

        message = session.portal.call(get)
        session._raise_on_close(message)
        decoded: dict[str, Any] = json.loads(message["text"])
        return decoded

    player = Player(receive, session.send_json)
    player.session = session
    return player


def over_network(connection: Any) -> Player:
    """A Player over a `websockets.sync.client` connection."""
    return Player(lambda timeout: json.loads(connection.recv(timeout=timeout)),
                  lambda message: connection.send(json.dumps(message)))


def play_plan(players: dict[str, Player], plans: dict[str, list[dict[str, str]]], steps: int | None = None,
              on_update: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Play the plans turn by turn (each settler acts on its turn); every player checks every update.

    Stops after `steps` actions (all of them by default); returns the last update.
    """
    cursor = {settler: 0 for settler in plans}
    last: dict[str, Any] = {}
    done = 0
    first = next(iter(players.values()))
    assert first.view is not None
    turn = first.view["turn"]
    while turn is not None and (steps is None or done < steps) and cursor[turn] < len(plans[turn]):
        step = plans[turn][cursor[turn]]
        cursor[turn] += 1
        players[turn].act(**step)
        for player in players.values():
            last = player.next_of("update")
            assert last["action"]["actor"] == turn
        if on_update:
            on_update(last)
        done += 1
        turn = last["diff"]["turn"]
    return last


# ----- a real server -----
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def announced_port(log: Path, offset: int) -> int:
    """The port uvicorn says (in `log`, after `offset`) that it listens on; 0 until it has said so."""
    with open(log, "rb") as text:
        text.seek(offset)
        found = re.search(rb"Uvicorn running on https?://\S+:(\d+)", text.read())
    return int(found.group(1)) if found else 0


class ServerProcess:
    """`python -m asteroid_mining.server` on 127.0.0.1, keeping its games in `data`.

    The server binds port 0, so the system gives it a free port at once, and says which in its log: a port
    chosen here and handed over would be free only until some other process of a busy machine took it (any
    outgoing connection may) before the server, still importing, bound it. Each start gets a new port."""

    def __init__(self, data: Path, *args: str) -> None:
        self.data = data
        self.args = args
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = data / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self, *command: str) -> ServerProcess:
        self.data.mkdir(parents=True, exist_ok=True)
        argv = list(command) or [sys.executable, "-m", "asteroid_mining.server", "--bot-delay", "0", *self.args]
        argv += ["--port", "0", "--data", str(self.data)]
        self.port = 0
        with open(self.log, "ab") as out:
            offset = out.tell()
            self.proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60  # a bound only: a busy machine starts a server slowly
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"the server exited: {self.log.read_text()}")
            self.port = self.port or announced_port(self.log, offset)
            with contextlib.suppress(httpx.HTTPError):
                if self.port and httpx.get(f"{self.url}/api/health", timeout=5).status_code == 200:
                    return self
            time.sleep(0.05)
        raise AssertionError(f"the server did not start: {self.log.read_text()}")

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(60)  # a graceful stop (tests read its last log lines); slow on a busy machine
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@contextlib.contextmanager
def running_server(data: Path, *args: str) -> Iterator[ServerProcess]:
    server = ServerProcess(data, *args).start()
    try:
        yield server
    finally:
        server.stop()


def sent_choices(game: Game, settler: str) -> dict[str, Any] | None:
    """What the server sends as `settler`'s choices now (docs/server.md): every entry, refusals without their
    sentence, when it may act; null when it cannot (not its turn, dead, the game over)."""
    if game.actor_refusal(settler) is not None:
        return None
    return game.choices(settler).to_json()


def websocket_handshake(sock: socket.socket, path: str, extensions: str | None = None) -> dict[str, str]:
    """Open a WebSocket on `sock` (a plain socket to the server) at `path`, offering `extensions` if given,
    reading the answer's head and no more; the answer's headers (lower-case names)."""
    key = base64.b64encode(os.urandom(16)).decode()
    offer = f"Sec-WebSocket-Extensions: {extensions}\r\n" if extensions else ""
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{offer}\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(1)
        assert chunk, "the server closed the handshake"
        answer += chunk
    head, *lines = answer.decode().strip().split("\r\n")
    assert head.startswith("HTTP/1.1 101"), answer
    return {name.strip().lower(): value.strip() for name, value in (line.split(":", 1) for line in lines)}


@contextlib.contextmanager
def in_thread(server: uvicorn.Server, deadline: float = 60.0) -> Iterator[uvicorn.Server]:
    """`server` run in a thread of this process, so that the test reaches its objects and patches what it runs;
    handed out once it takes connections (within `deadline` seconds: a bound on the wait only, a busy machine
    starts it slowly), stopped after."""
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        until = time.monotonic() + deadline
        while not server.started:
            assert thread.is_alive() and time.monotonic() < until, "the server did not start"
            time.sleep(0.01)
        yield server
    finally:
        server.should_exit = True
        thread.join(deadline)


def served_in_thread(settings: Settings, deadline: float = 60.0) -> contextlib.AbstractContextManager[uvicorn.Server]:
    """The game server of `settings` (on its `port`, its app at `server.config.loaded_app`) run `in_thread`, its
    pings off: a test sends what it means to."""
    return in_thread(uvicorn.Server(uvicorn_config(settings, ws_ping_interval=None)), deadline)
