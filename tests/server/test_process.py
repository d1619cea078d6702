"""Against a real server: `python -m asteroid_mining.server` (uvicorn) on 127.0.0.1, killed and restarted."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from asteroid_mining.maps import parse_belt
from asteroid_mining.rules import CLASSIC, Game
from asteroid_mining.server.diff import with_sun

from .helpers import (
    PLANS,
    ServerProcess,
    as_action,
    free_port,
    over_network,
    play_plan,
    running_server,
    two_loops_belt,
    winning_seed,
)


def new_game(server: ServerProcess, **body: Any) -> dict[str, Any]:
    body = {"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": winning_seed(), **body}
    answer = httpx.post(f"{server.url}/api/games", json=body, timeout=10)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def ws(server: ServerProcess, game: dict[str, Any], seat: int | None = None) -> Any:
    token = f"?token={game['seats'][seat - 1]['token']}" if seat else ""
    return connect(f"{server.ws_url}/api/games/{game['id']}/ws{token}", open_timeout=10)


def test_a_full_game_over_the_network(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        game = new_game(server)
        with ws(server, game, 1) as c1, ws(server, game, 2) as c2, ws(server, game) as c3:
            one, two, watcher = over_network(c1), over_network(c2), over_network(c3)
            for player in (one, two, watcher):
                player.next_of("state")
            last = play_plan({"s1": one, "s2": two}, PLANS)
            assert last["diff"]["status"] == "won"
            while watcher.seq < last["seq"]:
                watcher.next()
            watcher.act("s1", "wait")
            assert watcher.next()["code"] == "read_only"
            detail = httpx.get(f"{server.url}/api/games/{game['id']}").json()
            assert one.view == two.view == watcher.view == detail["state"]
        log = server.log.read_text()
        assert "WebSocket" in log and "token=…" in log  # connections are logged, their tokens are not
        assert all(seat["token"] not in log for seat in game["seats"])


def test_messages_too_large(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        game = new_game(server)
        with ws(server, game, 1) as conn:
            me = over_network(conn)
            me.next_of("state")
            conn.send(json.dumps({"type": "sync", "after": 0, "pad": "x" * 70_000}))
            assert me.next()["code"] == "too_large"
            me.act("s1", "move", target="a1")
            assert me.next()["seq"] == 1  # still usable
            # far too large: the transport closes the connection, with 1009 when its close frame gets here before
            # the reset that closing a socket with unread data makes (the client may still be sending then)
            with pytest.raises((ConnectionClosed, OSError)) as closed:
                conn.send("x" * (1024 * 1024))
                me.next()
            assert not isinstance(closed.value, TimeoutError), "the connection stayed open"
            if isinstance(closed.value, ConnectionClosed) and closed.value.rcvd is not None:
                assert closed.value.rcvd.code == 1009


def test_kill_9_loses_no_acknowledged_action(tmp_path: Path) -> None:
    """Play fast from two clients, kill the server mid-game, restart: every acknowledged action is there."""
    server = ServerProcess(tmp_path).start()
    try:
        game = new_game(server)
        acked: dict[int, dict[str, Any]] = {}
        views: dict[int, Any] = {}
        stop = threading.Event()

        def play() -> None:
            try:
                with ws(server, game, 1) as c1, ws(server, game, 2) as c2:
                    one, two = over_network(c1), over_network(c2)
                    one.next_of("state")
                    two.next_of("state")

                    def record(update: dict[str, Any]) -> None:
                        acked[update["seq"]] = update["action"]
                        views[update["seq"]] = json.loads(json.dumps(one.view))
                        if update["seq"] == 9:
                            stop.set()

                    play_plan({"s1": one, "s2": two}, PLANS, on_update=record)
            except (ConnectionClosed, OSError, TimeoutError):
                pass  # the server died under us: expected

        player = threading.Thread(target=play)
        player.start()
        assert stop.wait(30), "the game did not get going"
        server.kill9()  # while the clients keep sending
        player.join(30)
        assert not player.is_alive()
        last_acked = max(acked)
        assert last_acked >= 9

        server.start()
        replay = httpx.get(f"{server.url}/api/games/{game['id']}/replay", timeout=10).json()  # (the log: once ended)
        stored = {s["seq"]: s["action"] for s in replay["steps"]}
        assert [s["seq"] for s in replay["steps"]] == list(range(1, len(stored) + 1))
        for seq, action in acked.items():
            assert stored[seq] == action, f"acknowledged action {seq} lost or changed"
        assert len(stored) <= last_acked + 1  # at most the one in flight when it died, never more
        detail = httpx.get(f"{server.url}/api/games/{game['id']}", timeout=10).json()
        assert detail["seq"] == len(stored)
        replayed = Game.replay(parse_belt(two_loops_belt()), CLASSIC, winning_seed(), 2,  # (as new_game makes it)
                               [s["action"] for s in replay["steps"]])
        assert with_sun(detail["state"]) == replayed.view()
        if len(stored) == last_acked:
            assert detail["state"] == views[last_acked]

        # and the game goes on from there to its win
        with ws(server, game, 1) as c1, ws(server, game, 2) as c2:
            one, two = over_network(c1), over_network(c2)
            one.next_of("state")
            two.next_of("state")
            done = {"s1": 0, "s2": 0}
            for action in stored.values():
                done[action["actor"]] += 1
            for settler, plan in PLANS.items():  # the log is the plan's beginning, in turn order
                assert [as_action(step) for step in plan[: done[settler]]] == [
                    a for a in stored.values() if a["actor"] == settler]
            rest = {s: PLANS[s][done[s]:] for s in PLANS}
            last = play_plan({"s1": one, "s2": two}, rest)
            assert last["diff"]["status"] == "won" and last["seq"] == 26
    finally:
        server.stop()


def test_a_restart_resumes_running_games_and_their_timers(tmp_path: Path) -> None:
    with running_server(tmp_path, "--min-turn-seconds", "0.1") as server:
        timed = new_game(server, turn_seconds=0.5)
        plain = new_game(server)
        with ws(server, plain, 1) as conn:
            me = over_network(conn)
            me.next_of("state")
            me.act("s1", "move", target="a1")
            assert me.next()["seq"] == 1
        before = httpx.get(f"{server.url}/api/games", timeout=10).json()["games"]
    assert {g["id"] for g in before} == {timed["id"], plain["id"]}
    with running_server(tmp_path, "--min-turn-seconds", "0.1") as server:
        after = httpx.get(f"{server.url}/api/games", timeout=10).json()["games"]
        assert [(g["id"], g["seq"], g["status"]) for g in after] == [(g["id"], g["seq"], g["status"]) for g in before]
        with ws(server, timed, 2) as conn:
            me = over_network(conn)
            assert me.next_of("state")["deadline"] is not None
            update = me.next_of("update", timeout=60)
            assert update["by"] == {"seat": 1, "auto": "timer"}


def test_the_serve_command(tmp_path: Path) -> None:
    help_text = subprocess.run([sys.executable, "-m", "asteroid_mining", "serve", "--help"], capture_output=True,
                               text=True, timeout=60)
    assert help_text.returncode == 0
    for option in ("--host", "--port", "--data"):
        assert option in help_text.stdout
    server = ServerProcess(tmp_path)
    server.start(sys.executable, "-m", "asteroid_mining", "serve", "--host", "127.0.0.1")
    try:
        assert httpx.get(f"{server.url}/api/health", timeout=10).json() == {"status": "ok"}
        assert httpx.post(f"{server.url}/api/games", json={}, timeout=10).status_code == 201
        assert (tmp_path / "games.sqlite3").exists()
        # a second server on the same games says so in one line, and does not start
        second = subprocess.run([sys.executable, "-m", "asteroid_mining", "serve", "--port", str(free_port()),
                                 "--data", str(tmp_path)], capture_output=True, text=True, timeout=60)
        assert second.returncode == 2
        assert second.stderr.strip().splitlines() == [
            f"asteroid-mining serve: error: another server is using the games in {tmp_path} "
            f"({tmp_path / 'games.lock'} is locked); stop it, or give this one another data directory"]
    finally:
        server.stop()
    assert "Application shutdown complete" in server.log.read_text()  # a graceful stop on SIGTERM
