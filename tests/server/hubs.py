"""Helpers of the tests that reach into a server served in the test's process (`TestClient`): its hub, work run on
its event loop, games created for an address of the test's choosing, the store's loads counted, a refusal read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from asteroid_mining.server.hub import GameHub
from asteroid_mining.server.schemas import CreateGame

from .helpers import two_loops_belt, winning_seed


def hub_of(client: TestClient) -> GameHub:
    """The hub of the server `client` serves."""
    hub: GameHub = client.app.state.hub  # type: ignore[attr-defined]
    return hub


def in_server(client: TestClient, work: Callable[[], Awaitable[Any]]) -> Any:
    """What `work` (a coroutine function of the server's) answers, run on the server's event loop."""
    portal = client.portal
    assert portal is not None
    return portal.call(work)


def on_loop(client: TestClient, work: Callable[[], Any]) -> Any:
    """`work()` run on the server's event loop (the hub is used from there only)."""
    async def run() -> Any:
        return work()

    return in_server(client, run)


def create_from(client: TestClient, address: str, seats: int = 1) -> dict[str, Any]:
    """A game on the two-loops belt created by `address` (the test client has one address only): its id and
    tokens, as `POST /api/games` answers them."""
    request = CreateGame.model_validate({"seats": seats, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                         "seed": winning_seed()})
    live, seats_made = in_server(client, lambda: hub_of(client).create(request, address))
    return {"id": live.id, "seats": [seat.model_dump() for seat in seats_made]}


def counted_loads(hub: GameHub, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the games `hub` loads from its store from now on, in order (a list the test reads as it goes)."""
    return counted_reads(hub, monkeypatch, "load")


def counted_reads(hub: GameHub, monkeypatch: pytest.MonkeyPatch, method: str) -> list[str]:
    """The ids of the games `hub` reads from its store with `method` (`load`, `log`) from now on, in order."""
    reads: list[str] = []
    read = getattr(hub.store, method)

    async def counted(game_id: str) -> Any:
        reads.append(game_id)
        return await read(game_id)

    monkeypatch.setattr(hub.store, method, counted)
    return reads


def refused(session: WebSocketTestSession, code: str, close: int) -> None:
    """The connection is sent `error` `code` and then closed with `close`."""
    refusal = session.receive_json()
    assert (refusal["type"], refusal["code"]) == ("error", code), refusal
    with pytest.raises(WebSocketDisconnect) as closed:
        session.receive_json()
    assert closed.value.code == close
