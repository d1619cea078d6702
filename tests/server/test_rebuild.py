"""One rebuild of a stored game (server/rebuild.py over `Game.play_history`), and what a refused command does."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from asteroid_mining.maps import parse_belt
from asteroid_mining.rules import CLASSIC, Game, GameFormatError, action_from_json
from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.meta import GameMeta, MetaError
from asteroid_mining.server.rebuild import DamagedGame, rebuild
from asteroid_mining.server.replay import build_replay
from asteroid_mining.server.seats import Seat
from asteroid_mining.storage import Command, GameRecord, Progress, Snapshot
from asteroid_mining.storage.sqlite import SqliteStore

from .helpers import PLANS, as_action, two_loops_belt, winning_seed

META = GameMeta("classic", "Two Loops", None, "testclient",
                (Seat(1, "human", ("s1",), "digest1"), Seat(2, "human", ("s2",), "digest2")))


def _record(game_id: str = "g1") -> GameRecord:
    return GameRecord(game_id, 1.0, two_loops_belt(), CLASSIC.to_json(), winning_seed(), 2, META.to_json())


def _commands(actions: list[dict[str, Any]]) -> list[Command]:
    return [Command(seq, action, {"seat": 2 - seq % 2}, 1.0 + seq) for seq, action in enumerate(actions, start=1)]


def _plan(steps: int) -> list[dict[str, Any]]:
    """The first `steps` actions of the two settlers' winning plan, in turn order."""
    order = [step for pair in zip(PLANS["s1"], PLANS["s2"], strict=True) for step in pair]
    return [as_action(step) for step in order[:steps]]


def _refused_log() -> list[Command]:
    """Three commands, the second refused by the engine: s2 plays out of turn."""
    actions = _plan(3)
    actions[1] = {"type": "wait", "actor": "s1"}
    return _commands(actions)


def test_rebuild_plays_the_log_from_the_start_or_a_snapshot() -> None:
    record, commands = _record(), _commands(_plan(8))
    played = Game.new(parse_belt(record.belt), CLASSIC, record.seed, 2)
    for command in commands:
        played.apply(action_from_json(command.action))
    assert rebuild(record, commands).to_json() == played.to_json()
    middle = rebuild(record, commands[:5])
    snapshot = Snapshot(5, middle.to_json())
    assert rebuild(record, commands[5:], snapshot).to_json() == played.to_json()
    seen: list[int] = []
    rebuild(record, commands, on_step=lambda command, events: seen.append(command.seq))
    assert seen == list(range(1, 9))


def test_a_refused_command_stops_the_rebuild_naming_it() -> None:
    with pytest.raises(DamagedGame) as caught:
        rebuild(_record(), _refused_log())
    assert caught.value.code == "game_damaged"
    assert "game g1 cannot be rebuilt: commands[2]: refused on replay:" in str(caught.value)
    assert "s1" in str(caught.value)


def test_the_engine_replay_behaves_the_same() -> None:
    record = _record()
    history = [c.action for c in _refused_log()]
    with pytest.raises(GameFormatError) as caught:
        Game.replay(parse_belt(record.belt), CLASSIC, record.seed, 2, history)
    assert caught.value.path == "history[1]"
    assert caught.value.reason.startswith("refused on replay: ")


def test_an_unreadable_command_is_named_too() -> None:
    commands = _commands([*_plan(2), {"type": "teleport", "actor": "s1"}])
    with pytest.raises(DamagedGame, match=r"commands\[3\]\.type: unknown action type 'teleport'"):
        rebuild(_record(), commands)


def test_the_replay_document_uses_the_same_rebuild() -> None:
    record, commands = _record(), _commands(_plan(4))
    replay = build_replay(record, Progress(4, "running", 2, "s1", 5.0), commands)
    assert [step["seq"] for step in replay["steps"]] == [1, 2, 3, 4]
    assert replay["seats"] == META.seats_public() and replay["belt"] == "Two Loops"
    with pytest.raises(DamagedGame, match=r"commands\[2\]"):
        build_replay(record, Progress(3, "running", 2, "s1", 5.0), _refused_log())


def test_the_metadata_round_trips_and_names_what_is_damaged() -> None:
    assert GameMeta.from_json(META.to_json()) == META
    assert GameMeta.from_json({"seats": []}) == GameMeta("classic", "", None, "", ())
    bad = {**META.to_json(), "seats": [{"seat": 1, "kind": "human", "settlers": "s1", "token": ""}]}
    with pytest.raises(MetaError, match=r"meta\.seats\[0\]\.settlers"):
        GameMeta.from_json(bad)
    with pytest.raises(MetaError, match=r"meta\.turn_seconds"):
        GameMeta.from_json({**META.to_json(), "turn_seconds": "soon"})


def _damaged_store(data: Path) -> None:
    """A store holding game `bad`, whose log has a command the engine refuses."""
    async def fill() -> None:
        store = SqliteStore(data)
        await store.open()
        try:
            await store.create(_record("bad"), Progress(0, "running", 1, "s1", 1.0))
            for command in _refused_log():
                await store.append("bad", command, Progress(command.seq, "running", 1, "s1", command.at))
        finally:
            await store.close()

    asyncio.run(fill())


def test_the_server_answers_game_damaged(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static")
    _damaged_store(settings.data_dir)
    with TestClient(create_app(settings)) as client:  # resuming it at start-up fails, and the server starts
        for path in ("/api/games/bad", "/api/games/bad/replay"):
            answer = client.get(path)
            assert answer.status_code == 409  # not a server failure: the game is listed as damaged
            error = answer.json()["error"]
            assert error["code"] == "game_damaged"
            assert "commands[2]: refused on replay" in error["message"]
        # the log itself is still there, for the seats' tokens while the game is in play (its hidden cores)
        assert client.get("/api/games/bad/log").json()["error"]["code"] == "game_running"
        with client.websocket_connect("/api/games/bad/ws") as ws:
            assert ws.receive_json()["code"] == "game_damaged"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4410
