"""What the sixth fresh attack found on a single server."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.hub import GameHub
from asteroid_mining.server.schemas import CreateGame

from .helpers import in_process, two_loops_belt, winning_seed

TTL = 3600.0
"""The life of an open game in these tests (the default): passed by moving the hub's clock, never by waiting."""


def _hub(client: TestClient) -> GameHub:
    hub: GameHub = client.app.state.hub  # type: ignore[attr-defined]
    return hub


def _in_server(client: TestClient, work: Callable[[], Awaitable[Any]]) -> Any:
    """What `work` (a coroutine function of the server's) answers, run on the server's event loop."""
    portal = client.portal
    assert portal is not None
    return portal.call(work)


def _on_loop(client: TestClient, work: Callable[[], Any]) -> Any:
    """`work()` run on the server's event loop (the hub is used from there only)."""
    async def run() -> Any:
        return work()

    return _in_server(client, run)


def _create_from(client: TestClient, address: str) -> dict[str, Any]:
    """A one-seat game on the two-loops belt created by `address`: its id and tokens."""
    request = CreateGame.model_validate({"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                         "seed": winning_seed()})
    live, seats_made = _in_server(client, lambda: _hub(client).create(request, address))
    return {"id": live.id, "seats": [seat.model_dump() for seat in seats_made]}


def _refused_to_load(client: TestClient, game: dict[str, Any]) -> None:
    """The game's seat connecting is refused for want of room (`server_full`, 4409), and nothing is loaded."""
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as ws:
        refusal = ws.receive_json()
        assert (refusal["type"], refusal["code"]) == ("error", "server_full"), refusal
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4409
    assert game["id"] not in _hub(client).games


def test_an_expired_open_game_loaded_again_counts_against_the_limits(tmp_path: Path) -> None:
    """An open game that expired (`open_game_ttl`) counts no more for anything, and its seat's link still opens
    it: the load was counted against no limit, and once played the game was a running game past every limit.
    So an address that created its quota of games each `open_game_ttl` and brought them back had as many running
    games in memory as it liked, past `max_live_games`, `max_live_bytes` and its own `max_games_per_client`
    (reproduced with `max_live_games` 1: two running games held). Loading an expired open game is now counted as
    loading a game let go is (`503 server_full`, 4409, when there is no room), and against its creator's
    `max_games_per_client`; with room, it opens and plays on as before."""
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        open_game_ttl=TTL, max_live_games=1, max_games_per_client=1)
    with TestClient(create_app(settings)) as client:
        hub = _hub(client)
        old = _create_from(client, "10.0.0.1")
        later = time.time() + TTL + 60
        hub.clock = lambda: later  # (the hub's clock only: the open game expires without waiting)
        assert _on_loop(client, hub.expire) == 1 and old["id"] not in hub.games

        other = _create_from(client, "10.0.0.2")  # the server's one running game
        _refused_to_load(client, old)
        assert client.get(f"/api/games/{old['id']}").json()["error"]["code"] == "server_full"
        assert client.post(f"/api/games/{other['id']}/abandon",
                           json={"token": other["seats"][0]["token"]}).status_code == 200

        mine = _create_from(client, "10.0.0.1")  # its creator's quota is full again
        _refused_to_load(client, old)
        assert client.post(f"/api/games/{mine['id']}/abandon",
                           json={"token": mine["seats"][0]["token"]}).status_code == 200

        with client.websocket_connect(f"/api/games/{old['id']}/ws?token={old['seats'][0]['token']}") as ws:
            player = in_process(ws)  # room again: its link opens it, and it is played
            assert player.next_of("state")["seq"] == 0
            player.act("s1", "wait", ref="first")
            assert player.next_of("update")["seq"] == 1
        assert [g.id for g in hub._held_running()] == [old["id"]]
