"""What the fifth fresh attack found on a cluster: a WebSocket with a wrong token, through a node that did not hold
the game, loaded it there only to refuse it and let it go again at once, uncharged, for every connection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from asteroid_mining.server.hub import GameHub
from tests.cluster.in_process import served_node
from tests.server.helpers import in_process
from tests.server.hubs import counted_loads, refused
from tests.services import Redis


def test_a_wrong_token_does_not_load_a_game_another_node_plays(services: tuple[Redis, str], tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A WebSocket with a wrong token, through a node that did not hold the game (another node played it), loaded
    the whole game there, was refused (4401), and the copy was let go again at once (nobody joined it), so the
    next wrong token loaded it again, uncharged: 117 ms of CPU each on the largest accepted belt. The node now
    reads the game's one row in the shared store first and refuses the token without loading the game; the right
    token through that node still loads it and plays."""
    redis, database = services
    with served_node(redis, database, tmp_path, "a") as owner, served_node(redis, database, tmp_path, "b") as other:
        made = owner.post("/api/games", json={"seats": 1, "settlers_per_seat": 1, "belt": "tutorial", "seed": 7})
        assert made.status_code == 201, made.text
        game: dict[str, Any] = made.json()
        token = game["seats"][0]["token"]
        hub: GameHub = other.app.state.hub  # type: ignore[attr-defined]
        loads = counted_loads(hub, monkeypatch)
        with owner.websocket_connect(f"/api/games/{game['id']}/ws?token={token}") as player:
            assert in_process(player).next_of("state")["seq"] == 0  # played on node a
            for wrong in ("not-a-token", token[:-1]):
                with other.websocket_connect(f"/api/games/{game['id']}/ws?token={wrong}") as session:
                    refused(session, "bad_token", 4401)
            assert loads == []
            assert game["id"] not in hub.games
            with other.websocket_connect(f"/api/games/{game['id']}/ws?token={token}") as again:
                state = in_process(again).next_of("state")
                assert (state["seq"], state["you"]["seat"]) == (0, 1)
            assert loads == [game["id"]]


def loaded(loads: list[str]) -> list[str]:
    """The games of `loads`, once each, in order (a game nobody held is loaded, then loaded again to be taken)."""
    return list(dict.fromkeys(loads))


def test_a_spectator_through_a_node_not_holding_the_game_is_charged_for_its_load(
        services: tuple[Redis, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A spectator's WebSocket through a node that did not hold the game loaded it there free, as a seat's does:
    one address watching the games other nodes play, one after another, had each loaded on that node. The
    spectator's load now takes a token of the address's history bucket there, as a REST read does (past it:
    `rate_limited`, close 4429, nothing loaded); a seat's connection through that node still loads its game
    uncharged."""
    redis, database = services
    with served_node(redis, database, tmp_path, "a") as owner, \
            served_node(redis, database, tmp_path, "b", history_rate_burst=2,
                  history_rate_per_second=0.001) as other:  # (a token back every 1,000 s: none during the test)
        games: list[dict[str, Any]] = []
        for seed in range(3):
            made = owner.post("/api/games", json={"seats": 1, "settlers_per_seat": 1, "belt": "tutorial",
                                                  "seed": seed})
            assert made.status_code == 201, made.text
            games.append(made.json())
        hub: GameHub = other.app.state.hub  # type: ignore[attr-defined]
        loads = counted_loads(hub, monkeypatch)
        for game in games[:2]:  # the bucket's two tokens: both loaded on node b
            with other.websocket_connect(f"/api/games/{game['id']}/ws") as ws:
                assert in_process(ws).next_of("state")["seq"] == 0
        assert loaded(loads) == [games[0]["id"], games[1]["id"]]
        with other.websocket_connect(f"/api/games/{games[2]['id']}/ws") as session:
            refused(session, "rate_limited", 4429)
        assert loaded(loads) == [games[0]["id"], games[1]["id"]]
        token = games[2]["seats"][0]["token"]
        with other.websocket_connect(f"/api/games/{games[2]['id']}/ws?token={token}") as ws:  # its seat: uncharged
            assert in_process(ws).next_of("state")["seq"] == 0
        assert loaded(loads) == [games[0]["id"], games[1]["id"], games[2]["id"]]
