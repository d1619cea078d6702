"""One ref, one effect when a write's outcome is unknown: the store took the command, but its answer was lost
(the database stopped between its commit and its reply). The owner rereads the game from the store and finds the
command there; its sender and a resend of its ref are answered with its `ack`, and it is never played again.

The cluster's failover test once failed so, at PostgreSQL's restart: a resent `mine` was refused `core_hollow`
(played once already, its ref unknown to the game reread). Here the lost answer is injected at that very point.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from asteroid_mining.server import Settings, create_app
from asteroid_mining.storage import SqliteStore, StorageError

from .helpers import PLANS, in_process, stored_log, two_loops_belt, winning_seed


class LostAnswer(SqliteStore):
    """A store whose next append is committed, and then reported failed (as a connection that broke before the
    commit's answer came back is)."""

    lose_next = False

    async def append(self, *args: Any, **kwargs: Any) -> None:
        await super().append(*args, **kwargs)
        if self.lose_next:
            self.lose_next = False
            raise StorageError("OperationalError: the connection was closed before the commit's answer")


def ws_path(game: dict[str, Any], seat: int) -> str:
    return f"/api/games/{game['id']}/ws?token={game['seats'][seat - 1]['token']}"


def test_a_command_stored_though_its_write_failed_is_acknowledged_and_never_played_again(settings: Settings) -> None:
    from fastapi.testclient import TestClient

    store = LostAnswer(settings.data_dir)
    with TestClient(create_app(settings, store=store)) as client:
        body = {"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": winning_seed()}
        game = client.post("/api/games", json=body).json()
        with client.websocket_connect(ws_path(game, 1)) as s1, client.websocket_connect(ws_path(game, 2)) as s2:
            one, two = in_process(s1), in_process(s2)
            one.next_of("state")
            two.next_of("state")
            one.act(**PLANS["s1"][0], ref=1)  # s1 moves to a1
            assert one.next_of("update")["seq"] == two.next_of("update")["seq"] == 1
            two.act(**PLANS["s2"][0], ref=1)
            assert one.next_of("update")["seq"] == two.next_of("update")["seq"] == 2
            store.lose_next = True
            one.act(**PLANS["s1"][1], ref=2)  # s1 mines a1: stored, but the store says it failed
            assert one.next_of("state")["seq"] == 3  # everyone gets the game as the store has it, with the mine
            assert one.next() == {"type": "ack", "ref": 2, "seq": 3}  # was: storage_failed ("it was not played")
            assert two.next_of("state")["seq"] == 3
            two.act(**PLANS["s2"][1], ref=2)
            assert one.next_of("update")["seq"] == two.next_of("update")["seq"] == 4
            one.act(**PLANS["s1"][1], ref=2)  # s1 sends its mine again: it is s1's turn, and a1 is hollow now
            assert one.next() == {"type": "ack", "ref": 2, "seq": 3}  # was: refused core_hollow
        commands = stored_log(client, game["id"])["commands"]
    assert [(c["seq"], c["by"]["seat"], c["by"]["ref"]) for c in commands] == [(1, 1, 1), (2, 2, 1), (3, 1, 2),
                                                                                (4, 2, 2)]


def test_a_command_stored_with_a_snapshot_though_its_write_failed_is_recognised(settings: Settings,
                                                                                  tmp_path: Path) -> None:
    """The command the store's answer was lost for is the one a snapshot was taken at: the game reread starts
    from the snapshot, and the command's ref is read from the log."""
    from fastapi.testclient import TestClient

    settings = dataclasses.replace(settings, snapshot_every=2)
    store = LostAnswer(settings.data_dir)
    with TestClient(create_app(settings, store=store)) as client:
        game = client.post("/api/games", json={"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                               "seed": 3}).json()
        with client.websocket_connect(ws_path(game, 1)) as session:
            me = in_process(session)
            me.next_of("state")
            me.act("s1", "wait", ref="w-1")
            assert me.next_of("update")["seq"] == 1
            store.lose_next = True
            me.act("s1", "wait", ref="w-2")  # stored as command 2, with the snapshot at 2
            assert me.next_of("state")["seq"] == 2
            assert me.next() == {"type": "ack", "ref": "w-2", "seq": 2}
            me.act("s1", "wait", ref="w-2")  # a `wait` sent again would be played again (was: seq 3)
            assert me.next() == {"type": "ack", "ref": "w-2", "seq": 2}
            me.act("s1", "wait", ref="w-3")
            assert me.next_of("update")["seq"] == 3
        commands = stored_log(client, game["id"])["commands"]
    assert [c["by"]["ref"] for c in commands] == ["w-1", "w-2", "w-3"]
