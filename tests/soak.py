"""The soak test (`make soak`, not in CI): a real server, many games, bots and clients that misbehave, and the
server killed with SIGKILL and restarted every minute.

    python -m tests.soak [--minutes 10] [--games 200] [--kill-every 60] [--seed 1] [--data DIR]
                         [--slow-readers 8] [--ping-floods 4] [--max-rss-mib 1024] [--max-lag 1]

Each game has two seats: seat 1 a person played by this program, seat 2 a bot played by the server (or, in every
fourth game, a second person), and a turn timer in every third. Each person's client plays legal-looking moves
on its turns and, at random, disconnects and reconnects, asks to `sync` from an earlier seq, sends garbage
(malformed JSON, unknown types, binary frames, oversized messages, other seats' settlers) or goes quiet. A
spectator watches every tenth game. Besides them, attackers that never read a byte: `--slow-readers` spectators
asking for the whole state again and again (a `sync` from far ahead), each reconnecting when the server cuts it
off, and `--ping-floods` connections sending pings as fast as they can.

Checked, and printed as figures at the end (exit status 1 when any check fails):
- no client ever saw a gap in the seqs of its updates (a resent update must be the one sent before);
- after every reconnect, the state a client gets is at least as far as the last update it had seen;
- nothing acknowledged is missing: every update any client received is in the game's stored log, the same;
- every game's log replays (belt, options, seed, commands) to its stored state: the snapshot-and-tail the
  server loads, and the progress row (status, round, turn) the lobby shows;
- the server's resident set (sampled twice a second) stays under `--max-rss-mib`, and its event loop's lag —
  the time `GET /api/health` takes to be answered, sampled twice a second while the server is up — stays under
  `--max-lag` seconds 99 times in 100 (0: measured and printed only, as the test suite's short run does, which
  times nothing).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import random
import shutil
import socket
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from asteroid_mining.maps import parse_belt
from asteroid_mining.rules import Game, Options, action_from_json
from asteroid_mining.server.rebuild import rebuild
from asteroid_mining.storage import SqliteStore

from .server.helpers import ServerProcess, apply_diff, two_loops_belt

PER_CONNECTION = ("ref", "choices")
"""The fields of an update that are the receiving connection's own (a resent update may differ in them)."""


@dataclass
class Figures:
    """What happened, for the report."""

    games: int = 0
    clients: int = 0
    acts_sent: int = 0
    updates_seen: int = 0
    acknowledged: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)
    reconnects: int = 0
    syncs: int = 0
    misbehaviours: int = 0
    errors_received: int = 0
    restarts: int = 0
    gaps: list[str] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)
    resend_mismatches: list[str] = field(default_factory=list)
    cut_off: int = 0
    """Connections of clients that never read closed by the server."""
    flood_pings: int = 0
    peak_rss_mib: float = 0.0
    lags: list[float] = field(default_factory=list)


class Soak:
    """The server, its games and their clients."""

    def __init__(self, args: argparse.Namespace, data: Path) -> None:
        self.args = args
        self.rng = random.Random(args.seed)
        self.figures = Figures()
        self.server = ServerProcess(
            data, "--max-games-per-client", "100000", "--max-live-games", "100000",
            "--max-connections-per-client", "100000", "--max-connections-per-game", "64",
            "--rate-per-second", "200", "--rate-burst", "400", "--min-turn-seconds", "0.5",
            "--bot-delay", "0.2", "--synchronous", "NORMAL", "--sync-per-second", "50",
            "--send-buffer-bytes", "262144")
        self.games: list[dict[str, Any]] = []
        self.stop = asyncio.Event()
        self.up = asyncio.Event()
        """Set while the server runs (clear while it is killed and started again)."""

    # ----- the server -----
    async def killer(self) -> None:
        """kill -9 the server every `kill_every` seconds and start it again on the same port."""
        while not self.stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stop.wait(), self.args.kill_every)
            if self.stop.is_set():
                return
            await asyncio.to_thread(self._restart)

    def _restart(self) -> None:
        self.up.clear()
        self.server.kill9()
        self.figures.restarts += 1
        self.server.start()
        self.up.set()

    async def monitor(self) -> None:
        """Sample the server's resident set and its event loop's lag (how long `/api/health` takes) twice a
        second, while it is up."""
        async with httpx.AsyncClient(base_url=self.server.url, timeout=30) as http:
            while not self.stop.is_set():
                await asyncio.sleep(0.5)
                if not self.up.is_set() or self.server.proc is None:
                    continue
                with contextlib.suppress(OSError):
                    status = Path(f"/proc/{self.server.proc.pid}/status").read_text()
                    for line in status.splitlines():
                        if line.startswith("VmRSS:"):
                            rss = int(line.split()[1]) / 1024
                            self.figures.peak_rss_mib = max(self.figures.peak_rss_mib, rss)
                started = time.monotonic()
                try:
                    answer = await http.get("/api/health")
                except httpx.HTTPError:
                    continue  # killed meanwhile
                if answer.status_code == 200 and self.up.is_set():
                    self.figures.lags.append(time.monotonic() - started)

    # ----- clients that never read -----
    async def never_reading(self, game: dict[str, Any], pings: bool) -> None:
        """A connection that never reads: it asks for the whole state again and again (or sends pings), and
        connects again when the server cuts it off."""
        rng = random.Random(self.rng.random())
        path = f"/api/games/{game['id']}/ws"
        while not self.stop.is_set():
            writer = None
            try:
                sock = socket.socket()
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window: backed up soon
                sock.setblocking(False)
                try:
                    await asyncio.wait_for(asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1",
                                                                                          self.server.port)), 20)
                except BaseException:
                    sock.close()
                    raise
                reader, writer = await asyncio.open_connection(sock=sock)
                key = base64.b64encode(os.urandom(16)).decode()
                writer.write((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                              f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                              "Sec-WebSocket-Version: 13\r\n\r\n").encode())
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
                if not head.startswith(b"HTTP/1.1 101"):
                    raise ConnectionError("refused")
                while not self.stop.is_set():  # nothing is read from here on
                    if pings:
                        writer.write(_frame(0x9, b"p" * 125) * 200)
                        self.figures.flood_pings += 200
                    else:
                        writer.write(_frame(0x1, json.dumps({"type": "sync", "after": 10**12}).encode()))
                        self.figures.syncs += 1
                    await asyncio.wait_for(writer.drain(), 30)
                    await asyncio.sleep(0.025)
            except (OSError, TimeoutError, asyncio.IncompleteReadError, ConnectionError):
                if self.up.is_set() and not pings:
                    self.figures.cut_off += 1  # closed by the server (or killed: then it is not up)
            finally:
                if writer is not None:
                    writer.transport.abort()
            await asyncio.sleep(rng.uniform(0.5, 2.0))

    # ----- games -----
    async def create_games(self) -> None:
        async with httpx.AsyncClient(base_url=self.server.url, timeout=60) as http:
            for i in range(self.args.games):
                body: dict[str, Any] = {"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(),
                                        "seed": self.rng.randrange(10**6)}
                if i % 4 != 3:
                    body["bots"] = {"2": self.rng.choice(["greedy", "planner"])}
                if i % 3 == 0:
                    body["turn_seconds"] = 2.0
                answer = await http.post("/api/games", json=body)
                answer.raise_for_status()
                self.games.append(answer.json())
        self.figures.games = len(self.games)

    # ----- clients -----
    async def person(self, game: dict[str, Any], seat: int | None) -> None:
        """One client for the whole soak: plays, misbehaves, leaves and comes back; checks every seq."""
        self.figures.clients += 1
        rng = random.Random(self.rng.random())
        token = game["seats"][seat - 1]["token"] if seat else None
        url = f"{self.server.ws_url}/api/games/{game['id']}/ws" + (f"?token={token}" if token else "")
        last_seen = -1
        while not self.stop.is_set():
            try:
                async with connect(url, open_timeout=20, max_size=None) as ws:
                    last_seen = await self.session(ws, game, seat, rng, last_seen)
            except (OSError, WebSocketException, TimeoutError):
                pass  # the server is down (killed), or refused: come back later
            if self.stop.is_set():
                return
            self.figures.reconnects += 1
            await asyncio.sleep(rng.uniform(0.05, 1.0))

    async def session(self, ws: ClientConnection, game: dict[str, Any], seat: int | None, rng: random.Random,
                      last_seen: int) -> int:
        """One connection: returns the last seq seen when it ends (the client leaves, or the server goes)."""
        state = json.loads(await asyncio.wait_for(ws.recv(), 20))
        if state["type"] != "state":  # refused (an error, then a close): come back later
            self.figures.errors_received += 1
            return last_seen
        if state["seq"] < last_seen:
            self.figures.regressions.append(f"{game['id']}: state {state['seq']} after update {last_seen}")
        view: dict[str, Any] = state["state"]
        seq: int = state["seq"]
        seen: dict[int, dict[str, Any]] = {}
        mine = set(state["you"]["settlers"]) if state["you"] else set()
        leave_at = time.monotonic() + rng.expovariate(1 / 20)
        waiting = False
        while not self.stop.is_set() and time.monotonic() < leave_at:
            if mine and view.get("turn") in mine and not waiting and view.get("status") == "running":
                await asyncio.sleep(rng.uniform(0, 0.3))
                await ws.send(json.dumps(self.act(view, view["turn"], rng)))
                self.figures.acts_sent += 1
                waiting = True
            roll = rng.random()
            if roll < 0.01:
                self.figures.syncs += 1
                await ws.send(json.dumps({"type": "sync", "after": rng.randint(max(0, seq - 150), seq)}))
            elif roll < 0.02:
                self.figures.misbehaviours += 1
                await ws.send(self.garbage(rng, seat))
            try:
                message = json.loads(await asyncio.wait_for(ws.recv(), 0.5))
            except TimeoutError:
                waiting = False  # a refused or lost act: try again on the next turn check
                continue
            if message["type"] == "error":
                self.figures.errors_received += 1
                waiting = False
            elif message["type"] == "state":
                view, seq = message["state"], message["seq"]
            elif message["type"] == "update":
                number: int = message["seq"]
                plain = {k: v for k, v in message.items() if k not in PER_CONNECTION}
                if number > seq + 1:
                    self.figures.gaps.append(f"{game['id']}: update {number} after {seq}")
                    return seq
                if number <= seq:
                    if number in seen and seen[number] != plain:
                        self.figures.resend_mismatches.append(f"{game['id']}: update {number}")
                    continue
                apply_diff(view, message["diff"])
                seq = number
                seen[number] = plain
                self.figures.updates_seen += 1
                self.figures.acknowledged[(game["id"], number)] = message["action"]
                waiting = False
        return seq

    @staticmethod
    def act(view: dict[str, Any], settler: str, rng: random.Random) -> dict[str, Any]:
        """A plausible act: a move to a neighbour, a drill, a mine or a wait."""
        me = next((s for s in view["settlers"] if s["id"] == settler), None)
        where = me.get("at") if me else None
        here = next((a for a in view["asteroids"] if a["id"] == where), None)
        neighbours = list(here.get("neighbours", ())) if here else []
        choice = rng.random()
        if neighbours and choice < 0.5:
            return {"type": "act", "settler": settler, "action": "move", "target": rng.choice(neighbours)}
        if choice < 0.7:
            return {"type": "act", "settler": settler, "action": "mine"}
        if choice < 0.8:
            return {"type": "act", "settler": settler, "action": "drill"}
        return {"type": "act", "settler": settler, "action": "wait", "ref": rng.randrange(2**63)}

    @staticmethod
    def garbage(rng: random.Random, seat: int | None) -> str | bytes:
        choices: list[str | bytes] = [
            "{", "null", "[]", '{"type": "fly"}', '{"type": "act", "settler": "s1", "action": "wait", "ref": NaN}',
            json.dumps({"type": "act", "settler": "s2" if seat == 1 else "s1", "action": "wait"}),
            json.dumps({"type": "act", "settler": "s1", "action": "wait", "ref": -(2**63) - 1}),
            json.dumps({"type": "sync", "after": 2**63}), b"\x00\x01binary",
            json.dumps({"type": "sync", "after": 0, "pad": "x" * 70_000}),
        ]
        return rng.choice(choices)

    # ----- the checks -----
    async def verify(self) -> list[str]:
        """Every game's log replays to its stored state; everything acknowledged is in the log."""
        problems: list[str] = []
        store = SqliteStore(self.server.data)
        await store.open()
        try:
            for game in self.games:
                stored = await store.load(game["id"])
                found = await store.log(game["id"])
                assert stored is not None and found is not None
                record, progress, commands = found
                if [c.seq for c in commands] != list(range(1, progress.seq + 1)):
                    problems.append(f"{game['id']}: the log's seqs are not 1..{progress.seq}")
                fresh = Game.new(parse_belt(record.belt), Options.from_json(record.options), record.seed,
                                 record.settlers)
                for command in commands:
                    fresh.apply(action_from_json(command.action))
                loaded = rebuild(stored.record, stored.commands, stored.snapshot)
                if loaded.to_json() != fresh.to_json():
                    problems.append(f"{game['id']}: its snapshot and log do not replay to the same game")
                if (progress.status, progress.round, progress.turn) != (fresh.status, fresh.round, fresh.turn):
                    problems.append(f"{game['id']}: stored progress {progress} is not the replayed game's")
                by_seq = {c.seq: c.action for c in commands}
                for (gid, seq), action in self.figures.acknowledged.items():
                    if gid == game["id"] and by_seq.get(seq) != action:
                        problems.append(f"{gid}: acknowledged command {seq} is not in the log as sent")
        finally:
            await store.close()
        return problems

    async def run(self) -> int:
        started = time.monotonic()
        await asyncio.to_thread(self.server.start)
        await self.create_games()
        self.up.set()
        tasks = [asyncio.create_task(self.killer()), asyncio.create_task(self.monitor())]
        for i in range(self.args.slow_readers + self.args.ping_floods):
            game = self.games[i % len(self.games)]
            tasks.append(asyncio.create_task(self.never_reading(game, pings=i >= self.args.slow_readers)))
        for i, game in enumerate(self.games):
            tasks.append(asyncio.create_task(self.person(game, 1)))
            if i % 4 == 3:
                tasks.append(asyncio.create_task(self.person(game, 2)))
            if i % 10 == 0:
                tasks.append(asyncio.create_task(self.person(game, None)))
        await asyncio.sleep(self.args.minutes * 60)
        self.stop.set()
        await asyncio.gather(*tasks, return_exceptions=False)
        await asyncio.to_thread(self.server.stop)
        problems = await self.verify()
        f = self.figures
        elapsed = time.monotonic() - started
        commands = sum(1 for _ in f.acknowledged)
        print(f"soak: {elapsed / 60:.1f} minutes, {f.games} games, {f.clients} clients, {f.restarts} kill -9 restarts")
        print(f"  acts sent {f.acts_sent}, commands acknowledged to clients {commands}, updates seen {f.updates_seen}")
        print(f"  reconnects {f.reconnects}, syncs {f.syncs}, misbehaving messages {f.misbehaviours}, "
              f"errors answered {f.errors_received}")
        print(f"  gaps {len(f.gaps)}, states behind a seen update {len(f.regressions)}, resent updates that "
              f"differ {len(f.resend_mismatches)}, replay or log problems {len(problems)}")
        failures = [*f.gaps, *f.regressions, *f.resend_mismatches, *problems]
        for line in failures[:20]:
            print(f"  FAIL {line}")
        lags = sorted(f.lags) or [0.0]
        worst, p99 = lags[-1], lags[int(0.99 * (len(lags) - 1))]
        print(f"  clients that never read: {self.args.slow_readers} asking for states (cut off {f.cut_off} times), "
              f"{self.args.ping_floods} flooding pings ({f.flood_pings} sent)")
        print(f"  server: peak resident set {f.peak_rss_mib:.0f} MiB (at most {self.args.max_rss_mib:g}); event loop "
              f"lag (GET /api/health, {len(f.lags)} samples) p99 {p99:.3f} s, worst {worst:.3f} s"
              + (f" (p99 at most {self.args.max_lag:g})" if self.args.max_lag else " (not judged)"))
        bounds = []
        if f.peak_rss_mib > self.args.max_rss_mib:
            bounds.append(f"the server's resident set reached {f.peak_rss_mib:.0f} MiB")
        if self.args.max_lag and p99 > self.args.max_lag:
            bounds.append(f"the server's event loop lagged {p99:.3f} s (99th percentile)")
        for line in bounds:
            print(f"  FAIL {line}")
        log = self.server.log.read_text(errors="replace")
        tracebacks = log.count("Traceback")
        print(f"  tracebacks in the server's log {tracebacks}")
        return 1 if failures or tracebacks or bounds else 0


def _frame(opcode: int, payload: bytes) -> bytes:
    """A masked client WebSocket frame, FIN set (a zero mask: the payload as it is)."""
    size = len(payload)
    head = bytes((0x80 | opcode, 0x80 | size)) if size < 126 else bytes((0x80 | opcode, 0x80 | 126)) + size.to_bytes(2)
    return head + b"\0\0\0\0" + payload


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.soak", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--kill-every", type=float, default=60.0, help="seconds between kill -9 restarts")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--data", type=Path, default=None, help="keep the games here (default: a temporary dir)")
    parser.add_argument("--slow-readers", type=int, default=8, help="connections asking for states, never reading")
    parser.add_argument("--ping-floods", type=int, default=4, help="connections flooding pings, never reading")
    parser.add_argument("--max-rss-mib", type=float, default=1024.0, help="the server's resident set, at most")
    parser.add_argument("--max-lag", type=float, default=1.0,
                        help="seconds GET /api/health may take, at most, 99 times in 100 (0: measured, not judged)")
    args = parser.parse_args(argv)
    data = args.data or Path(tempfile.mkdtemp(prefix="soak-"))
    soak = Soak(args, data)
    try:
        return asyncio.run(soak.run())
    finally:
        soak.server.stop()
        if args.data is None:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
