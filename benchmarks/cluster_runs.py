"""The cluster runs of `bench_server.py --cluster N` (not a benchmark of its own): the same workload through
HAProxy to N nodes on a throwaway PostgreSQL and Redis (all on this machine), then a takeover measured.

The takeover: games owned by node 1 (a spectator connects there first, so node 1 takes them), played by clients
connected to the other nodes, at a person's pace; node 1 is killed with SIGKILL; for each of its games, the time
from the kill to the game's next accepted command as its clients see it. A client whose command got no answer
within two seconds sends it again, with the same ref (the new owner acknowledges it if it had been played).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from asteroid_mining.server.config import Settings

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's root: the launcher is in tools/
from tools.cluster import BALANCER_MAXCONN, LocalCluster

_refs = itertools.count(random.randrange(1, 2**40))


def run_cluster(args: argparse.Namespace, limits: list[str], runner: Callable[..., Any], bench: Callable[..., Any],
                report: Callable[[dict[str, Any]], None]) -> int:
    """Start the cluster, run the workload through the balancer, measure a takeover, stop everything."""
    # every client of the benchmark comes from this machine's one address
    cluster = LocalCluster(args.cluster, port=None, fsync=True, extra=tuple(limits), balance=args.balance,
                           per_client=BALANCER_MAXCONN)
    try:
        assert cluster.balancer is not None and cluster.postgres is not None and cluster.redis is not None
        parts = {"server": [n.process.proc.pid for n in cluster.nodes if n.process.proc is not None],
                 "postgresql": [cluster.postgres.process.proc.pid],  # type: ignore[union-attr]
                 "redis": [cluster.redis.process.proc.pid],  # type: ignore[union-attr]
                 "haproxy": [cluster.balancer.process.proc.pid]}  # type: ignore[union-attr]
        result = runner(bench(args, cluster.balancer.url, parts))
        result["nodes"] = args.cluster
        result["balance"] = args.balance
        result["node_cpu_ms_per_action_each"] = round(result["cpu_ms_per_action"]["server"] / args.cluster, 3)
        if args.cluster > 1:
            result["takeover"] = runner(takeover(cluster, args.takeover_games))
    finally:
        cluster.close()
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    pace = f"acting {args.think:g} s after their turn comes" if args.think else "acting the instant their turn comes"
    balance = "round robin" if args.balance == "roundrobin" else "one node per game"
    print(f"cluster benchmark: {args.cluster} nodes, PostgreSQL, Redis and HAProxy ({balance}); "
          f"{result['games']} games x {args.clients} clients on the {args.belt} belt, {args.rounds} rounds each, "
          f"{pace}")
    report(result)
    if "takeover" in result:
        t = result["takeover"]
        print(f"  takeover           {t['games']} games of a killed node: kill -> next accepted command "
              f"median {t['median_s']} s, max {t['max_s']} s; {t['stuck']} did not go on within 30 s "
              f"(lease {t['lease_s']} s)")
    return 0


async def takeover(cluster: LocalCluster, count: int) -> dict[str, Any]:
    """Kill node 1 during play; how long until each of its games went on."""
    owner, others = cluster.nodes[0], cluster.nodes[1:]
    async with httpx.AsyncClient(timeout=60) as http:
        created = [(await http.post(f"{owner.url}/api/games", json={"seats": 2, "settlers_per_seat": 1,
                                                                     "belt": "small", "seed": i})).json()
                   for i in range(count)]
    games = [TakeoverGame(game, [others[i % len(others)], others[(i + 1) % len(others)]])
             for i, game in enumerate(created)]
    watchers = [await connect(f"{owner.url.replace('http', 'ws')}/api/games/{g.id}/ws", open_timeout=30)
                for g in games]  # the first client of each game is on node 1: node 1 owns it
    for watcher in watchers:
        await watcher.recv()
    tasks = [asyncio.create_task(g.play()) for g in games]
    try:
        await asyncio.sleep(3)
        playing = [g for g in games if g.status == "running"]  # a game lost to a storm has no next command
        before = {id(g): g.seq for g in playing}
        killed = time.monotonic()
        owner.kill9()
        deadline = killed + 30
        while time.monotonic() < deadline and not all(g.seq > before[id(g)] for g in playing):
            await asyncio.sleep(0.02)
        times = [g.first_after(killed) for g in playing]
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for watcher in watchers:
            watcher.transport.abort()
    went_on = [t - killed for t in times if t is not None]
    return {"games": len(playing), "lease_s": Settings.from_env().lease_seconds, "stuck": len(playing) - len(went_on),
            "median_s": round(statistics.median(went_on), 2) if went_on else None,
            "max_s": round(max(went_on), 2) if went_on else None}


class TakeoverGame:
    """Two players of one game, on nodes that do not own it, acting 0.1-0.3 s after their turn comes."""

    def __init__(self, game: dict[str, Any], nodes: list[Any]) -> None:
        self.id = game["id"]
        self.seats = [(seat["settlers"][0], seat["token"], node) for seat, node in zip(game["seats"], nodes,
                                                                                      strict=True)]
        self.seq = -1
        self.turn: str | None = None
        self.status = "running"
        self.times: list[tuple[float, int]] = []
        self.answered: dict[int, asyncio.Event] = {}

    def first_after(self, moment: float) -> float | None:
        return next((t for t, _ in self.times if t >= moment), None)

    async def play(self) -> None:
        await asyncio.gather(*(self._player(settler, token, node) for settler, token, node in self.seats))

    async def _player(self, settler: str, token: str, node: Any) -> None:
        url = f"{node.url.replace('http', 'ws')}/api/games/{self.id}/ws?token={token}"
        async with connect(url, open_timeout=30) as ws:
            reader = asyncio.create_task(self._read(ws))
            try:
                while True:
                    if self.turn != settler:
                        await asyncio.sleep(0.02)
                        continue
                    await asyncio.sleep(random.uniform(0.1, 0.3))
                    ref = next(_refs)
                    answered = self.answered[ref] = asyncio.Event()
                    while not answered.is_set():
                        await ws.send(json.dumps({"type": "act", "settler": settler, "action": "wait", "ref": ref}))
                        try:
                            await asyncio.wait_for(answered.wait(), 2)
                        except TimeoutError:
                            continue
            finally:
                reader.cancel()

    async def _read(self, ws: Any) -> None:
        async for text in ws:
            message = json.loads(text)
            if message["type"] == "state":
                self.seq = max(self.seq, message["seq"])
                self.turn, self.status = message["state"]["turn"], message["state"]["status"]
            elif message["type"] == "update":
                if message["seq"] > self.seq:  # the first of the game's clients to hear of it
                    self.times.append((time.monotonic(), message["seq"]))
                self.seq = max(self.seq, message["seq"])
                self.turn, self.status = message["diff"]["turn"], message["diff"]["status"]
            event = self.answered.get(message.get("ref"))  # type: ignore[arg-type]
            if event is not None and message["type"] in ("update", "ack"):
                event.set()
