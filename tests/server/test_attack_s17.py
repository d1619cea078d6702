"""What the eighth fresh attack found on a single server: the connections of programs' seats had a budget each
(200 messages a second) and nothing bounded how many of them one address had, so one address with its 256
connections to seats it had created as programs' could have 51,200 messages a second served; and a connection
sending ten times its rate was never closed, one served message in ten setting its count of drops back to 0."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.config import SettingsError

from .helpers import in_process
from .hubs import hub_of


def _create(client: TestClient, **body: Any) -> dict[str, Any]:
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def test_an_address_has_a_programs_budget_on_few_connections_only(tmp_path: Path) -> None:
    """With `program_connections_per_client` 2, one address's first two connections to programs' seats have the
    program's budget (burst 10), its third a person's (burst 3); once one of the two closes, a new one has the
    program's again. The buckets refill at one token in 1,000 s: a message's fate depends on how many came before
    it, never on the clock."""
    settings = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static",
                        rate_per_second=0.001, rate_burst=3, program_rate_per_second=0.001, program_rate_burst=10,
                        program_connections_per_client=2)
    with TestClient(create_app(settings)) as client:
        games = [_create(client, seats=2, settlers_per_seat=1, programs=[2]) for _ in range(4)]

        def connect(game: dict[str, Any]) -> Any:
            return client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][1]['token']}")

        def answered_until_limited(session: Any) -> int:
            player = in_process(session)
            player.next_of("state")
            for answered in range(20):
                player.send({"type": "act", "settler": "nobody", "action": "wait"})
                reply = player.next_of("error")
                if reply["code"] == "rate_limited":
                    return answered
                assert reply["code"] == "not_your_settler", reply
            raise AssertionError("no rate_limited after 20 messages")

        with connect(games[0]) as first, connect(games[1]) as second:
            assert answered_until_limited(first) == 10
            assert answered_until_limited(second) == 10
            with connect(games[2]) as third:  # the address's third at once: a person's budget
                assert answered_until_limited(third) == 3
        with connect(games[3]) as again:  # the first two are closed: the program's budget again
            assert answered_until_limited(again) == 10
        assert not hub_of(client)._programs  # nothing counted is left


def test_the_programs_connections_of_an_address_are_checked() -> None:
    """`program_connections_per_client` must be at least 1: a clear error naming the setting."""
    with pytest.raises(SettingsError, match="program_connections_per_client"):
        Settings(data_dir=Path("."), program_connections_per_client=0)


def test_a_client_sending_many_times_its_rate_is_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A connection that sends ten messages for each token its bucket gets (one served, nine dropped, again and
    again) is closed with `4429`: it was never closed, for one served message set the count of drops in a row
    back to 0, and each drop costs about what a served message does. The bucket's clock is moved by the test,
    one token at a time, never read from the wall."""
    from starlette.websockets import WebSocketDisconnect

    from asteroid_mining.server import play
    from asteroid_mining.server.security import TokenBucket

    now = [1000.0]
    monkeypatch.setattr(play, "TokenBucket", functools.partial(TokenBucket, clock=lambda: now[0]))
    settings = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static",
                        rate_per_second=1.0, rate_burst=1, rate_violations=20)
    with TestClient(create_app(settings)) as client:
        game = _create(client, seats=2, settlers_per_seat=1)
        token = game["seats"][1]["token"]
        with client.websocket_connect(f"/api/games/{game['id']}/ws?token={token}") as session, \
                pytest.raises(WebSocketDisconnect) as closed:
            player = in_process(session)
            player.next_of("state")
            for _ in range(10):  # 10 rounds of one served message and nine dropped
                for _ in range(10):
                    player.send({"type": "act", "settler": "nobody", "action": "wait"})
                    assert player.next_of("error")["code"] in ("not_your_settler", "rate_limited")
                now[0] += 1.0  # one more token
        assert closed.value.code == 4429
