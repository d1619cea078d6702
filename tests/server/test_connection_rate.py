"""New WebSocket connections cost the server a bounded amount: each address opens them at a rate
(`connect_rate_per_second`, `connect_rate_burst`), refused at the handshake before anything is built, and the
first `state` of a game is made once for every connection that is sent the same one (its view's JSON once per
seq, its compression once per message).

The fourth attack opened a spectator's connection to a `large` game in play, read its state and closed, four at
a time: each connection had its state made (570 KB) and compressed anew, 4.0 s of the server's CPU in 10 s."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketDenialResponse
from websockets.exceptions import InvalidStatus
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.sync.client import connect

from asteroid_mining.server import Settings, create_app, transport
from asteroid_mining.server.config import SettingsError
from asteroid_mining.server.diff import ViewTracker

from .helpers import running_server, two_loops_belt, winning_seed

ALL_AT_ONCE = 0.0001
"""A rate (new connections a second) that refills no token within any test: the burst is all there is."""


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A server process whose addresses may open three new WebSocket connections, and no more."""
    monkeypatch.setenv("ASTEROID_MINING_CONNECT_RATE_BURST", "3")
    monkeypatch.setenv("ASTEROID_MINING_CONNECT_RATE_PER_SECOND", str(ALL_AT_ONCE))
    with running_server(tmp_path / "data") as running:
        yield running


def spectate(url: str, source: str = "127.0.0.1") -> dict[str, Any]:
    """Open a spectator's connection from `source`, read its first message, close."""
    with connect(url, open_timeout=30, max_size=None, source_address=(source, 0)) as ws:
        first: dict[str, Any] = json.loads(ws.recv(timeout=30))
    return first


def test_an_address_past_its_burst_of_connections_is_refused_at_the_handshake(server: Any) -> None:
    body = {"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": winning_seed()}
    created = httpx.post(f"{server.url}/api/games", json=body, timeout=30).json()
    url = f"{server.ws_url}/api/games/{created['id']}/ws"
    for _ in range(3):
        assert spectate(url)["type"] == "state"
    with pytest.raises(InvalidStatus) as refused:
        spectate(url)
    answer = refused.value.response
    assert answer.status_code == 429
    assert int(answer.headers["Retry-After"]) >= 1
    error = json.loads(answer.body or b"{}")["error"]
    assert error["code"] == "rate_limited" and "new WebSocket connections" in error["message"]
    # another address has a bucket of its own: served as ever
    assert spectate(url, source="127.0.0.2")["type"] == "state"
    # the REST API is not charged for it
    assert httpx.get(f"{server.url}/api/games/{created['id']}/summary", timeout=30).status_code == 200


def test_a_refused_handshake_is_answered_without_accepting(tmp_path: Path) -> None:
    """In process: the handshake is denied (no `state` is built), with the body and `Retry-After`."""
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                        connect_rate_burst=2, connect_rate_per_second=ALL_AT_ONCE)
    with TestClient(create_app(settings)) as client:
        body = {"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": 3}
        game = client.post("/api/games", json=body).json()
        path = f"/api/games/{game['id']}/ws"
        for _ in range(2):
            with client.websocket_connect(path) as ws:
                assert ws.receive_json()["type"] == "state"
        with pytest.raises(WebSocketDenialResponse) as denied, client.websocket_connect(path):
            pass
        assert denied.value.status_code == 429 and denied.value.headers["retry-after"]
        assert denied.value.json()["error"]["code"] == "rate_limited"


def test_spectators_of_one_game_share_one_first_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built = []
    view = ViewTracker.view

    def counted(self: ViewTracker) -> dict[str, Any]:
        built.append(1)
        return view(self)

    monkeypatch.setattr(ViewTracker, "view", counted)
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static")
    with TestClient(create_app(settings)) as client:
        body = {"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": winning_seed()}
        game = client.post("/api/games", json=body).json()
        path = f"/api/games/{game['id']}/ws"
        built.clear()
        texts = []
        for _ in range(5):
            with client.websocket_connect(path) as ws:
                texts.append(ws.receive_text())
        assert len(built) == 1, "the view was made for each spectator"
        assert len(set(texts)) == 1, "spectators at one seq were sent different states"
        seat = game["seats"][0]
        with client.websocket_connect(f"{path}?token={seat['token']}") as player:
            state = player.receive_json()
            assert state["you"]["seat"] == 1 and len(built) == 1  # its own message, the same view
            player.send_json({"type": "act", "settler": seat["settlers"][0], "action": "move", "target": "a1"})
            assert player.receive_json()["type"] == "update"
            with client.websocket_connect(path) as ws:
                after = ws.receive_json()
            assert after["seq"] == 1 and len(built) == 2  # a new seq: the view is made again, once
            with client.websocket_connect(path) as ws:
                assert ws.receive_json() == after and len(built) == 2


def test_a_large_message_is_compressed_once_for_every_connection() -> None:
    """Two connections that negotiated compression send the same large message: it is compressed once, and each
    client reads it whole."""
    text = json.dumps({"type": "state", "rows": [f"asteroid {i}" for i in range(20_000)]}).encode()
    made = transport.DEFLATED.made
    sent = []
    for _ in range(2):
        _, extension = transport.LARGE_MESSAGE_DEFLATE.process_request_params([], [])
        sent.append(extension.encode(Frame(Opcode.TEXT, text)))
    assert transport.DEFLATED.made == made + 1
    assert sent[0].data == sent[1].data and sent[0].rsv1 and len(sent[0].data) < len(text) // 4
    client = ClientPerMessageDeflateFactory(server_no_context_takeover=True).process_response_params(
        [("server_no_context_takeover", None), ("client_no_context_takeover", None)], [])
    assert client.decode(sent[1]).data == text


def test_a_connection_rate_must_be_above_zero(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="connect_rate_per_second"):
        Settings(data_dir=tmp_path, connect_rate_per_second=0)
    with pytest.raises(SettingsError, match="connect_rate_burst"):
        Settings(data_dir=tmp_path, connect_rate_burst=0)
    with pytest.raises(SettingsError, match="follower_keep_seconds"):
        Settings(data_dir=tmp_path, follower_keep_seconds=-1)
