"""What the eighth fresh attack found on a single server: the connections of programs' seats had a budget each
(200 messages a second) and nothing bounded them together, so one address with its 256 connections to seats it
had created as programs' could send 51,200 messages a second, about 2 s of the event loop's CPU a second."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.config import SettingsError

from .helpers import in_process


def _create(client: TestClient, **body: Any) -> dict[str, Any]:
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def test_programs_connections_of_one_address_share_a_budget(tmp_path: Path) -> None:
    """Two connections to programs' seats from one address, each well inside its own budget (burst 10), share
    the address's (burst 6): the seventh message of the two together is `rate_limited`, naming the address's
    budget. A person's seat is not charged to it. The buckets refill at one token in 1,000 s: a message's fate
    depends on how many came before it, never on the clock."""
    settings = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static",
                        rate_per_second=0.001, rate_burst=10, program_rate_per_second=0.001, program_rate_burst=10,
                        program_rate_per_client=0.001, program_rate_per_client_burst=6)
    with TestClient(create_app(settings)) as client:
        games = [_create(client, seats=2, settlers_per_seat=1, programs=[2]) for _ in range(2)]
        sessions = [client.websocket_connect(f"/api/games/{g['id']}/ws?token={g['seats'][1]['token']}")
                    for g in games]
        person_game = games[0]
        with sessions[0] as first, sessions[1] as second:
            players = [in_process(first), in_process(second)]
            for player in players:
                player.next_of("state")
            codes = []
            for k in range(8):  # alternately on the two connections: 4 each, inside each one's burst of 10
                player = players[k % 2]
                player.send({"type": "act", "settler": "nobody", "action": "wait"})
                codes.append(player.next_of("error"))
            assert [c["code"] for c in codes] == ["not_your_settler"] * 6 + ["rate_limited"] * 2, codes
            assert "this address's programs" in codes[6]["message"]
            # a person's seat of the same address keeps its own budget only
            token = person_game["seats"][0]["token"]
            with client.websocket_connect(f"/api/games/{person_game['id']}/ws?token={token}") as session:
                person = in_process(session)
                person.next_of("state")
                person.send({"type": "act", "settler": "nobody", "action": "wait"})
                assert person.next_of("error")["code"] == "not_your_settler"


def test_the_programs_budget_of_an_address_is_checked() -> None:
    """`program_rate_per_client` must be a finite number above 0 and its burst at least 1: a clear error naming
    the setting, not a server that refuses every program's message."""
    for changes in ({"program_rate_per_client": 0.0}, {"program_rate_per_client": float("nan")},
                    {"program_rate_per_client_burst": 0}):
        try:
            Settings(data_dir=Path("."), **changes)
        except SettingsError as bad:
            assert next(iter(changes)) in str(bad)
        else:
            raise AssertionError(f"{changes} was accepted")
