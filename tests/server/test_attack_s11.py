"""What the second fresh attack on the server found, each held by a test at the level it was found (HTTP)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.middleware import gzip as gzip_middleware

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.live import LiveGame
from asteroid_mining.server.schemas import GameDetail


def _count_calls(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[int]:
    """Count the calls of `owner.name` (the count is the list's one item)."""
    calls = [0]
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


# ----- a game's view: encoded and gzipped once per change, not for every request -----
def test_the_view_of_a_game_in_play_is_encoded_once_until_it_changes(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """`GET /api/games/{id}` of a game in play validated and encoded the whole view for every request, and the
    middleware gzipped it again: 30 ms and 20 ms of CPU on the `large` belt's 565 KB, on the event loop, with no
    limit (eight clients in a loop held `/api/health` up to 0.7 s). The answer is kept, text and gzipped, until
    the game's seq, status or connections change."""
    game = client.post("/api/games", json={"seats": 1, "belt": "tutorial", "seed": 5}).json()
    views = _count_calls(monkeypatch, LiveGame, "detail")
    gzipped = _count_calls(monkeypatch, gzip_middleware.GZipResponder, "_compress_body")
    answers = [client.get(f"/api/games/{game['id']}", headers={"accept-encoding": encoding})
               for encoding in ("gzip", "gzip", "identity", "gzip, deflate")]
    assert {a.status_code for a in answers} == {200}
    assert views[0] == 1 and gzipped[0] == 0
    assert [a.headers.get("content-encoding") for a in answers] == ["gzip", "gzip", None, "gzip"]
    document = answers[0].json()
    assert all(a.json() == document for a in answers)
    assert GameDetail.model_validate(document).model_dump(mode="json") == document  # the documented shape
    live = client.app.state.hub.games[game["id"]]  # type: ignore[attr-defined]
    assert document == json.loads(json.dumps(live.detail()))  # (the view's lists may be tuples)
    views[0] -= 1  # (that call)

    token = game["seats"][0]["token"]
    with client.websocket_connect(f"/api/games/{game['id']}/ws?token={token}") as seat:
        assert seat.receive_json()["type"] == "state"
        connected = client.get(f"/api/games/{game['id']}").json()
        assert views[0] == 2  # who is connected changed the answer: it is built again
        assert connected["seats"][0]["connected"] == 1
        assert client.get(f"/api/games/{game['id']}").json() == connected and views[0] == 2


def test_a_finished_games_kept_view_is_not_gzipped_again(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished game's view was kept as text and gzipped by the middleware for every request (20 ms of CPU
    for a large belt's): it is kept gzipped too."""
    game = client.post("/api/games", json={"seats": 1, "belt": "tutorial", "seed": 5}).json()
    token = game["seats"][0]["token"]
    assert client.post(f"/api/games/{game['id']}/abandon", json={"token": token}).status_code == 200
    first = client.get(f"/api/games/{game['id']}")
    gzipped = _count_calls(monkeypatch, gzip_middleware.GZipResponder, "_compress_body")
    compressed = _count_calls(monkeypatch, gzip, "compress")
    again = [client.get(f"/api/games/{game['id']}") for _ in range(3)]
    assert gzipped[0] == 0 and compressed[0] == 0
    assert all(a.headers["content-encoding"] == "gzip" and a.json() == first.json() for a in again)
    assert first.json()["status"] == "abandoned"


# ----- games stay in the store for good: what one address creates is bounded in bytes -----
def test_the_bytes_of_new_games_are_charged_to_their_creators_address(tmp_path: Path) -> None:
    """Creating games had no limit but `max_games_per_client`, which finished games do not count: one client
    creating `large` games and abandoning each at once grew the database by 1.6 MB a second (5 games a second,
    a third of a core), for ever. Each new game's belt, in bytes as stored, is charged to its creator's address
    (`create_bytes_per_second`, `create_bytes_burst`): while in debt, `429 rate_limited`, and nothing is
    stored."""
    settings = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static", bot_delay=0.0,
                        create_bytes_per_second=0.001, create_bytes_burst=1)
    with TestClient(create_app(settings)) as client:
        first = client.post("/api/games", json={"belt": "tutorial", "seed": 5})
        assert first.status_code == 201, first.text
        hub = client.app.state.hub  # type: ignore[attr-defined]
        assert hub.games[first.json()["id"]].belt_bytes > 1000  # the belt document, as stored
        for refused in (client.post("/api/games", json={"belt": "tutorial", "seed": 5}),
                        client.post("/api/lessons/fly/games")):
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"]["code"] == "rate_limited"
            assert "belts" in refused.json()["error"]["message"] and int(refused.headers["retry-after"]) >= 1
        assert len(hub.games) == 1
        assert [g["id"] for g in client.get("/api/games").json()["games"]] == [first.json()["id"]]
    with TestClient(create_app(settings)) as other:  # the store holds the one game
        assert [g["id"] for g in other.get("/api/games").json()["games"]] == [first.json()["id"]]


def test_the_default_creation_budget_lets_a_player_start_many_large_games() -> None:
    """The bucket is sized for people: fifty `large` games (280 KB each) at once, then five tutorial games (4 KB)
    a second."""
    defaults = Settings()
    assert defaults.create_bytes_burst >= 50 * 290_000
    assert defaults.create_bytes_per_second >= 5 * 4_100
