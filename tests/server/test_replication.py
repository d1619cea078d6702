"""`LiveGame`'s replication hooks: a game is shared with other servers only through the `Replication` it is given
when it is made (a cluster node gives its own), never by overriding the game's methods."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import pytest

from asteroid_mining.rules import Action
from asteroid_mining.server.cluster import node as _node  # noqa: F401 - every kind of live game is loaded
from asteroid_mining.server.cluster.replication import ClusterReplication
from asteroid_mining.server.hub import GameHub
from asteroid_mining.server.live import Connection, LiveGame, Replication
from asteroid_mining.storage import Command

from .helpers import PLANS, as_action, in_process

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


class Recording(Replication):
    """A replication that notes every hook called; `plays_here` as the test says."""

    def __init__(self, plays_here: bool = True) -> None:
        self.here = plays_here
        self.calls: list[tuple[Any, ...]] = []

    @property
    def plays_here(self) -> bool:
        return self.here

    def announced(self, seq: int, command: Command, ref: str | int | None) -> None:
        self.calls.append(("announced", seq, command.action["type"], ref))

    def joined(self, conn: Connection) -> None:
        self.calls.append(("joined", conn.seat.number if conn.seat else None))

    def left(self, conn: Connection) -> None:
        self.calls.append(("left", conn.seat.number if conn.seat else None))

    async def relay(self, action: Action, by: dict[str, Any], ref: str | int | None,
                    sender: Connection | None) -> None:
        self.calls.append(("relay", action.to_json()["type"], by, ref))


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> list[Recording]:
    """Every game the hub makes gets a `Recording` (which plays here unless the test says otherwise)."""
    made: list[Recording] = []
    original = GameHub.make_live

    def make_live(self: GameHub, *args: Any) -> LiveGame:
        live = original(self, *args)
        replication = Recording()
        made.append(replication)
        live.replication = replication
        replication.attach(live)
        return live

    monkeypatch.setattr(GameHub, "make_live", make_live)
    return made


def test_no_live_game_is_made_by_overriding_the_game() -> None:
    assert LiveGame.__subclasses__() == []
    overridden = {name for name, _ in inspect.getmembers(ClusterReplication) if not name.startswith("__")
                  and getattr(ClusterReplication, name) is not getattr(Replication, name, None)}
    hooks = {name for name, _ in inspect.getmembers(Replication) if not name.startswith("_")}
    assert hooks - {"attach", "live"} <= overridden  # each hook, the cluster's own way (`live`: the game served)


def test_a_game_played_here_tells_its_replication_what_was_stored(recorded: list[Recording], client: TestClient,
                                                                  two_seats: dict[str, Any]) -> None:
    game_id = two_seats["id"]
    with client.websocket_connect(f"/api/games/{game_id}/ws?token={two_seats['seats'][0]['token']}") as ws:
        player = in_process(ws)
        player.next()
        step = as_action(PLANS["s1"][0])
        player.act(step["actor"], step["type"], **{k: v for k, v in step.items() if k not in ("actor", "type")},
                   ref="r1")
        assert player.next_of("update")["seq"] == 1
    (replication,) = recorded
    assert replication.live.id == game_id
    assert replication.calls[:2] == [("joined", 1), ("announced", 1, step["type"], "r1")]
    assert replication.calls[-1] == ("left", 1)


def test_a_game_played_elsewhere_hands_its_commands_on_and_plays_none(recorded: list[Recording], client: TestClient,
                                                                      two_seats: dict[str, Any]) -> None:
    game_id = two_seats["id"]
    with client.websocket_connect(f"/api/games/{game_id}/ws?token={two_seats['seats'][0]['token']}") as ws:
        player = in_process(ws)
        player.next()
        (replication,) = recorded
        replication.here = False
        step = as_action(PLANS["s1"][0])
        player.act(step["actor"], step["type"], **{k: v for k, v in step.items() if k not in ("actor", "type")},
                   ref="r2")
        player.act(step["actor"], "wait", ref="r3")
        assert client.portal.call(_relayed, replication, 2)  # type: ignore[union-attr]
        assert replication.live.seq == 0 and replication.live.deadline is None  # no clock where it is not played
    assert [call[0] for call in replication.calls if call[0] != "joined"][:2] == ["relay", "relay"]
    assert replication.calls[1] == ("relay", step["type"], {"seat": 1}, "r2")
    assert client.get(f"/api/games/{game_id}/summary").json()["seq"] == 0  # nothing stored here


async def _relayed(replication: Recording, count: int) -> bool:
    """Wait (on the server's loop) until `count` commands have been relayed."""
    import asyncio

    for _ in range(6000):
        if sum(1 for call in replication.calls if call[0] == "relay") >= count:
            return True
        await asyncio.sleep(0.005)
    return False
