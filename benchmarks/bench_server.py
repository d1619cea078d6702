"""Server benchmark: many games played at once over WebSockets on loopback, against a real server process.

Workload (issue 4): 200 concurrent games on the standard belt, 4 seats of one settler each, one WebSocket client
per seat; each client acts the moment its settler's turn comes (a move to a random neighbour, a drill, or a
wait), until its game has played `--rounds` rounds. Reported: actions/s, latency from a client's action to the
moment every client of the game has its update (p50/p99), errors, and the server's memory per game (its RSS
growth divided by the number of games). Traffic goes only to 127.0.0.1. The server is a separate process
(`python -m asteroid_mining.server`, defaults but for the rate limit: these clients play faster than people).

Each client takes its settler's choices (`Game.choices`, sent with the state and with every update that changes
them), as the browser does; a bot that judges its moves itself connects with `choices=false` and is sent none.
By default the benchmark runs twice, on a fresh server each time: clients taking choices, then clients taking
none, and reports both (`--choices true` or `--choices false` runs one).

Acting the instant a turn comes is a closed loop: the server is saturated and the latency is mostly queueing
(200 games waiting on each other). `--think 0.25` has each client wait about that long (0.5 to 1.5 times it)
before acting, as people and bots do, to show the latency at a given load instead.

    python benchmarks/bench_server.py                       # 200 games x 4 clients, 50 rounds each, with and
                                                            # without choices
    python benchmarks/bench_server.py --choices false       # clients that take no choices only
    python benchmarks/bench_server.py --think 0.25          # the same, paced
    python benchmarks/bench_server.py --games 20 --rounds 5 # a quick look
    python benchmarks/bench_server.py --deflate             # clients offering permessage-deflate, as browsers do
    python benchmarks/bench_server.py --database postgresql # one server on a throwaway PostgreSQL instead of SQLite
    python benchmarks/bench_server.py --cluster 3           # PostgreSQL, Redis, 3 nodes, clients through HAProxy;
                                                            # then a node killed: how long its games' takeover takes
    python benchmarks/bench_server.py --cluster 3 --balance uri  # each game's clients sent to one node
    python benchmarks/bench_server.py --instructions --games 20 --rounds 20 --timeout 600
                                                            # the server under valgrind's callgrind: instructions
                                                            # per action, which the machine's load does not move

With `--cluster N` (Debian's postgresql, redis-server and haproxy) the clients connect through the round-robin
balancer, so most of them reach a node that does not own their game; the CPU of each part (the nodes, PostgreSQL,
Redis, HAProxy) is measured from /proc over the run.

CPU time per action moves by a fifth from run to run on a shared machine. `--instructions` counts instead the
instructions the server runs while the games are played (Debian's valgrind: `callgrind_control` switches the
counting on as play starts and off as it ends), to within about 1 % from run to run. It leaves out the kernel's
work (sending and receiving) and the processor's cache misses, so it complements the CPU time, not replaces it.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory
from websockets.frames import Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri

TARGET_P99_MS = 50.0
TARGET_MB_PER_GAME = 2.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def machine_busy_seconds() -> float:
    """CPU seconds used by everything on the machine so far (all cores)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return (sum(values[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of a process, its finished children and its live descendants (PostgreSQL's backends)."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(v) for v in fields[11:15]) / tick  # its own time and its finished children's
        todo += children.get(current, [])
    return total


def parts_cpu(parts: dict[str, list[int]]) -> dict[str, float]:
    """CPU seconds so far of each part (each a list of process trees)."""
    return {name: sum(tree_cpu_seconds(pid) for pid in pids) for name, pids in parts.items()}


@dataclass
class Stats:
    actions: int = 0
    errors: list[str] = field(default_factory=list)
    all_clients_ms: list[float] = field(default_factory=list)
    delivery_ms: list[float] = field(default_factory=list)


HEAD = re.compile(r'\{"type":"update","seq":(\d+),')
"""The start of an update: its seq is read from there (the rest is parsed once per game, not once per client)."""


class GameRun:
    """One game: its clients' shared bookkeeping (sent times, who has received what) and its view.

    The four clients of a game live in this one process: the first to receive an update parses it for all,
    so that the benchmark spends its CPU on receiving, not on parsing the same text four times.
    """

    def __init__(self, game_id: str, clients: int, rounds: int, stats: Stats) -> None:
        self.id = game_id
        self.clients = clients
        self.rounds = rounds
        self.stats = stats
        self.sent: dict[int, float] = {}
        self.received: dict[int, int] = {}
        self.latest: dict[int, float] = {}
        self.done = asyncio.Event()
        self.seq = -1
        self.asteroids: dict[str, dict[str, Any]] = {}
        self.settlers: dict[str, dict[str, Any]] = {}
        self.round = 1
        self.status = "running"
        self.turn: str | None = None

    def take(self, seq: int, top: dict[str, Any]) -> None:
        """The view at `seq`, from a whole state or a diff."""
        self.seq = seq
        for key in ("round", "status", "turn"):
            if key in top:
                setattr(self, key, top[key])
        for record in top.get("asteroids", ()):
            self.asteroids[record["id"]] = record
        for aid, near, next_change in top.get("sun", ()):
            self.asteroids[aid].update(near=near, next_change=next_change)
        for record in top.get("settlers", ()):
            self.settlers[record["id"]] = record

    def see(self, seq: int, text: str) -> None:
        """An update received by one of the clients: parsed by the first of them."""
        if seq > self.seq:
            self.take(seq, json.loads(text)["diff"])

    def on_update(self, seq: int, now: float) -> None:
        sent = self.sent.get(seq)
        if sent is not None:
            self.stats.delivery_ms.append((now - sent) * 1000)
            self.latest[seq] = now
        count = self.received.get(seq, 0) + 1
        if count == self.clients:
            self.received.pop(seq, None)
            if sent is not None:
                self.stats.all_clients_ms.append((self.latest.pop(seq) - self.sent.pop(seq)) * 1000)
                self.stats.actions += 1
        else:
            self.received[seq] = count


class Socket(asyncio.Protocol):
    """One client's WebSocket on websockets' sans-I/O protocol (handshake, framing, masking, pings).

    The benchmark's 800 clients share the machine's two cores with the server, so each costs as little as it
    can: one callback per message received, no task per connection (websockets' asyncio client spends about
    half as much again per message, which the server then does not get).
    """

    def __init__(self, url: str, on_text: Callable[[str], None], deflate: bool = False) -> None:
        # deflate: offer permessage-deflate as browsers do (Chromium: `client_max_window_bits`, its own messages
        # compressed), so that the server compresses its large messages and reads compressed ones
        extensions = [ClientPerMessageDeflateFactory(client_max_window_bits=True)] if deflate else None
        self.protocol = ClientProtocol(parse_uri(url), max_size=2**22, extensions=extensions)
        self.on_text = on_text
        loop = asyncio.get_running_loop()
        self.open = loop.create_future()
        self.transport: Any = None  # uvloop's transports are not asyncio.Transport subclasses

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        self.protocol.send_request(self.protocol.connect())
        transport.write(b"".join(self.protocol.data_to_send()))

    def data_received(self, data: bytes) -> None:
        protocol = self.protocol
        protocol.receive_data(data)
        for event in protocol.events_received():
            if isinstance(event, Response):
                if not self.open.done():
                    failure = protocol.handshake_exc
                    if failure is None:
                        self.open.set_result(None)
                    else:
                        self.open.set_exception(failure)
            elif event.opcode is Opcode.TEXT:
                self.on_text(event.data.decode())
        out = protocol.data_to_send()  # pongs, the closing handshake
        if out and self.transport is not None:
            self.transport.write(b"".join(out))

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.open.done():
            self.open.set_exception(exc or ConnectionError("closed during the handshake"))

    def send(self, text: str) -> None:
        assert self.transport is not None
        self.protocol.send_text(text.encode())
        self.transport.write(b"".join(self.protocol.data_to_send()))

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class Client:
    """One seat's WebSocket client: acts on its settler's turn, as soon as it has received the update."""

    def __init__(self, run: GameRun, settler: str, seed: int, think: float) -> None:
        self.run = run
        self.think = think
        self.ws: Socket | None = None
        self.settler = settler
        self.rng = random.Random(seed)
        self.seq = -1
        self.first = asyncio.get_running_loop().create_future()
        self.playing = False

    def choice(self) -> dict[str, Any]:
        run = self.run
        here = run.asteroids[run.settlers[self.settler]["at"]]
        roll = self.rng.random()
        if roll < 0.6 and here["neighbours"]:
            return {"action": "move", "target": self.rng.choice(here["neighbours"])}
        if roll < 0.85 and here["mantle"] > 0:
            return {"action": "drill"}
        return {"action": "wait"}

    def act_if_my_turn(self) -> None:
        run = self.run
        if run.status != "running" or run.round > run.rounds:
            run.done.set()
            return
        # on what it knows itself: clients on a cluster's nodes hear of an update at different moments
        if run.turn == self.settler and self.seq == run.seq:
            if self.think:  # people are not in step: between half and one and a half times the think time
                asyncio.get_running_loop().call_later(self.think * (0.5 + self.rng.random()), self.act)
            else:
                self.act()

    def act(self) -> None:
        assert self.ws is not None
        message = {"type": "act", "settler": self.settler, **self.choice()}
        self.run.sent[self.seq + 1] = time.perf_counter()
        self.ws.send(json.dumps(message))

    def on_text(self, text: str) -> None:
        run = self.run
        try:
            now = time.perf_counter()
            head = HEAD.match(text)
            if head is not None:
                seq = int(head[1])
                if seq != self.seq + 1:
                    run.stats.errors.append(f"{run.id}: seq {seq} after {self.seq}")
                self.seq = seq
                run.see(seq, text)
                run.on_update(seq, now)
            else:
                message = json.loads(text)
                if message["type"] == "state":
                    self.seq = message["seq"]
                    run.take(self.seq, message["state"])
                    if not self.first.done():
                        self.first.set_result(None)
                        return
                else:
                    run.stats.errors.append(f"{run.id}: {message}")
            if self.playing and not run.done.is_set():
                self.act_if_my_turn()
        except Exception as failure:  # a broken message: an error of the run
            run.stats.errors.append(f"{run.id} {self.settler}: {type(failure).__name__}: {failure}")
            run.done.set()


class Barrier:
    """Every game connects its clients and has their states first (`ready`); then all start playing at once, when
    the benchmark says `go`."""

    def __init__(self, parties: int) -> None:
        self.waiting = parties
        self.ready = asyncio.Event()
        self.go = asyncio.Event()

    async def arrive(self) -> None:
        self.waiting -= 1
        if self.waiting == 0:
            self.ready.set()
        await self.go.wait()


async def play_game(port: int, number: int, game: dict[str, Any], args: argparse.Namespace, stats: Stats,
                    barrier: Barrier) -> None:
    run = GameRun(game["id"], len(game["seats"]), args.rounds, stats)
    loop = asyncio.get_running_loop()
    # every client its own random moves and think times: games seeded alike would act in step
    clients = [Client(run, seat["settlers"][0], number * len(game["seats"]) + i, args.think)
               for i, seat in enumerate(game["seats"])]
    try:
        try:
            for client, seat in zip(clients, game["seats"], strict=True):
                url = f"ws://127.0.0.1:{port}/api/games/{game['id']}/ws?token={seat['token']}"
                if args.choices == "false":
                    url += "&choices=false"
                _, client.ws = await loop.create_connection(
                    lambda u=url, c=client: Socket(u, c.on_text, args.deflate), "127.0.0.1", port)
                await asyncio.wait_for(client.ws.open, 60)
                await asyncio.wait_for(client.first, 60)
        finally:
            await barrier.arrive()
        for client in clients:
            client.playing = True
        for client in clients:
            client.act_if_my_turn()  # the first turn's owner begins
        try:
            await asyncio.wait_for(run.done.wait(), args.timeout)
        except TimeoutError:
            stats.errors.append(f"{game['id']}: did not finish in time")
    except Exception as failure:
        stats.errors.append(f"{game['id']}: {type(failure).__name__}: {failure}")
    finally:
        for client in clients:
            if client.ws is not None:
                client.ws.close()


async def bench(args: argparse.Namespace, url: str, parts: dict[str, list[int]]) -> dict[str, Any]:
    stats = Stats()
    pid = parts["server"][0]
    port = int(url.rsplit(":", 1)[1])
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        rss_before = rss_mb(pid)
        body = {"seats": args.clients, "settlers_per_seat": 1, "belt": args.belt, "rules": "classic"}
        answers = await asyncio.gather(*(http.post("/api/games", json={**body, "seed": i}) for i in range(args.games)))
        for answer in answers:
            if answer.status_code != 201:
                raise SystemExit(f"could not create a game: {answer.status_code} {answer.text}")
        games = [a.json() for a in answers]
        rss_games = rss_mb(pid)
        barrier = Barrier(len(games))
        connecting = time.perf_counter()
        plays = [asyncio.create_task(play_game(port, n, g, args, stats, barrier)) for n, g in enumerate(games)]
        await barrier.ready.wait()
        connected = time.perf_counter() - connecting
        # the clients' collector is off while they play, so that its pauses are not taken for the server's (the
        # clients' views are long-lived and what they make in the meantime is freed by reference counting)
        gc.collect()
        gc.freeze()
        gc.disable()
        rss_connected = rss_mb(pid)
        cpu_before = sum(cpu_seconds(p) for p in parts["server"])
        parts_before = parts_cpu(parts)
        mine_before = time.process_time()
        machine_before = machine_busy_seconds()
        started = time.perf_counter()
        if args.instructions:
            callgrind_control(pid, "--instr=on")
        barrier.go.set()
        for run_task in plays:
            await run_task
        elapsed = time.perf_counter() - started
        if args.instructions:
            callgrind_control(pid, "--instr=off")
            callgrind_control(pid, "--dump=play")
        gc.enable()
        cpu = sum(cpu_seconds(p) for p in parts["server"]) - cpu_before
        parts_after = parts_cpu(parts)
        mine = time.process_time() - mine_before
        part_cpu = {name: parts_after[name] - parts_before[name] for name in parts}
        others = machine_busy_seconds() - machine_before - sum(part_cpu.values()) - mine
        rss_after = rss_mb(pid)
        lobby = (await http.get("/api/games")).json()["games"]
    lat = sorted(stats.all_clients_ms) or [float("nan")]
    deliveries = sorted(stats.delivery_ms) or [float("nan")]

    def pct(values: list[float], p: float) -> float:
        return values[min(len(values) - 1, int(p * len(values)))]

    return {
        "games": args.games, "clients": args.games * args.clients, "rounds": args.rounds, "belt": args.belt,
        "choices": args.choices != "false", "load_average": round(os.getloadavg()[0], 2),
        "actions": stats.actions, "seconds": round(elapsed, 2), "actions_per_s": round(stats.actions / elapsed, 1),
        "latency_all_clients_ms": {"p50": round(pct(lat, 0.5), 2), "p99": round(pct(lat, 0.99), 2),
                                   "max": round(lat[-1], 2), "mean": round(statistics.fmean(lat), 2)},
        "latency_one_delivery_ms": {"p50": round(pct(deliveries, 0.5), 2), "p99": round(pct(deliveries, 0.99), 2)},
        "errors": len(stats.errors), "first_errors": stats.errors[:5],
        "server_cpu_s_per_action_ms": round(cpu / max(1, stats.actions) * 1000, 3),
        "server_cpu_share": round(cpu / elapsed, 2), "clients_cpu_share": round(mine / elapsed, 2),
        "others_cpu_share": round(max(0.0, others) / elapsed, 2), "cores": os.cpu_count(), "think_s": args.think,
        "server_rss_mb": {"before": round(rss_before, 1), "after_creating": round(rss_games, 1),
                          "connected": round(rss_connected, 1), "after_playing": round(rss_after, 1)},
        "connect_s": round(connected, 2),
        "mb_per_game": round((rss_after - rss_before) / args.games, 3),
        "games_in_lobby_after": len(lobby),
        "cpu_ms_per_action": {name: round(value / max(1, stats.actions) * 1000, 3)
                              for name, value in part_cpu.items()},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--clients", type=int, default=4, help="seats (and clients) per game")
    parser.add_argument("--rounds", type=int, default=50, help="rounds each game plays")
    parser.add_argument("--belt", default="standard")
    parser.add_argument("--timeout", type=float, default=100.0, help="the whole run stops after this many seconds")
    parser.add_argument("--synchronous", default="FULL", choices=("FULL", "NORMAL"))
    parser.add_argument("--think", type=float, default=0.0, help="seconds a client waits before it acts, on average")
    parser.add_argument("--rate", type=float, default=1000.0,
                        help="the server's per-connection rate limit (messages/s): the clients play faster than people")
    parser.add_argument("--choices", default="both", choices=("both", "true", "false"),
                        help="whether the clients take their settlers' choices; both (default): a run of each")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each kind of client, alternating")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON only")
    parser.add_argument("--deflate", action="store_true",
                        help="the clients offer permessage-deflate, as browsers do (the server then compresses "
                             "messages of 16 KiB or more and reads the clients' compressed ones)")
    parser.add_argument("--instructions", action="store_true",
                        help="run the server under callgrind and count its instructions per action (slow: use "
                             "few games)")
    parser.add_argument("--database", default="sqlite", choices=("sqlite", "postgresql"),
                        help="the store of a single server: SQLite (default) or a throwaway PostgreSQL")
    parser.add_argument("--cluster", type=int, default=0, metavar="N",
                        help="N nodes on a throwaway PostgreSQL and Redis behind HAProxy (and a takeover measured)")
    parser.add_argument("--takeover-games", type=int, default=20, help="games of the killed node (with --cluster)")
    parser.add_argument("--balance", default="roundrobin", choices=("roundrobin", "uri"),
                        help="HAProxy's balancing with --cluster: round robin, or one game's requests to one node")
    args = parser.parse_args()

    try:
        import uvloop

        runner = uvloop.run
    except ImportError:
        runner = asyncio.run
    limits = ["--bot-delay", "0", "--max-games-per-client", str(args.games + args.takeover_games + 10),
              "--max-connections-per-client", str((args.games + args.takeover_games) * args.clients + 10),
              "--rate-per-second", str(args.rate), "--create-bytes-burst", str(1 << 40)]  # every game at once
    if args.cluster:
        from cluster_runs import run_cluster  # beside this file

        if args.choices == "both":
            args.choices = "true"
        return run_cluster(args, limits, runner, bench, report)
    if args.instructions and shutil.which("valgrind") is None:
        raise SystemExit("--instructions runs the server under valgrind: install it (apt-get install valgrind)")
    modes = ("true", "false") if args.choices == "both" else (args.choices,)
    results = []
    for _ in range(args.repeat):  # side by side: the machine's other work weighs on both alike
        for mode in modes:
            args.choices = mode
            results.append(run_server(args, limits, runner))
    if args.json:
        print(json.dumps(results if len(results) > 1 else results[0], indent=2))
        return 0
    pace = f"acting {args.think:g} s after their turn comes" if args.think else "acting the instant their turn comes"
    where = "PostgreSQL" if args.database == "postgresql" else f"SQLite synchronous={args.synchronous}"
    print(f"server benchmark: {args.games} games x {args.clients} clients on the {args.belt} belt, "
          f"{args.rounds} rounds each, {pace} ({where})")
    for result in results:
        print("clients taking their choices:" if result["choices"] else "clients taking no choices (choices=false):")
        report(result)
    if len(modes) == 2:
        ratios = []
        for taking, not_taking in zip(results[::2], results[1::2], strict=True):
            a, b = taking["server_cpu_s_per_action_ms"], not_taking["server_cpu_s_per_action_ms"]
            ratios.append(a / b)
            print(f"server CPU per action: {a} ms taking choices, {b} ms taking none ({a / b - 1:+.0%}); "
                  f"load average {taking['load_average']}, {not_taking['load_average']}")
        if len(ratios) > 1:
            print(f"taking choices costs the server {statistics.median(ratios) - 1:+.0%} CPU per action (median of "
                  f"{len(ratios)} pairs)")
    return 0


def run_server(args: argparse.Namespace, limits: list[str], runner: Callable[..., Any]) -> dict[str, Any]:
    """One run of the workload against a fresh server process (SQLite or a throwaway PostgreSQL)."""
    data = Path(tempfile.mkdtemp(prefix="bench-server-"))
    port = free_port()
    log = open(data / "server.log", "wb")  # noqa: SIM115 - closed below
    profile = os.environ.get("BENCH_SERVER_PROFILE")  # a file: run the server under cProfile, to look inside
    server_main = os.environ.get("BENCH_SERVER_MAIN")  # another entry point, to look inside
    times = data / "choices-times.json"  # what the server spent on choices, written by timed_server.py as it stops
    postgres = None
    store = ["--synchronous", args.synchronous]
    if args.database == "postgresql":
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository's root, for tools/
        from tools.cluster import Postgres

        postgres = Postgres(fsync=True).start()
        store = ["--database", postgres.create_database("games")]
    if server_main is None and args.instructions:
        server_main = "asteroid_mining.server"  # counted as it is, without the timing of `timed_server.py`
    entry = ["-m", server_main] if server_main else [str(Path(__file__).with_name("timed_server.py"))]
    counting = ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                f"--callgrind-out-file={data / 'callgrind.out.%p'}"] if args.instructions else []
    argv = [*counting, sys.executable, *(["-m", "cProfile", "-o", profile] if profile else []), *entry,
            "--port", str(port), "--data", str(data), *limits, *store]
    server = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env={**os.environ,
                                                                              "BENCH_CHOICES_TIMES": str(times)})
    url = f"http://127.0.0.1:{port}"
    parts = {"server": [server.pid]}
    if postgres is not None and postgres.process is not None and postgres.process.proc is not None:
        parts["postgresql"] = [postgres.process.proc.pid]
    try:
        # valgrind starts the server 20 to 50 times slower; a loaded machine several times
        for _ in range(4000 if args.instructions else 1200):
            try:
                if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.05)
        else:
            raise SystemExit("the server did not start")
        outcome = runner(bench(args, url, parts))
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        spent = json.loads(times.read_text()) if times.exists() else None
        counted = counted_instructions(data) if args.instructions else None
        shutil.rmtree(data, ignore_errors=True)
        if postgres is not None:
            postgres.close()
    result: dict[str, Any] = outcome
    if counted is not None:
        result["server_instructions_per_action"] = round(counted / max(1, result["actions"]))
    if spent is not None:  # the choices' time per action, and its share of the server's CPU per action
        per_action = {name: place["ns"] / max(1, result["actions"]) / 1000 for name, place in spent.items()}
        result["choices_us_per_action"] = {name: round(us, 2) for name, us in per_action.items()}
        result["choices_share"] = round(sum(per_action.values()) / 1000 / result["server_cpu_s_per_action_ms"], 4)
    return result


def callgrind_control(pid: int, option: str) -> None:
    """Tell the server's callgrind `option` (`--instr=on`, `--instr=off`, `--dump=NAME`)."""
    subprocess.run(["callgrind_control", option, str(pid)], check=True, capture_output=True)


def counted_instructions(data: Path) -> int | None:
    """The instructions callgrind counted during the play: the `totals:` of its dump at the end of the play (the
    dump as the server exits holds none, counting being off by then)."""
    totals = [int(line.split()[1]) for dump in data.glob("callgrind.out.*")
              for line in dump.read_text(errors="replace").splitlines() if line.startswith("totals:")]
    return max(totals, default=0) or None


def report(result: dict[str, Any]) -> None:
    """Print a run's figures."""
    lat = result["latency_all_clients_ms"]
    print(f"  connecting         {result['clients']} clients and their first states in {result['connect_s']} s")
    print(f"  actions            {result['actions']} in {result['seconds']} s = {result['actions_per_s']} actions/s")
    met = "met" if lat["p99"] <= TARGET_P99_MS else "MISSED"
    print(f"  latency (action -> every client updated)  p50 {lat['p50']} ms  p99 {lat['p99']} ms  "
          f"max {lat['max']} ms   [target p99 <= {TARGET_P99_MS:g} ms: {met}]")
    one = result["latency_one_delivery_ms"]
    print(f"  latency (action -> one client's update)   p50 {one['p50']} ms  p99 {one['p99']} ms")
    print(f"  errors             {result['errors']}  {result['first_errors'] or ''}")
    print(f"  CPU                server {result['server_cpu_s_per_action_ms']} ms per action; busy: server "
          f"{result['server_cpu_share']:.0%} of a core, the benchmark's clients {result['clients_cpu_share']:.0%}, "
          f"other programs on this machine {result['others_cpu_share']:.0%} ({result['cores']} cores)")
    rss = result["server_rss_mb"]
    met = "met" if result["mb_per_game"] <= TARGET_MB_PER_GAME else "MISSED"
    print(f"  server memory      {rss['before']} MB before, {rss['after_creating']} MB with the games, "
          f"{rss['connected']} MB with the clients, {rss['after_playing']} MB after playing: "
          f"{result['mb_per_game']} MB per game [target <= {TARGET_MB_PER_GAME:g}: {met}]")
    each = ", ".join(f"{name} {ms} ms" for name, ms in result["cpu_ms_per_action"].items())
    print(f"  CPU per action     {each}")
    if result["choices"] and "choices_share" in result:
        places = result["choices_us_per_action"]
        share = result["choices_share"]
        # against the rest of the action: what the same run would cost without them, from one run (no pairing)
        print(f"  choices            {sum(places.values()):.2f} µs per action in the server ({places['tracker']} µs "
              f"the tracker, {places.get('seats', 0)} µs the seats' own updates): {share:.1%} of its CPU per "
              f"action, {share / (1 - share):.1%} of the rest of it")
    if "server_instructions_per_action" in result:
        print(f"  instructions       {result['server_instructions_per_action']:,} per action in the server "
              f"(callgrind; the kernel's work not counted)")


if __name__ == "__main__":
    sys.exit(main())
