"""What the eighth fresh attack found on a cluster: a follower kept, for ever, every connection that had left
before its commands were relayed to the game's owner (and with it the whole game it had played); a node kept
every message it could not publish while Redis did not answer, without bound; a game id with a NUL character was
answered as the storage being away."""

from __future__ import annotations

import asyncio
import gc
import signal
import time
import weakref
from pathlib import Path

from asteroid_mining.server.cluster import bus as bus_module
from asteroid_mining.server.cluster.bus import Bus, game_channel
from asteroid_mining.server.cluster.node import connect_redis
from asteroid_mining.server.cluster.replication import shared
from asteroid_mining.server.live import Connection, LiveGame
from asteroid_mining.server.outbox import Outbox
from asteroid_mining.server.play import CLOSE_NO_GAME
from tests.cluster.in_process import node, served_node
from tests.cluster.test_bus import Listener
from tests.cluster.test_takeover_races import DEADLINE, Told, owned_game, running, step, until
from tests.server.hubs import refused
from tests.services import Redis


def letting_go_over() -> bool:
    """No node is letting a game go any more (`ClusterHub._let_go`: it holds the game until it has ended)."""
    return not any(task.get_coro().__qualname__ == "ClusterHub._let_go"  # type: ignore[union-attr]
                   for task in asyncio.all_tasks())


def test_a_connection_gone_before_its_commands_were_relayed_is_not_kept(services: tuple[Redis, str],
                                                                        tmp_path: Path) -> None:
    """A follower remembers each connection whose command it relays (the owner's answer comes back for it) and
    forgot it when the connection left; a command still waiting in the game's inbox when its connection left was
    relayed afterwards, and remembered again, for ever, and with it the connection's game, however long ago the
    follower had let it go. A client connecting with a seat's token through a node that did not own its game,
    sending five `wait`s and closing, 1,000 times, grew that node by 25.6 KB a time (91 to 116 MB); with the game
    let go after each (a `large` belt, `follower_keep_seconds` 0), by 6.0 MB a time (209 to 795 MB in 100). The
    commands of a connection that has left are still relayed, and played, but the connection is not remembered."""
    redis, database = services
    owner = node(redis, database, tmp_path, "a")
    follower = node(redis, database, tmp_path, "b", follower_keep_seconds=0)

    async def relayed_after_leaving(game_id: str) -> weakref.ref[LiveGame]:
        """A seat's connection through the follower queues three commands and leaves before any is relayed; the
        follower's copy of the game, weakly."""
        async with follower.acquire(game_id) as live:
            assert live is not None and not shared(live).owner  # type: ignore[union-attr]
            conn = Connection(live.seats[0], Outbox(100, Told()))
            live.join(conn)
            for index in range(3):  # the first is played, the next two refused (not this seat's turn)
                live.enqueue(conn, step("s1", 0), f"s1-{index}")
            live.leave(conn)  # gone before the game's owner task has relayed any of them
            await until(lambda: live.quiet, "the relays of the commands waiting")
            await until(lambda: live.seq == 1, "the first command played and followed")
            return weakref.ref(live)

    async def scenario() -> None:
        owned = await owned_game(owner)
        copy = await relayed_after_leaving(owned.id)
        assert owned.seq == 1
        assert owned.id not in follower.games  # let go: nobody is connected to it here
        await until(letting_go_over, "the follower's letting the game go")
        gc.collect()
        assert follower._senders == {}, "a connection that had left is remembered still"
        assert copy() is None, "the game the follower let go is held still"

    asyncio.run(running([owner, follower], scenario))


def test_messages_waiting_for_a_paused_redis_are_bounded() -> None:
    """While Redis does not answer (paused with SIGSTOP, or a network dropping its packets), a node's publishing
    waits out the client's timeout twice (4 s) for each batch of 256 messages, and every message published
    meanwhile (each command an owner plays, its seq beats, the answers to other nodes' clients) waited in a queue
    without bound, 4 KB each: 14 MB in 30 s of an owner playing 150 commands a second of eight programs' games.
    At most `MAX_OUTGOING` wait now; the others are dropped, as pub/sub drops what a node misses, and once Redis
    answers again the node publishes as before."""
    with Redis().start() as redis:
        process = redis.process
        assert process is not None

        async def scenario() -> None:
            client = connect_redis(redis.url)
            sender = Bus(client, "sender", lambda channel, data: None)
            await sender.start()
            listener = Listener(redis.url)
            try:
                await listener.start("g")
                process.send_signal(signal.SIGSTOP)
                try:
                    for seq in range(bus_module.MAX_OUTGOING + 1_000):
                        sender.publish(game_channel("g"), {"t": "update", "g": "g", "seq": seq})
                    assert sender._outgoing.qsize() <= bus_module.MAX_OUTGOING
                finally:
                    process.send_signal(signal.SIGCONT)
                await until(sender._outgoing.empty, "the messages kept sent once Redis answers")
                deadline = time.monotonic() + DEADLINE
                while not any(m.get("seq") == -1 for m in listener.heard):  # published as before
                    assert time.monotonic() < deadline, "nothing published after Redis answered again arrived"
                    sender.publish(game_channel("g"), {"t": "seq", "g": "g", "seq": -1})
                    await asyncio.sleep(0.05)
            finally:
                await listener.close()
                await sender.close()
                await client.aclose()

        asyncio.run(scenario())


def test_a_game_id_postgresql_cannot_hold_is_no_game(services: tuple[Redis, str], tmp_path: Path) -> None:
    """PostgreSQL's text holds no NUL character, and the driver refused every query naming a game id with one
    (`/api/games/%00`): a cluster node answered `503 storage_failed` ("the games' storage cannot be reached at the
    moment; try again", with `Retry-After`, and a warning in its log), for the game, its log, summary, events,
    replay, abandon, hint and WebSocket alike, where there is simply no such game. It is `404 game_not_found`
    now (close `4404` for a WebSocket), as on one server."""
    redis, database = services
    with served_node(redis, database, tmp_path, "a") as served:
        for path in ("/api/games/%00", "/api/games/a%00b/log", "/api/games/%00/summary", "/api/games/%00/events",
                     "/api/games/%00/replay"):
            answer = served.get(path)
            assert (answer.status_code, answer.json()["error"]["code"]) == (404, "game_not_found"), (path, answer.text)
        for path in ("/api/games/%00/abandon", "/api/games/%00/hint"):
            answer = served.post(path, json={"token": "x"})
            assert (answer.status_code, answer.json()["error"]["code"]) == (404, "game_not_found"), (path, answer.text)
        with served.websocket_connect("/api/games/%00/ws") as session:
            refused(session, "game_not_found", CLOSE_NO_GAME)
