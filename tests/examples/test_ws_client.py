"""The example WebSocket client (examples/ws_client.py) joins a game by its invite link and plays it to the end,
against a real server process, using only the documented protocol."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from tests.server.helpers import running_server, two_loops_belt

CLIENT = Path(__file__).resolve().parents[2] / "examples" / "ws_client.py"


def test_the_example_client_plays_a_game_to_the_end(tmp_path: Path) -> None:
    with running_server(tmp_path) as server:
        body = {"seats": 1, "settlers_per_seat": 2, "belt": two_loops_belt(), "seed": 4,
                "options": {"storm_interval": 0}}
        answer = httpx.post(f"{server.url}/api/games", json=body, timeout=30)
        assert answer.status_code == 201, answer.text
        game = answer.json()
        invite = f"{server.url}/#/game/{game['id']}?seat=1&token={game['seats'][0]['token']}"
        done = subprocess.run([sys.executable, str(CLIENT), invite], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "won"
        detail = httpx.get(f"{server.url}/api/games/{game['id']}", timeout=10).json()
        assert detail["status"] == "won"
        assert detail["seq"] > 12  # it played every unit of the belt, not a shortcut


def test_a_bad_invite_link_is_one_line() -> None:
    done = subprocess.run([sys.executable, str(CLIENT), "http://127.0.0.1:1/#/lobby"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith("ws_client: ValueError: not an invite link")
