"""A throwaway cluster on one machine: PostgreSQL (initdb in a temporary directory), redis-server, server nodes
and HAProxy in front of them, each on a free port (the balancer on the one asked for), stopped together.

    python tools/cluster.py [--port 8000] [--nodes 3] [--open]     (make cluster)

A development tool, not part of the installed game. The same launchers start the servers of the cluster's tests
(`tests/services.py`) and benchmarks. PostgreSQL refuses to run as root:
run as root, its processes run as the `postgres` user (Debian's package makes it), in a directory that user owns.
Nothing here touches the machine's own services.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import glob
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(condition: Any, timeout: float, what: str, interval: float = 0.05) -> None:
    """Poll `condition()` until it is true; AssertionError naming `what` after `timeout` seconds.

    A condition that raises is tried again (a server not listening yet), except for an AssertionError, which says
    that it never will be true (the server exited) and is raised at once."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except AssertionError:
            raise
        except Exception:
            pass
        time.sleep(interval)
    raise AssertionError(f"{what} did not happen within {timeout:g} s")


def _port_taken(log: Path, offset: int) -> bool:
    """Whether a server's log (after `offset`) says it could not listen: its port, free when it was chosen, was
    taken by another process before the server bound it (a busy machine makes that window wide)."""
    if not log.exists():
        return False
    with open(log, "rb") as text:
        text.seek(offset)
        return b"Address already in use" in text.read()


def _size(path: Path) -> int:
    return path.stat().st_size if path.exists() else 0


def start_on_free_port(launch: Callable[[int, int], Callable[[], bool]], port: int, log: Path, what: str,
                       timeout: float, movable: bool = True) -> int:
    """Start a server and wait until it is ready; the port it listens on.

    `launch(port, offset)` starts it on `port` and returns its readiness check (`offset`: where what it writes to
    `log` now begins). A port chosen free can be taken by another process before the server binds it (a busy
    machine makes that window wide): when the server's log says so and the port may be `movable` (it was chosen,
    not asked for, and nobody knows it yet), the server is started again on another free port, three times in all.
    """
    for attempt in range(3):
        offset = _size(log)
        ready = launch(port, offset)
        try:
            wait_until(ready, timeout, f"{what} on port {port} (log: {log})")
        except AssertionError:
            if not movable or attempt == 2 or not _port_taken(log, offset):
                raise
            port = free_port()
            continue
        return port
    raise AssertionError(f"{what} did not start")  # pragma: no cover - the loop returns or raises


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def announced_port(log: Path, offset: int = 0) -> int:
    """The port a server says in `log` (after `offset`) that uvicorn listens on; 0 until it has said so."""
    with open(log, "rb") as text:
        text.seek(offset)
        found = re.search(rb"Uvicorn running on https?://\S+:(\d+)", text.read())
    return int(found.group(1)) if found else 0


def _says(process: Process, log: Path, offset: int, words: bytes) -> bool:
    """Whether `process` has written `words` to its log after `offset`; AssertionError when it has exited. (A
    port that answers could be another process's: one that took it before this one bound it.)"""
    if not process.alive:
        raise AssertionError(f"{process.argv[0]} exited: {log.read_text(errors='replace')[-2000:]}")
    with open(log, "rb") as text:
        text.seek(offset)
        return words in text.read()


def postgres_bin() -> Path | None:
    """The directory of Debian's PostgreSQL programs (initdb, postgres), or None when it is not installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


class Process:
    """A server process in a new session (so that a kill reaches only it), its output in a log file."""

    def __init__(self, argv: list[str], log: Path, user: str | None = None) -> None:
        self.argv = argv
        self.log = log
        self.user = user
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the process."""
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True, user=self.user)

    @property
    def alive(self) -> bool:
        """The process is running."""
        return self.proc is not None and self.proc.poll() is None

    def send_signal(self, number: int) -> None:
        """Send a signal to the process (when it runs)."""
        if self.alive:
            assert self.proc is not None
            os.kill(self.proc.pid, number)

    def wait(self, timeout: float = 60) -> None:
        """Wait for the process to end (killing it after `timeout` seconds: a bound for a graceful stop, which
        the tests count on, on a busy machine)."""
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self, number: int = signal.SIGTERM) -> None:
        """Signal the process and wait for it to end."""
        self.send_signal(number)
        self.wait()


class _Server:
    """What a throwaway server shares: its process (once started), its directory, and how it is stopped."""

    stop_signal: int = signal.SIGTERM
    """The signal that stops it (each server says why its own)."""
    process: Process | None
    dir: Path

    def stop(self) -> None:
        """Stop the server with its `stop_signal`."""
        if self.process is not None:
            self.process.stop(self.stop_signal)

    def close(self) -> None:
        """Stop the server and remove its directory."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> Self:
        """The started server, closed when the block is left (`with Postgres().start() as server:`)."""
        return self

    def __exit__(self, *failure: object) -> None:
        self.close()


class Postgres(_Server):
    """A PostgreSQL cluster made by initdb in a temporary directory, on a free port (trust authentication on
    127.0.0.1 only)."""

    stop_signal = signal.SIGINT
    """A fast shutdown: what is committed stays."""

    def __init__(self, fsync: bool = False) -> None:
        bindir = postgres_bin()
        if bindir is None:
            raise AssertionError("PostgreSQL is not installed (apt-get install postgresql)")
        self.bindir = bindir
        self.user = "postgres" if os.geteuid() == 0 else None
        self.dir = Path(tempfile.mkdtemp(prefix="am-postgres-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.fsync = fsync
        self.process: Process | None = None
        self.started = False
        """It has listened once: its port is its own from then on."""
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.dir, entry.pw_uid, entry.pw_gid)
        self._run([str(bindir / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                   "--no-sync", "--locale=C"])

    def _run(self, argv: list[str]) -> None:
        done = subprocess.run(argv, capture_output=True, user=self.user, stdin=subprocess.DEVNULL, check=False)
        if done.returncode:
            raise AssertionError(f"{argv[0]} failed: {done.stdout.decode()} {done.stderr.decode()}")

    @property
    def url(self) -> str:
        """The URL of its `postgres` database."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url_of(self, database: str) -> str:
        """The URL of one of its databases."""
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> Postgres:
        """Start the server and wait until it takes connections. At its first start, a port another process took
        meanwhile is replaced by another free one (a restart keeps its port: its URL is known)."""
        def launch(port: int, offset: int) -> Callable[[], bool]:
            self.port = port
            argv = [str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(port), "-k", str(self.dir),
                    "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200",
                    "-c", f"fsync={'on' if self.fsync else 'off'}"]
            self.process = Process(argv, self.dir / "postgres.log", self.user)
            self.process.start()
            return self.ready

        self.port = start_on_free_port(launch, self.port, self.dir / "postgres.log", "PostgreSQL", 90,
                                       movable=not self.started)
        self.started = True
        return self

    def ready(self) -> bool:
        """The server takes connections (AssertionError when it has exited)."""
        assert self.process is not None
        if not self.process.alive:
            raise AssertionError(f"PostgreSQL exited: {(self.dir / 'postgres.log').read_text()}")
        done = subprocess.run([str(self.bindir / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port), "-q"],
                              check=False, stdin=subprocess.DEVNULL)
        return done.returncode == 0

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        self._run([str(self.bindir / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-q",
                   "-c", f'CREATE DATABASE "{name}"'])
        return self.url_of(name)

    def sql(self, database: str, statement: str) -> str:
        """Run SQL with psql; its output (unaligned, tuples only)."""
        done = subprocess.run([str(self.bindir / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U",
                               "postgres", "-d", database, "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", statement],
                              capture_output=True, check=False, user=self.user, stdin=subprocess.DEVNULL)
        if done.returncode:
            raise AssertionError(f"psql failed: {done.stderr.decode()}")
        return done.stdout.decode().strip()



class Redis(_Server):
    """redis-server on a free port, persisting nothing (a restart empties it, as losing Redis would)."""

    stop_signal = signal.SIGKILL
    """Killed: what it held is lost, as when Redis dies."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise AssertionError("redis-server is not installed (apt-get install redis-server)")
        self.binary = binary
        self.dir = Path(tempfile.mkdtemp(prefix="am-redis-"))
        self.port = free_port()
        self.process: Process | None = None
        self.started = False
        """It has listened once: its port is its own from then on."""

    @property
    def url(self) -> str:
        """Its URL."""
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> Redis:
        """Start the server (empty) and wait until it takes connections. At its first start, a port another
        process took meanwhile is replaced by another free one (a restart keeps its port: its URL is known)."""
        log = self.dir / "redis.log"

        def launch(port: int, offset: int) -> Callable[[], bool]:
            self.port = port
            argv = [self.binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(self.dir), "--save",
                    "", "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no"]
            process = self.process = Process(argv, log)
            process.start()
            return functools.partial(_says, process, log, offset, b"Ready to accept connections")

        self.port = start_on_free_port(launch, self.port, log, "redis-server", 60, movable=not self.started)
        self.started = True
        return self



BALANCER_ADDRESS = "127.0.0.1"
"""The address HAProxy connects to the nodes from: the one proxy the nodes believe about their clients."""
BALANCER_MAXCONN = 4096
"""Connections HAProxy holds at once (`maxconn`), so at most as many sockets to any one node."""
BALANCER_CONNECTIONS_PER_CLIENT = 320
"""Connections HAProxy holds at once for one client address (a single server's `max_sockets_per_client`); more are
closed as they come: without it, one address opening 4,200 sockets that sent half a request held every one of
`maxconn`, and nobody else was served until `timeout http-request` closed them (and the address opened more)."""


def haproxy_config(port: int, nodes: list[int], balance: str = "roundrobin", monitor: str = "",
                   per_client: int = BALANCER_CONNECTIONS_PER_CLIENT) -> str:
    """Round robin over `nodes` (ports on 127.0.0.1) on `port`, WebSocket upgrades included, with health checks
    so that a dead node is left out within a second or two. `balance="uri"` sends every request of one game (its
    WebSockets included) to one node instead: a hash of the path's first three parts, `/api/games/{id}`.

    The balancer says who each client is in `X-Forwarded-For`, *replacing* whatever the client sent there (a
    header a client could set would let it choose the address its quotas count against), and drops a client's
    `X-Forwarded-Proto`; the nodes believe these headers from the balancer's address only
    (`--forwarded-allow-ips`). `monitor`: a path HAProxy answers itself (200), to know it is up. A client address
    has at most `per_client` connections open at once: the next ones are closed before a byte is read (the nodes
    count the balancer's sockets, not the clients', `max_sockets_per_client`)."""
    # a node marked down has its sessions closed (`on-marked-down shutdown-sessions`): a node paused (SIGSTOP, a
    # machine that stalls) keeps its sockets open, and its clients' WebSockets stayed open to it, hearing nothing,
    # for `timeout tunnel` (1 h) while another node played their games on; closed, they reconnect through here.
    # So a node is marked down only when it does not answer its check for `timeout check` (3 s) twice, not for
    # half a second (`inter`): a node slowed by load (a flood of cheap requests took a check past 500 ms twice)
    # would have had every session closed, and its clients' reconnecting would have loaded the others
    servers = "\n".join(f"    server node{i + 1} 127.0.0.1:{p} check inter 500 fall 2 rise 2 "
                        "on-marked-down shutdown-sessions" for i, p in enumerate(nodes))
    return f"""global
    maxconn {BALANCER_MAXCONN}

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h
    timeout http-request 10s
    timeout check 3s
    option redispatch
    retries 2

frontend games
    bind 127.0.0.1:{port}
    stick-table type ipv6 size 1m expire 60s store conn_cur
    tcp-request connection track-sc0 src,ipmask(32,64)
    tcp-request connection reject if {{ sc_conn_cur(0) gt {per_client} }}
    http-request set-header X-Forwarded-For %[src]
    http-request del-header X-Forwarded-Proto
{f"    monitor-uri {monitor}{chr(10)}" if monitor else ""}    default_backend nodes

backend nodes
    balance {"uri depth 3" if balance == "uri" else "roundrobin"}
    option httpchk GET /api/health
{servers}
"""


class HAProxy:
    """HAProxy in the foreground with a generated configuration."""

    def __init__(self, nodes: list[int], port: int | None = None, balance: str = "roundrobin",
                 per_client: int = BALANCER_CONNECTIONS_PER_CLIENT) -> None:
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        if not Path(binary).exists():
            raise AssertionError("haproxy is not installed (apt-get install haproxy)")
        self.dir = Path(tempfile.mkdtemp(prefix="am-haproxy-"))
        self.chosen = port is None
        """The port was chosen here (not asked for), so another may be chosen when it was taken meanwhile."""
        self.port = port or free_port()
        self.nodes = nodes
        self.balance = balance
        self.per_client = per_client
        """Connections one client address may hold at once (`haproxy_config`)."""
        self.config = self.dir / "haproxy.cfg"
        self.log = self.dir / "haproxy.log"
        self.monitor = f"/am-balancer-{secrets.token_hex(8)}"
        """A path this HAProxy answers itself: a port that answers it is this balancer's, not another process's."""
        self.process = Process([binary, "-db", "-f", str(self.config)], self.log)

    @property
    def url(self) -> str:
        """Its HTTP address."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        """Its WebSocket address."""
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> HAProxy:
        """Start the balancer and wait until it takes connections (on another free port when the one chosen for
        it was taken meanwhile)."""
        def launch(port: int, offset: int) -> Callable[[], bool]:
            self.port = port
            self.config.write_text(haproxy_config(port, self.nodes, self.balance, self.monitor, self.per_client))
            self.process.start()
            return self._up

        self.port = start_on_free_port(launch, self.port, self.log, "haproxy", 60, movable=self.chosen)
        return self

    def _up(self) -> bool:
        """HAProxy answers its monitor URI (AssertionError when it has exited)."""
        import httpx

        if not self.process.alive:
            raise AssertionError(f"haproxy exited: {self.log.read_text(errors='replace')[-2000:]}")
        return httpx.get(f"{self.url}{self.monitor}", timeout=5).status_code == 200

    def close(self) -> None:
        """Stop the balancer and remove its directory."""
        self.process.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class Node:
    """`python -m asteroid_mining.server` as a node of the cluster.

    Its first start binds port 0 and reads the port the system gave it from its log (a free port chosen here
    could be taken by another process before the node, still importing, bound it); a restart takes that port
    again, where the balancer expects it."""

    def __init__(self, name: str, database: str, redis: str, directory: Path, *extra: str) -> None:
        self.name = name
        self.port = 0
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        self.argv = [sys.executable, "-m", "asteroid_mining.server", "--data", str(self.dir), "--database", database,
                     "--redis", redis, "--node-id", name, *extra]
        self.process = Process(self.argv, self.dir / "node.log")

    @property
    def url(self) -> str:
        """Its HTTP address."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        """Its WebSocket address."""
        return f"ws://127.0.0.1:{self.port}"

    @property
    def log(self) -> Path:
        """Its log file."""
        return self.dir / "node.log"

    @property
    def proc(self) -> subprocess.Popen[bytes] | None:
        """The running process."""
        return self.process.proc

    def kill9(self) -> None:
        """Kill the node with SIGKILL, as a crash would."""
        self.process.stop(signal.SIGKILL)

    def stop(self) -> None:
        """Stop the node (SIGTERM: it gives its games up for other nodes to take at once)."""
        self.process.stop()

    def start(self) -> Node:
        """Start the node and wait until it answers."""
        import httpx

        self.process.argv = [*self.argv, "--port", str(self.port)]
        offset = self.log.stat().st_size if self.log.exists() else 0
        self.process.start()

        def up() -> bool:
            if not self.process.alive:
                raise AssertionError(f"node {self.name} exited: {self.log.read_text()[-2000:]}")
            self.port = self.port or announced_port(self.log, offset)
            return bool(self.port) and httpx.get(f"{self.url}/api/health", timeout=5).status_code == 200

        wait_until(up, 90, f"node {self.name}")  # a bound only: on a busy machine a node takes a while to start
        return self


class LocalCluster:
    """PostgreSQL, Redis, `nodes` nodes and HAProxy on `port`; `close()` stops everything and removes it all."""

    def __init__(self, nodes: int = 3, port: int | None = 8000, fsync: bool = True, extra: tuple[str, ...] = (),
                 balancer: bool = True, balance: str = "roundrobin",
                 per_client: int = BALANCER_CONNECTIONS_PER_CLIENT) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="am-cluster-"))
        self.postgres: Postgres | None = None
        self.redis: Redis | None = None
        self.nodes: list[Node] = []
        self.balancer: HAProxy | None = None
        try:
            self.postgres = Postgres(fsync=fsync).start()
            self.database = self.postgres.create_database("games")
            self.redis = Redis().start()
            # behind the balancer, a node believes it alone about who the client is; and every socket from it
            # comes from its one address, so the per-address socket cap must let all of the balancer's through
            behind = ("--forwarded-allow-ips", BALANCER_ADDRESS,
                      "--max-sockets-per-client", str(BALANCER_MAXCONN)) if balancer else ()
            self.nodes = [Node(f"node{i + 1}", self.database, self.redis.url, self.dir / f"node{i + 1}", *behind,
                               *extra) for i in range(nodes)]
            for node in self.nodes:
                node.start()
            if balancer:
                self.balancer = HAProxy([n.port for n in self.nodes], port, balance, per_client).start()
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Stop the balancer, the nodes, Redis and PostgreSQL; remove their directories."""
        if self.balancer is not None:
            self.balancer.close()
        for node in self.nodes:
            node.process.stop()
        if self.redis is not None:
            self.redis.close()
        if self.postgres is not None:
            self.postgres.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt  # SIGTERM stops the cluster as Ctrl-C does


def main(argv: list[str] | None = None) -> int:
    """`make cluster`: a throwaway cluster until Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python tools/cluster.py", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8000, help="the balancer's port (default 8000)")
    parser.add_argument("--nodes", type=int, default=3, help="how many server nodes (default 3)")
    parser.add_argument("--open", action="store_true", help="open the browser on a new game once it is up")
    args = parser.parse_args(argv)
    try:
        cluster = LocalCluster(args.nodes, args.port)
    except AssertionError as failure:
        print(f"cluster: error: {failure}", file=sys.stderr)
        return 2
    try:
        assert cluster.balancer is not None and cluster.postgres is not None and cluster.redis is not None
        print(f"PostgreSQL on 127.0.0.1:{cluster.postgres.port}, Redis on 127.0.0.1:{cluster.redis.port}")
        for node in cluster.nodes:
            print(f"{node.name} on {node.url} (log: {node.dir / 'node.log'})")
        print(f"HAProxy round-robin on {cluster.balancer.url}: play there. Ctrl-C stops everything.", flush=True)
        if args.open:
            from asteroid_mining.server.opener import open_when_ready

            open_when_ready("127.0.0.1", cluster.balancer.port)
        signal.signal(signal.SIGTERM, _interrupt)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
    finally:
        for number in (signal.SIGINT, signal.SIGTERM):  # a second Ctrl-C must not leave servers behind
            signal.signal(number, signal.SIG_IGN)
        print("stopping the cluster", flush=True)
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
