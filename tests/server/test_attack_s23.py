"""What the last attack on the history endpoints left: a game in play's `/log` was read and parsed whole (16-31 ms
of CPU at 5,000 commands) only to be refused `409 game_running`, and a long game's `/events` (832 KB) and a finished
game's `/log` (992 KB) were gzipped again by the GZip middleware at every request, on the event loop (30-40 ms and
50 ms of CPU a request). A game in play is now refused from what the hub knows of it, its commands not read; the
events are gzipped from blocks kept with the game's history (at most one block's part deflated for a request), and
a finished game's log is kept encoded and gzipped, made off the event loop."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.middleware import gzip as gzip_middleware

from asteroid_mining.server import replay_cache
from asteroid_mining.server.app import create_app
from asteroid_mining.server.config import Settings
from asteroid_mining.server.hub import GameHub

from .hubs import counted_reads, hub_of, on_loop
from .test_attack_s11 import _count_calls
from .test_hardening_rest import played_games

COMMANDS = 24
"""Commands played in the game whose events and log are read."""
BLOCK = 256
"""The events' block size in these tests (`replay_cache.EVENTS_BLOCK_BYTES`): several blocks for a short game."""


def _settings(tmp_path: Path) -> Settings:
    """A server whose address may ask for every history the tests read (the bucket would refuse some)."""
    return Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static",
                    history_rate_burst=1_000)


def counted_logs(hub: GameHub, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the games whose whole log `hub` reads from its store from now on (`store.log`), in order."""
    return counted_reads(hub, monkeypatch, "log")


def test_the_log_of_a_game_in_play_is_refused_without_reading_its_commands(
        client: TestClient, two_seats: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """A game in play held here, then let go (`Resting`): `409 game_running` without its log read (it was read and
    parsed whole first: 16-31 ms of CPU for 5,000 commands); once it has ended, its log is read and shown."""
    hub = hub_of(client)
    reads = counted_logs(hub, monkeypatch)
    path = f"/api/games/{two_seats['id']}/log"
    assert client.get(path).json()["error"]["code"] == "game_running"
    on_loop(client, lambda: hub._rest(hub.games[two_seats["id"]]))  # let go: known from its summary
    assert two_seats["id"] in hub.resting
    assert client.get(path).json()["error"]["code"] == "game_running"
    assert reads == []  # (two before: one a request)
    token = two_seats["seats"][0]["token"]
    assert client.post(f"/api/games/{two_seats['id']}/abandon", json={"token": token}).status_code == 200
    assert client.get(path).json()["status"] == "abandoned"
    assert reads == [two_seats["id"]]


def test_a_finished_game_s_log_is_kept_gzipped_not_read_nor_compressed_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished game's log is read, encoded and gzipped once (off the event loop) and kept: asked again, it is
    sent as kept, gzipped to a client that takes it, neither read from the store nor compressed again (the GZip
    middleware compressed it at every request on the event loop, 50 ms of CPU for 992 KB)."""
    settings = _settings(tmp_path)
    game, _ = played_games(settings, commands=COMMANDS)
    with TestClient(create_app(settings)) as client:
        token = game["seats"][0]["token"]
        assert client.post(f"/api/games/{game['id']}/abandon", json={"token": token}).status_code == 200
        reads = counted_logs(hub_of(client), monkeypatch)
        path = f"/api/games/{game['id']}/log"
        plain = client.get(path, headers={"accept-encoding": "identity"})
        assert plain.status_code == 200 and "content-encoding" not in plain.headers and len(plain.content) > 1024
        assert plain.json()["status"] == "abandoned" and len(plain.json()["commands"]) == COMMANDS
        middleware = _count_calls(monkeypatch, gzip_middleware.GZipResponder, "_compress_body")
        compressed = _count_calls(monkeypatch, gzip, "compress")
        again = [client.get(path, headers={"accept-encoding": "gzip"}) for _ in range(3)]
        assert middleware[0] == 0 and compressed[0] == 0  # (3 and 0 before: the middleware's, once a request)
        assert all(a.headers["content-encoding"] == "gzip" and a.content == plain.content for a in again)
        assert reads == [game["id"]]  # (4 before: once a request)


def test_events_are_gzipped_from_the_kept_blocks_for_any_after(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A game's events, from any `after`, are sent gzipped from the blocks kept with its history: what is deflated
    for a request is the head and the part of one block at most (the GZip middleware compressed the whole answer
    at every request on the event loop: 30-40 ms of CPU for 832 KB), and what the client unzips is the answer's
    text exactly."""
    monkeypatch.setattr(replay_cache, "EVENTS_BLOCK_BYTES", BLOCK)
    settings = _settings(tmp_path)
    game, _ = played_games(settings, commands=COMMANDS)
    path = f"/api/games/{game['id']}/events"
    with TestClient(create_app(settings)) as client:
        plain = {after: client.get(path, params={"after": after}, headers={"accept-encoding": "identity"})
                 for after in range(COMMANDS + 2)}  # (the first builds the history)
        assert all(a.status_code == 200 and "content-encoding" not in a.headers for a in plain.values())
        whole = plain[0].json()
        assert [s["seq"] for s in whole["steps"]] == list(range(1, COMMANDS + 1))
        cache: replay_cache.ReplayCache = client.app.state.replays  # type: ignore[attr-defined]
        history = cache.peek(game["id"], COMMANDS)
        assert history is not None
        longest = max(map(len, history.steps))
        head = len(plain[COMMANDS].content)
        deflated: list[int] = []
        deflate = replay_cache._deflated

        def counted(text: bytes, last: bool) -> bytes:
            deflated.append(len(text))
            return deflate(text, last)

        monkeypatch.setattr(replay_cache, "_deflated", counted)
        middleware = _count_calls(monkeypatch, gzip_middleware.GZipResponder, "_compress_body")
        for after, expected in plain.items():
            deflated.clear()
            with client.stream("GET", path, params={"after": after}, headers={"accept-encoding": "gzip"}) as answer:
                raw = b"".join(answer.iter_raw())  # (as sent: `content` is unzipped already)
            assert answer.status_code == 200, raw
            if len(expected.content) < 1024:  # too short to be worth it: as the middleware, sent as text
                assert "content-encoding" not in answer.headers and raw == expected.content
                continue
            assert answer.headers["content-encoding"] == "gzip"
            assert gzip.decompress(raw) == expected.content, after  # (its checksum and length checked too)
            assert sum(deflated) <= head + BLOCK + longest, (after, deflated)
        assert middleware[0] == 0  # (once a request before, the whole answer each time)
        assert len(plain[0].content) > 4 * BLOCK  # (several blocks: each `after` starts in another place)
