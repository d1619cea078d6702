"""Benchmark of a long game's history: what building its replay costs, what the cache keeps of it, and what asking
again costs (`GET /api/games/{id}/replay` and `…/events`).

Run: `.venv/bin/python benchmarks/bench_history.py [COMMANDS]` (default 20,000). A game of one settler on a
small belt without storms is stored with COMMANDS waits, then asked for over the app in process (TestClient):

- the first replay (a build: the whole game played again, its view tracked, the texts encoded), CPU seconds;
- the bytes the cache holds for it (the replay's and the events' JSON text) against the Python objects of the
  replay document it was encoded from (what the cache once kept: 616 MB for sixteen of these);
- the replay and the events asked for again, and the events after the last hundred commands (cache hits).

Prints a table; exits 1 when a target is missed. Targets (2-core machine): a cache hit ≤ 50 ms, the cached
history ≤ 40 MB for 20,000 commands.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from asteroid_mining.maps import parse_belt
from asteroid_mining.rules import Game, Options, action_from_json
from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.replay import build_replay
from asteroid_mining.storage import Command, Progress, SqliteStore

HIT_TARGET = 0.05
BYTES_TARGET = 40 * 1024 * 1024


def belt() -> dict[str, Any]:
    """Six asteroids in a ring, no storms."""
    ids = [f"a{i}" for i in range(6)]
    return {"format": "asteroid-mining/belt", "version": 1, "start": "a0", "storm_interval": 0,
            "asteroids": [{"id": aid, "mantle": 3, "core": "ice", "orbit": {"sun": "far"}} for aid in ids],
            "links": [[ids[i], ids[(i + 1) % 6]] for i in range(6)]}


def stored_game(data: Path, commands: int) -> str:
    """A game of `commands` waits in the store of `data`; its id."""
    with TestClient(create_app(Settings(data_dir=data, bot_delay=0.0))) as client:
        game_id = str(client.post("/api/games", json={"belt": belt(), "settlers_per_seat": 1, "seed": 3})
                      .json()["id"])
    record = asyncio.run(_record(data, game_id))
    game = Game.new(parse_belt(record.belt), Options.from_json(record.options), record.seed, record.settlers)

    async def append() -> None:
        store = SqliteStore(data, "NORMAL")
        await store.open()
        try:
            for seq in range(1, commands + 1):
                assert game.turn is not None
                action = {"type": "wait", "actor": game.turn}
                game.apply(action_from_json(action))
                progress = Progress(seq, game.status, game.round, game.turn, 1.0 + seq)
                await store.append(game_id, Command(seq, action, {"seat": 1}, 1.0 + seq), progress)
        finally:
            await store.close()

    asyncio.run(append())
    return game_id


async def _record(data: Path, game_id: str) -> Any:
    store = SqliteStore(data)
    await store.open()
    try:
        found = await store.log(game_id)
        assert found is not None
        return found[0]
    finally:
        await store.close()


def timed(client: TestClient, path: str) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, answer bytes) of one GET."""
    cpu, wall = time.process_time(), time.perf_counter()
    answer = client.get(path)
    assert answer.status_code == 200, answer.text
    return time.process_time() - cpu, time.perf_counter() - wall, len(answer.content)


def main() -> int:
    """Store the game, ask for its history, print the table; 1 when a target is missed."""
    commands = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    with tempfile.TemporaryDirectory() as data:
        game = stored_game(Path(data), commands)
        settings = Settings(data_dir=Path(data), bot_delay=0.0, history_rate_burst=1_000)
        with TestClient(create_app(settings)) as client:
            rows = [("replay (built)", *timed(client, f"/api/games/{game}/replay"))]
            cache = client.app.state.replays  # type: ignore[attr-defined]
            kept = cache.bytes
            rows += [("replay (cached)", *timed(client, f"/api/games/{game}/replay")),
                     ("events (cached)", *timed(client, f"/api/games/{game}/events")),
                     ("events after (cached)", *timed(client, f"/api/games/{game}/events?after={commands - 100}"))]
            assert cache.builds == 1
            portal = client.portal
            assert portal is not None
            found = portal.call(client.app.state.hub.store.log, game)  # type: ignore[attr-defined]
        tracemalloc.start()
        document = build_replay(*found)
        objects = tracemalloc.get_traced_memory()[0]
        tracemalloc.stop()
        del document
    print(f"{commands} commands; the cache holds {kept / 2**20:.1f} MB of text for the replay and its events "
          f"(the replay document as objects: {objects / 2**20:.1f} MB)")
    print(f"{'request':<24}{'CPU s':>8}{'wall s':>8}{'bytes':>12}")
    failed = kept > BYTES_TARGET * commands / 20_000
    for name, cpu, wall, size in rows:
        print(f"{name:<24}{cpu:>8.3f}{wall:>8.3f}{size:>12}")
        if "cached" in name and wall > HIT_TARGET:
            failed = True
    if failed:
        print(f"  missed: a cache hit ≤ {HIT_TARGET * 1000:g} ms, the history ≤ {BYTES_TARGET / 2**20:g} MB")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
