"""What the fifth fresh attack found on a cluster: a WebSocket with a wrong token, through a node that did not hold
the game, loaded it there only to refuse it and let it go again at once, uncharged, for every connection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.hub import GameHub
from tests.server.helpers import in_process
from tests.services import Redis


def _node(redis: Redis, database: str, tmp_path: Path, name: str) -> TestClient:
    """A node of the cluster named `name`, served in this process."""
    settings = Settings(data_dir=tmp_path / name, static_dir=tmp_path / "static", database=database, redis=redis.url,
                        node_id=name, lease_seconds=3.0, bot_delay=0.0)
    return TestClient(create_app(settings))


def test_a_wrong_token_does_not_load_a_game_another_node_plays(services: tuple[Redis, str], tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A WebSocket with a wrong token, through a node that did not hold the game (another node played it), loaded
    the whole game there, was refused (4401), and the copy was let go again at once (nobody joined it), so the
    next wrong token loaded it again, uncharged: 117 ms of CPU each on the largest accepted belt. The node now
    reads the game's one row in the shared store first and refuses the token without loading the game; the right
    token through that node still loads it and plays."""
    redis, database = services
    with _node(redis, database, tmp_path, "a") as owner, _node(redis, database, tmp_path, "b") as other:
        made = owner.post("/api/games", json={"seats": 1, "settlers_per_seat": 1, "belt": "tutorial", "seed": 7})
        assert made.status_code == 201, made.text
        game: dict[str, Any] = made.json()
        token = game["seats"][0]["token"]
        hub: GameHub = other.app.state.hub  # type: ignore[attr-defined]
        loads: list[str] = []
        load = hub.store.load

        async def counted(game_id: str) -> Any:
            loads.append(game_id)
            return await load(game_id)

        monkeypatch.setattr(hub.store, "load", counted)
        with owner.websocket_connect(f"/api/games/{game['id']}/ws?token={token}") as player:
            assert in_process(player).next_of("state")["seq"] == 0  # played on node a
            for wrong in ("not-a-token", token[:-1]):
                with other.websocket_connect(f"/api/games/{game['id']}/ws?token={wrong}") as session:
                    assert session.receive_json()["code"] == "bad_token"
                    with pytest.raises(WebSocketDisconnect) as closed:
                        session.receive_json()
                    assert closed.value.code == 4401
            assert loads == []
            assert game["id"] not in hub.games
            with other.websocket_connect(f"/api/games/{game['id']}/ws?token={token}") as again:
                state = in_process(again).next_of("state")
                assert (state["seq"], state["you"]["seat"]) == (0, 1)
            assert loads == [game["id"]]
