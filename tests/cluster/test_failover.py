"""A cluster at work: three nodes behind HAProxy, thirty games played by clients on every node, nodes killed
(`kill -9`) during play, Redis restarted and PostgreSQL stopped and started during play, a node stalled (SIGSTOP)
past its leases during play, as a busy machine may stall one.

Afterwards: every game has gone on to its end; every action acknowledged to any client is in the log exactly
once; every client applied the log's commands in order, without a gap or a duplicate; spectators on other nodes
saw the same commands as the players. Waits are bounded conditions (no sleeps that a slow machine could beat);
how long takeovers took is measured and printed, not asserted (the benchmark reports the figure).
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import redis

from tests.server.helpers import PLANS, two_loops_belt, winning_seed

from .clients import RETRIABLE, Client, PlayerBot, Record
from .harness import Cluster


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    running = Cluster(nodes=3, lease=1.5)
    try:
        yield running
    finally:
        running.close()


class Game:
    """One game of the test: its id, players and spectator, and what each of them saw."""

    def __init__(self, cluster: Cluster, rng: random.Random) -> None:
        self.cluster = cluster
        body = {"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": winning_seed()}
        created = cluster.create(body)
        self.id = created["id"]
        tokens = {seat["settlers"][0]: seat["token"] for seat in created["seats"]}
        nodes = list(range(len(cluster.nodes)))
        self.players: dict[str, tuple[Client, Record]] = {}
        used = set()
        for settler in ("s1", "s2"):
            node = rng.choice(nodes)
            used.add(node)
            # first to a chosen node, then (reconnecting) through the balancer
            urls = [cluster.ws_url(self.id, tokens[settler], node), cluster.ws_url(self.id, tokens[settler])]
            record = Record()
            self.players[settler] = (Client(urls, record), record)
        others = [n for n in nodes if n not in used] or nodes
        self.spectator_record = Record()
        self.spectator = Client([cluster.ws_url(self.id, None, rng.choice(others)), cluster.ws_url(self.id)],
                                self.spectator_record)
        self.bots: dict[str, PlayerBot] = {}

    def clients(self) -> list[Client]:
        return [c for c, _ in self.players.values()] + [self.spectator]

    def records(self) -> list[Record]:
        return [r for _, r in self.players.values()] + [self.spectator_record]


def owners(cluster: Cluster, games: list[Game]) -> dict[str, str]:
    assert cluster.redis is not None
    client = redis.Redis.from_url(cluster.redis.url)
    try:
        out = {}
        for game in games:
            value = client.get(f"am:lease:{game.id}")
            if value is not None:
                out[game.id] = (value.decode() if isinstance(value, bytes) else str(value)).rpartition(" ")[0]
        return out
    finally:
        client.close()


def read_log(cluster: Cluster, game: str) -> dict[str, Any]:
    """The game's log; a `503 storage_failed` (a node whose connections have not yet noticed that PostgreSQL came
    back) is asked again, until a deadline generous enough for a busy machine."""
    deadline = time.monotonic() + 120
    while True:
        answer = httpx.get(f"{cluster.url}/api/games/{game}/log", timeout=30)
        if answer.status_code != 503 or time.monotonic() > deadline:
            break
        assert answer.json()["error"]["code"] == "storage_failed"
        time.sleep(0.2)
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def check_logs(cluster: Cluster, games: list[Game]) -> None:
    """Every game ended; every acknowledged ref is in its log once; every client's updates are the log's."""
    for game in games:
        log = read_log(cluster, game.id)
        commands = log["commands"]
        assert log["status"] == "won", f"game {game.id} ended {log['status']} at {log['seq']}"
        assert [c["seq"] for c in commands] == list(range(1, len(commands) + 1))
        refs = [c["by"].get("ref") for c in commands]
        assert None not in refs, "every command of these games was a player's, with its ref"
        assert len(refs) == len(set(refs)), f"game {game.id}: a command was played twice"
        by_seq = {c["seq"]: (c["action"], c["by"]) for c in commands}
        for _, record in game.players.values():
            for ref, seq in record.acknowledged.items():
                assert refs.count(ref) == 1 and by_seq[seq][1]["ref"] == ref
        for record in game.records():
            assert record.duplicates == 0
            for seq, seen in record.seen.items():
                assert by_seq[seq] == seen, f"game {game.id}: a client saw another command {seq}"
            # after its syncs, a client applied everything from its first state to the end: no gap
            assert max(record.seen) == len(commands)


THINK = 0.5
"""A player's average time to move: a game of 26 moves lasts about 13 s, long enough to kill nodes during it."""


async def play_all(games: list[Game], give_up: float) -> list[asyncio.Task[Any]]:
    rng = random.Random(7)
    readers = [asyncio.create_task(c.run()) for g in games for c in g.clients()]
    for game in games:
        for settler in ("s1", "s2"):
            game.bots[settler] = PlayerBot(game.players[settler][0], settler, PLANS[settler], THINK,
                                           random.Random(rng.random()))
    players = [asyncio.create_task(bot.play(give_up)) for g in games for bot in g.bots.values()]
    return readers + players


def progress(games: list[Game]) -> int:
    return min(max(g.spectator.seq, min(c.seq for c, _ in g.players.values())) for g in games)


def describe(games: list[Game]) -> str:
    """Where the games furthest behind stand, as their clients see them, and what the nodes logged of them (for a
    wait that timed out)."""
    lines = []
    behind = sorted(games, key=lambda g: max(c.seq for c in g.clients()))[:5]
    for game in behind:
        players = [f"{settler}: seq {client.seq}, turn {client.turn}, connected {client.connected.is_set()}, "
                   f"step {game.bots[settler].step if settler in game.bots else '-'}, errors {record.errors[-3:]}, "
                   f"closes {record.closes[-3:]}, failed opens {record.failed_opens[-3:]}"
                   for settler, (client, record) in game.players.items()]
        lines.append(f"game {game.id}: spectator seq {game.spectator.seq}; " + "; ".join(players))
    if behind:
        lines.append("the nodes' log lines of these games:")
        lines.append(behind[0].cluster.log_lines([g.id for g in behind]))
    return "\n".join(lines)


async def wait_for(condition: Any, timeout: float, what: str, tasks: list[asyncio.Task[Any]],
                   games: list[Game]) -> None:
    """Wait until `condition()`; fail at once when a client's task failed, or after `timeout` seconds (saying
    where the games furthest behind stand)."""
    deadline = time.monotonic() + timeout
    while not condition():
        for task in tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise AssertionError(f"a client failed while waiting for {what}:\n{describe(games)}"
                                     ) from task.exception()
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {timeout:g} s:\n{describe(games)}")
        await asyncio.sleep(0.05)


def takeover_times(games: list[Game], killed_at: float, before: dict[str, int]) -> list[float]:
    """For each game: the time from the kill to its next accepted command as any of its clients saw it."""
    out = []
    for game in games:
        if game.id not in before:
            continue
        firsts = [t for r in game.records() for t, seq in r.update_times if seq > before[game.id] and t >= killed_at]
        if firsts:
            out.append(min(firsts) - killed_at)
    return out


def test_games_go_on_when_nodes_are_killed(cluster: Cluster) -> None:
    rng = random.Random(13)
    games = [Game(cluster, rng) for _ in range(30)]
    measured: list[float] = []
    owners_at_kills: list[dict[str, int]] = []

    async def scenario() -> None:
        give_up = time.monotonic() + 600
        tasks = await play_all(games, give_up)
        try:
            alive = {f"node{i + 1}": i for i in range(len(cluster.nodes))}
            for kill, restart in ((0, False), (1, True)):
                await wait_for(lambda kill=kill: progress(games) >= 3 + 7 * kill, 240, "play before a kill", tasks,
                               games)
                owned = owners(cluster, games)
                counts = Counter(node for node in owned.values() if node in alive)
                assert counts, f"no live node owns a game: {owned}"
                owners_at_kills.append(dict(counts))
                name = counts.most_common(1)[0][0]  # the node with the most games: the most to take over
                victim = alive.pop(name)
                mine = {g.id: max(c.seq for c in g.clients()) for g in games if owned.get(g.id) == name}
                killed_at = time.monotonic()
                cluster.nodes[victim].kill9()
                taken = [g for g in games if g.id in mine]
                await wait_for(lambda taken=taken, mine=mine: all(
                    max(c.seq for c in g.clients()) > mine[g.id] or g.spectator.done for g in taken), 240,
                    f"the games of {name} going on", tasks, games)
                measured.extend(takeover_times(games, killed_at, mine))
                if restart:
                    cluster.nodes[victim].start()
            await wait_for(lambda: all(c.done for g in games for c in g.clients()), 300, "every game's end", tasks,
                           games)
            for task in tasks:
                task.cancel()
            results = await asyncio.gather(*tasks, return_exceptions=True)
            failures = [r for r in results if isinstance(r, BaseException) and not isinstance(
                r, asyncio.CancelledError)]
            assert not failures, failures
        finally:
            for task in tasks:
                task.cancel()

    asyncio.run(scenario())
    assert measured  # games were taken over (how fast is the benchmark's figure: bench_server.py --cluster)
    print(f"takeovers: {len(measured)} games, kill to next accepted command: max {max(measured):.2f} s, "
          f"mean {sum(measured) / len(measured):.2f} s; games per node at the kills: {owners_at_kills}; "
          f"connection attempts that failed: {sum(len(r.failed_opens) for g in games for r in g.records())}")
    check_logs(cluster, games)
    for game in games:
        for record in game.records():
            assert set(record.errors) <= RETRIABLE, record.errors


def test_play_resumes_after_redis_restarts_and_postgres_stops_and_starts() -> None:
    running = Cluster(nodes=2, lease=1.5)
    try:
        rng = random.Random(5)
        games = [Game(running, rng) for _ in range(6)]

        async def scenario() -> None:
            give_up = time.monotonic() + 600
            tasks = await play_all(games, give_up)
            try:
                await wait_for(lambda: progress(games) >= 4, 240, "play before Redis restarts", tasks, games)
                assert running.redis is not None and running.postgres is not None
                running.redis.stop()
                await asyncio.sleep(0.5)  # clients keep playing meanwhile; errors must be clean
                running.redis.start()
                mark = progress(games)
                await wait_for(lambda: progress(games) >= mark + 4, 240, "play after Redis restarted", tasks, games)
                running.postgres.stop()
                await asyncio.sleep(0.5)
                running.postgres.start()
                mark = progress(games)
                await wait_for(lambda: progress(games) >= mark + 2, 240, "play after PostgreSQL restarted", tasks,
                               games)
                await wait_for(lambda: all(c.done for g in games for c in g.clients()), 300, "every game's end",
                               tasks, games)
                for task in tasks:
                    task.cancel()
                results = await asyncio.gather(*tasks, return_exceptions=True)
                failures = [r for r in results if isinstance(r, BaseException) and not isinstance(
                    r, asyncio.CancelledError)]
                assert not failures, failures
            finally:
                for task in tasks:
                    task.cancel()

        asyncio.run(scenario())
        check_logs(running, games)
        errors = [code for game in games for record in game.records() for code in record.errors]
        closes = [code for game in games for record in game.records() for code in record.closes]
        print(f"errors told to clients: {sorted(errors)}; connections closed with {sorted(closes)}")
        for game in games:
            for record in game.records():
                assert set(record.errors) <= RETRIABLE, record.errors
    finally:
        running.close()


def test_play_goes_on_when_a_node_stalls_past_its_leases() -> None:
    """A node that a busy machine stalls for longer than a lease (here stopped with SIGSTOP for four leases, at a
    moment of play chosen by no clock) loses its games to the other node, which plays them on; when it wakes up it
    finds them fenced off and lets them go. Every command acknowledged is in the log once, none is played twice,
    and the clients hear only errors that say to try again."""
    running = Cluster(nodes=2, lease=1.5)
    try:
        rng = random.Random(11)
        games = [Game(running, rng) for _ in range(6)]

        async def scenario() -> None:
            give_up = time.monotonic() + 600
            tasks = await play_all(games, give_up)
            try:
                await wait_for(lambda: progress(games) >= 4, 240, "play before the stall", tasks, games)
                counts = Counter(owners(running, games).values())
                name = counts.most_common(1)[0][0]
                stalled = next(node for node in running.nodes if node.name == name)
                assert stalled.proc is not None
                mark = progress(games)
                os.kill(stalled.proc.pid, signal.SIGSTOP)
                try:
                    # the stalled node's leases run out and the other node takes its games over (when its
                    # clients' commands or its watchdog find no owner): play goes on without the stalled node
                    await wait_for(lambda: name not in owners(running, games).values(), 60,
                                   f"{name}'s leases running out", tasks, games)
                    await asyncio.sleep(running.lease * 2)  # the rest of the stall: not a condition, a length
                finally:
                    os.kill(stalled.proc.pid, signal.SIGCONT)
                await wait_for(lambda: progress(games) >= mark + 4, 240, "play after the stall", tasks, games)
                await wait_for(lambda: all(c.done for g in games for c in g.clients()), 300, "every game's end",
                               tasks, games)
                for task in tasks:
                    task.cancel()
                results = await asyncio.gather(*tasks, return_exceptions=True)
                failures = [r for r in results if isinstance(r, BaseException) and not isinstance(
                    r, asyncio.CancelledError)]
                assert not failures, failures
            finally:
                for task in tasks:
                    task.cancel()

        asyncio.run(scenario())
        check_logs(running, games)
        for game in games:
            for record in game.records():
                assert set(record.errors) <= RETRIABLE, record.errors
    finally:
        running.close()
