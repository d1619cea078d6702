"""What the last attack on the history endpoints left on a cluster: a node asked for the `/log` of a game in play
read and parsed its whole log from the shared store (16-31 ms of CPU at 5,000 commands) only to refuse it
`409 game_running`. It is refused now from the game's one row in the store (or, held here, from the game), its
commands not read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.cluster.in_process import served_node
from tests.server.test_attack_s23 import counted_logs
from tests.services import Redis


def test_a_node_refuses_the_log_of_a_game_in_play_without_reading_its_commands(
        services: tuple[Redis, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the node playing it and through another one: `409 game_running`, no log read on either (one on
    each before); once the game has ended, either shows its log."""
    redis, database = services
    with served_node(redis, database, tmp_path, "a") as owner, served_node(redis, database, tmp_path, "b") as other:
        made = owner.post("/api/games", json={"seats": 1, "settlers_per_seat": 1, "belt": "tutorial", "seed": 7})
        assert made.status_code == 201, made.text
        game: dict[str, Any] = made.json()
        path = f"/api/games/{game['id']}/log"
        reads = [counted_logs(node.app.state.hub, monkeypatch) for node in (owner, other)]  # type: ignore[attr-defined]
        for node in (owner, other):
            answer = node.get(path)
            assert answer.status_code == 409 and answer.json()["error"]["code"] == "game_running", answer.text
        assert game["id"] not in other.app.state.hub.games  # type: ignore[attr-defined]
        assert reads == [[], []]
        token = game["seats"][0]["token"]
        assert owner.post(f"/api/games/{game['id']}/abandon", json={"token": token}).status_code == 200
        for node in (owner, other):
            assert node.get(path).json()["status"] == "abandoned"
        assert reads == [[game["id"]], [game["id"]]]
        assert other.get("/api/games/nope/log").json()["error"]["code"] == "game_not_found"
