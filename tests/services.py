"""Real servers for tests: a throwaway PostgreSQL, redis-server and HAProxy, each on a free port in a temporary
directory of its own, started and stopped by the tests (never a system service).

PostgreSQL refuses to run as root: when the tests run as root (as CI does), its processes run as the `postgres`
user (Debian's package makes it), in a directory that user owns.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(condition: Any, timeout: float, what: str, interval: float = 0.05) -> None:
    """Poll `condition()` until it is true; AssertionError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            if condition():
                return
        time.sleep(interval)
    raise AssertionError(f"{what} did not happen within {timeout:g} s")


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


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
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(self.argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True, user=self.user)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def send_signal(self, number: int) -> None:
        if self.alive:
            assert self.proc is not None
            os.kill(self.proc.pid, number)

    def wait(self, timeout: float = 20) -> None:
        if self.proc is None:
            return
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self, number: int = signal.SIGTERM) -> None:
        self.send_signal(number)
        self.wait()


class Postgres:
    """A PostgreSQL cluster made by initdb in a temporary directory, on a free port (trust authentication on
    127.0.0.1 only)."""

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
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def url_of(self, database: str) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def start(self) -> Postgres:
        argv = [str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(self.port), "-k", str(self.dir),
                "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200",
                "-c", f"fsync={'on' if self.fsync else 'off'}"]
        self.process = Process(argv, self.dir / "postgres.log", self.user)
        self.process.start()
        wait_until(self.ready, 30, f"PostgreSQL on port {self.port} (log: {self.dir / 'postgres.log'})")
        return self

    def ready(self) -> bool:
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

    def stop(self) -> None:
        """A fast shutdown (SIGINT): what is committed stays."""
        if self.process is not None:
            self.process.stop(signal.SIGINT)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class Redis:
    """redis-server on a free port, persisting nothing (a restart empties it, as losing Redis would)."""

    def __init__(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise AssertionError("redis-server is not installed (apt-get install redis-server)")
        self.binary = binary
        self.dir = Path(tempfile.mkdtemp(prefix="am-redis-"))
        self.port = free_port()
        self.process: Process | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> Redis:
        argv = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.dir), "--save", "",
                "--appendonly", "no", "--protected-mode", "no", "--daemonize", "no"]
        self.process = Process(argv, self.dir / "redis.log")
        self.process.start()
        wait_until(lambda: _port_open(self.port), 20, f"redis-server on port {self.port}")
        return self

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop(signal.SIGKILL)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def haproxy_config(port: int, nodes: list[int]) -> str:
    """Round robin over `nodes` (ports on 127.0.0.1) on `port`, WebSocket upgrades included, with health checks
    so that a dead node is left out within a second or two."""
    servers = "\n".join(f"    server node{i + 1} 127.0.0.1:{p} check inter 500 fall 2 rise 2"
                        for i, p in enumerate(nodes))
    return f"""global
    maxconn 4096

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h
    option redispatch
    retries 2

frontend games
    bind 127.0.0.1:{port}
    default_backend nodes

backend nodes
    balance roundrobin
    option httpchk GET /api/health
{servers}
"""


class HAProxy:
    """HAProxy in the foreground with a generated configuration."""

    def __init__(self, nodes: list[int]) -> None:
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        if not Path(binary).exists():
            raise AssertionError("haproxy is not installed (apt-get install haproxy)")
        self.dir = Path(tempfile.mkdtemp(prefix="am-haproxy-"))
        self.port = free_port()
        self.config = self.dir / "haproxy.cfg"
        self.config.write_text(haproxy_config(self.port, nodes))
        self.process = Process([binary, "-db", "-f", str(self.config)], self.dir / "haproxy.log")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> HAProxy:
        self.process.start()
        wait_until(lambda: _port_open(self.port), 20, f"haproxy on port {self.port}")
        return self

    def close(self) -> None:
        self.process.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
