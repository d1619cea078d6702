"""Regression tests against a real server process: connection limits, tokens in the log, a damaged database."""

from __future__ import annotations

import contextlib
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from .helpers import free_port, over_network, running_server, two_loops_belt

DEADLINE = 60.0
"""The most any condition below is waited for (the limits under test are far shorter)."""


def closed_by_server(sock: socket.socket, trickle: bytes = b"") -> bool:
    """Whether the server closes `sock` within DEADLINE; with `trickle`, keep sending it meanwhile."""
    sock.settimeout(0.2)
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        try:
            if trickle:
                sock.sendall(trickle)
            if sock.recv(1024) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:  # reset: closed too
            return True
    return False


def served(url: str) -> bool:
    """Whether a GET of `url` is answered 200 within DEADLINE (asked again when a connection is closed)."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.TransportError):
            return httpx.get(url, timeout=DEADLINE).status_code == 200
        time.sleep(0.05)
    return False


def test_headers_that_never_end_are_timed_out(tmp_path: Path) -> None:
    with running_server(tmp_path, "--header-timeout", "0.5") as server:
        with socket.create_connection(("127.0.0.1", server.port)) as slow:
            slow.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")
            assert closed_by_server(slow, trickle=b"X")  # a byte now and then does not keep it open
        with socket.create_connection(("127.0.0.1", server.port)) as idle:
            assert closed_by_server(idle)
        # the server still serves; a request of this (busy) process may itself take over 0.5 s to send its
        # headers, and then it is rightly closed: ask again, within the bound
        assert served(f"{server.url}/api/health")


def test_sockets_per_address_are_capped(tmp_path: Path) -> None:
    # the cap is never below max_connections_per_client + 32: 33 here
    args = ("--max-sockets-per-client", "8", "--max-connections-per-client", "1", "--header-timeout", "60")
    with running_server(tmp_path, *args) as server:
        held = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(33)]
        try:
            with httpx.Client(timeout=5) as client, pytest.raises(httpx.TransportError):
                client.get(f"{server.url}/api/health")  # the 34th is closed before a byte is read
            held.pop().close()
            deadline = time.monotonic() + DEADLINE
            while True:  # once the server has seen one close, there is room again
                with contextlib.suppress(httpx.TransportError):
                    if httpx.get(f"{server.url}/api/health", timeout=5).status_code == 200:
                        break
                assert time.monotonic() < deadline, "no room after a socket closed"
                time.sleep(0.05)
        finally:
            for sock in held:
                sock.close()
        assert "Traceback" not in server.log.read_text()


def test_tokens_under_any_spelling_stay_out_of_the_log(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        body = {"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt()}
        game = httpx.post(f"{server.url}/api/games", json=body, timeout=10).json()
        token = game["seats"][0]["token"]
        for name in ("tok%65n", "%74oken", "%74%6F%6B%65%6E"):
            with connect(f"{server.ws_url}/api/games/{game['id']}/ws?{name}={token}", open_timeout=10) as conn:
                assert over_network(conn).next_of("state")["you"]["seat"] == 1
        with pytest.raises(InvalidStatus) as refused:  # and a WebSocket to no endpoint is refused, not a 500
            connect(f"{server.ws_url}/nowhere?token={token}", open_timeout=10)
        assert refused.value.response.status_code == 403
        httpx.get(f"{server.url}/api/health", timeout=10)  # the log is written in order: this comes after
        log = server.log.read_text()
        assert token not in log and "tok%65n=…" in log
        assert "Traceback" not in log and "without completing handshake" not in log


def test_a_database_with_damaged_pages_is_one_line_and_exit_2(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with running_server(data) as server:
        for _ in range(6):
            body = {"belt": "tutorial", "seats": 2}
            assert httpx.post(f"{server.url}/api/games", json=body, timeout=10).status_code == 201
    database = data / "games.sqlite3"
    with sqlite3.connect(database) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = db.execute("PRAGMA page_size").fetchone()[0]
    raw = bytearray(database.read_bytes())
    assert len(raw) > 2 * page
    raw[page:] = bytes((i * 7919) % 251 for i in range(len(raw) - page))  # the header page stays good
    database.write_bytes(bytes(raw))
    port = str(free_port())
    run = subprocess.run([sys.executable, "-m", "asteroid_mining.server", "--port", port, "--data", str(data)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run.stderr
    errors = [line for line in run.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and ("damaged" in errors[0] or "malformed" in errors[0]), run.stderr
    assert "Traceback" not in run.stderr + run.stdout
