"""The example WebSocket client (examples/ws_client.py) against a real server process, using only the documented
protocol: it plays a game to the end from its invite link; four of it play the four seats of one game exactly as
its strategy plays them in this process with the same seed; it waits as long as `rate_limited` says; it resumes
after its connection is cut; and every failure is one line on standard error, never a traceback."""

from __future__ import annotations

import contextlib
import importlib.util
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import orjson

from asteroid_mining.maps import parse_belt
from asteroid_mining.rules import Game, Options, Wait
from asteroid_mining.server.action_schemas import ActBase
from asteroid_mining.server.diff import ViewTracker
from asteroid_mining.server.messages import to_action
from asteroid_mining.server.schemas import CLIENT_MESSAGE
from tests.server.helpers import running_server, two_loops_belt

CLIENT = Path(__file__).resolve().parents[2] / "examples" / "ws_client.py"
TIMEOUT = 300  # a bound only: four clients and a server on a busy machine


def example() -> ModuleType:
    """examples/ws_client.py as a module (its strategy, `Client`, played in this process)."""
    spec = importlib.util.spec_from_file_location("ws_client_example", CLIENT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def as_sent(value: Any) -> Any:
    """`value` as a client reads it from a message (JSON: tuples are lists)."""
    return orjson.loads(orjson.dumps(value))


def in_process(log: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """The example client's strategy for every seat of the game `log` describes (its belt, options, seed and
    seats), played in this process: each seat's `Client` keeps the view from the same state and diffs the server
    sends, and a refused choice is replaced by `wait`, as over the network. The actions played, and the end."""
    strategy = example()
    game = Game.new(parse_belt(log["belt"], source="log"), Options.from_json(log["options"]), log["seed"],
                    log["settlers"])
    tracker = ViewTracker(game)
    clients: dict[str, Any] = {}
    for seat in log["seats"]:
        client = strategy.Client()
        client.take_state({"state": as_sent(tracker.view()), "seq": 0, "you": {"settlers": seat["settlers"]}})
        clients.update(dict.fromkeys(seat["settlers"], client))
    played: list[dict[str, Any]] = []
    while game.status == "running":
        settler = game.turn
        assert settler is not None
        message = CLIENT_MESSAGE.validate_python(clients[settler].choose(settler))  # read as the server reads it
        assert isinstance(message, ActBase)
        action = to_action(message)
        if game.check(action) is not None:
            action = Wait(settler)
        game.apply(action)
        played.append(as_sent(action.to_json()))
        diff = as_sent(tracker.update())
        for client in set(clients.values()):
            client.take_update({"diff": diff, "seq": len(played)})
    return played, game.status


def create(url: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(f"{url}/api/games", json=body, timeout=30)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def run_client(invite: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CLIENT), invite], capture_output=True, text=True, timeout=TIMEOUT)


def stored_log(url: str, game_id: str) -> dict[str, Any]:
    answer = httpx.get(f"{url}/api/games/{game_id}/log", timeout=30)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_the_example_client_plays_a_game_to_the_end(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        body = {"seats": 1, "settlers_per_seat": 2, "belt": two_loops_belt(), "seed": 4,
                "options": {"storm_interval": 0}}
        game = create(server.url, body)
        done = run_client(game["seats"][0]["invite"])  # the link the create answer carries
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "won"
        detail = httpx.get(f"{server.url}/api/games/{game['id']}", timeout=10).json()
        assert detail["status"] == "won"
        assert detail["seq"] > 12  # it played every unit of the belt, not a shortcut


def test_four_example_clients_play_one_game_as_in_process(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        # four program seats (their own message budget); the timer is set long, so that it can never play a turn
        # of a client the machine's load delays, and the game is the strategy's alone
        body = {"seats": 4, "settlers_per_seat": 1, "belt": "small", "seed": 0, "programs": [1, 2, 3, 4],
                "turn_seconds": 86_400}
        game = create(server.url, body)
        clients = [subprocess.Popen([sys.executable, str(CLIENT), seat["invite"]], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True) for seat in game["seats"]]
        try:
            ends = [client.communicate(timeout=TIMEOUT) for client in clients]
        finally:
            for client in clients:
                if client.poll() is None:
                    client.kill()
                    client.wait()
        log = stored_log(server.url, game["id"])
    for client, (out, err) in zip(clients, ends, strict=True):
        assert client.returncode == 0, err
        assert out.strip() == log["status"]
    played, status = in_process(log)
    assert [command["action"] for command in log["commands"]] == played
    assert (log["status"], log["seq"]) == (status, len(played))
    assert status == "won" and len(played) > 100  # a whole game, not a shortcut
    seats = {command["by"]["seat"] for command in log["commands"]}
    assert seats == {1, 2, 3, 4} and not any("auto" in command["by"] for command in log["commands"])


def test_the_example_client_waits_as_long_as_rate_limited_says(tmp_path: Path) -> None:
    # a person's seat at 8 messages a second, 2 at once, and closed (4429) at the second message dropped in a
    # row: a client that sent again before `retry_after` would be cut off; this one plays its ~20 acts to the end
    with running_server(tmp_path, "--rate-per-second", "8", "--rate-burst", "2", "--rate-violations", "2") as server:
        body = {"seats": 1, "settlers_per_seat": 2, "belt": two_loops_belt(), "seed": 4,
                "options": {"storm_interval": 0}}
        game = create(server.url, body)
        done = run_client(game["seats"][0]["invite"])
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "won"
        log = stored_log(server.url, game["id"])
    assert [command["action"] for command in log["commands"]] == in_process(log)[0]


class Relay:
    """A TCP relay to the server that cuts its first connection once the client has sent `cut_after` bytes
    through it (in the middle of the game: the cut depends on what was sent, not on time); the connections
    after it pass whole."""

    def __init__(self, port: int, cut_after: int) -> None:
        self.target = ("127.0.0.1", port)
        self.cut_after = cut_after
        self.connections = 0
        self.cut = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                near, _ = self.listener.accept()
            except OSError:
                return
            far = socket.create_connection(self.target)
            self.open += [near, far]
            self.connections += 1
            limit = self.cut_after if self.connections == 1 else None
            threading.Thread(target=self._pump, args=(near, far, limit), daemon=True).start()
            threading.Thread(target=self._pump, args=(far, near, None), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, limit: int | None) -> None:
        passed = 0
        with contextlib.suppress(OSError):
            while chunk := source.recv(65536):
                sink.sendall(chunk)
                passed += len(chunk)
                if limit is not None and passed >= limit:  # the network fails: both ends see the socket go
                    self.cut.set()
                    break
        for end in (source, sink):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)
            end.close()

    def close(self) -> None:
        self.listener.close()
        for end in self.open:
            with contextlib.suppress(OSError):
                end.close()


@contextlib.contextmanager
def relay(port: int, cut_after: int) -> Iterator[Relay]:
    through = Relay(port, cut_after)
    try:
        yield through
    finally:
        through.close()


def test_the_example_client_resumes_after_its_connection_is_cut(tmp_path: Path) -> None:
    with running_server(tmp_path) as server, relay(server.port, cut_after=700) as through:
        body = {"seats": 1, "settlers_per_seat": 2, "belt": two_loops_belt(), "seed": 4,
                "options": {"storm_interval": 0}, "programs": [1]}
        game = create(server.url, body)
        invite = game["seats"][0]["invite"].replace(f":{server.port}/", f":{through.port}/")
        done = run_client(invite)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "won"
        assert through.cut.is_set() and through.connections >= 2  # cut, and connected again
        log = stored_log(server.url, game["id"])
    assert [command["action"] for command in log["commands"]] == in_process(log)[0]  # nothing played twice


def one_line_failure(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("ws_client: "), done.stderr
    return lines[0]


def test_a_bad_invite_link_is_one_line() -> None:
    done = run_client("http://127.0.0.1:1/#/lobby")
    assert one_line_failure(done).startswith("ws_client: ValueError: not an invite link")


def test_a_server_that_is_not_there_is_one_line() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:  # a port nobody accepts on once it is closed
        port = taken.getsockname()[1]
    line = one_line_failure(run_client(f"http://127.0.0.1:{port}/#/game/abc?seat=1&token=T"))
    assert line.startswith(f"ws_client: cannot connect to ws://127.0.0.1:{port}/api/games/abc/ws")


def test_a_refused_connection_is_one_line_with_the_servers_reason(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        game = create(server.url, {"seats": 1})
        wrong = run_client(f"{server.url}/#/game/{game['id']}?seat=1&token=not-the-token")
        missing = run_client(f"{server.url}/#/game/no-such-game?seat=1&token=T")
    assert one_line_failure(wrong) == ("ws_client: the server closed the connection (4401, a wrong token): this "
                                       "token plays no seat of this game")
    assert one_line_failure(missing) == ("ws_client: the server closed the connection (4404, no such game): there "
                                         "is no game 'no-such-game'")
