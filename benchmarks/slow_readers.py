"""The server's memory under clients that never read: how far its resident set grows.

Starts a server process (`python -m asteroid_mining.server`), creates a game on the `large` belt (a `state` of
about half a megabyte) and opens `--sockets` WebSockets to it as spectators over plain sockets that never read a
byte. Each one then sends, within the rate limit, what makes the server write the most:

- `sync`: `{"type": "sync", "after": <far ahead>}`, answered with the whole `state` each time;
- `ping`: WebSocket pings (control frames, not counted by the rate limit), each answered with a pong;
- `both`: half the sockets of each.

The server's resident set (`VmRSS`) is sampled every half second for `--seconds`; the script prints its start,
its peak and its end, and how many of the sockets the server closed.

    .venv/bin/python benchmarks/slow_readers.py --seconds 30 --sockets 4 --mode sync
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from websockets.frames import Frame, Opcode


def free_port() -> int:
    """A TCP port nobody listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mib(pid: int) -> float:
    """The process's resident set, in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def client_frame(opcode: int, payload: bytes) -> bytes:
    """A client's frame (masked, FIN set) as it goes on the wire; text frames are not checked for UTF-8."""
    return Frame(Opcode(opcode), payload).serialize(mask=True)


def open_socket(port: int, path: str) -> socket.socket:
    """A WebSocket handshake over a plain socket with a small receive buffer; nothing is read after it."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = sock.recv(1)
        if not chunk:
            raise ConnectionError("the server closed the handshake")
        answer += chunk
    if not answer.startswith(b"HTTP/1.1 101"):
        raise ConnectionError(answer.decode(errors="replace"))
    sock.setblocking(False)
    return sock


def main() -> int:
    """Run the flood and print the server's memory; exit status 0."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--sockets", type=int, default=4)
    parser.add_argument("--mode", choices=("sync", "ping", "both"), default="sync")
    parser.add_argument("--rate", type=float, default=19.0, help="messages a socket sends a second")
    args, server_args = parser.parse_known_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        log = open(Path(data) / "server.log", "wb")  # noqa: SIM115 - closed with the directory below
        server = subprocess.Popen([sys.executable, "-m", "asteroid_mining.server", "--port", str(port), "--data", data,
                                   *server_args], stdout=log, stderr=subprocess.STDOUT)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the server did not start:\n" + (Path(data) / "server.log").read_text())
                try:
                    if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.05)
            game = httpx.post(f"{url}/api/games", json={"seats": 1, "belt": "large"}, timeout=60).json()
            path = f"/api/games/{game['id']}/ws"
            socks = [open_socket(port, path) for _ in range(args.sockets)]
            sync = client_frame(0x1, json.dumps({"type": "sync", "after": 10**12}).encode())
            ping = client_frame(0x9, b"p" * 125)
            start = rss_mib(server.pid)
            peak, closed, sent = start, set(), 0
            began = time.monotonic()
            while time.monotonic() - began < args.seconds:
                for i, sock in enumerate(socks):
                    if i in closed:
                        continue
                    kind = args.mode if args.mode != "both" else ("sync" if i % 2 == 0 else "ping")
                    try:
                        sock.send(sync if kind == "sync" else ping * 500)
                        sent += 1
                    except BlockingIOError:
                        pass  # the server is not reading either: try again later
                    except OSError:
                        closed.add(i)
                time.sleep(1 / args.rate)
                peak = max(peak, rss_mib(server.pid))
            end = rss_mib(server.pid)
            print(f"mode {args.mode}, {args.sockets} sockets, {args.seconds:g} s, {sent} sends: server RSS "
                  f"{start:.0f} MiB at the start, {peak:.0f} MiB at its peak, {end:.0f} MiB at the end; "
                  f"{len(closed)} sockets closed by the server")
            for sock in socks:
                sock.close()
        finally:
            server.terminate()
            server.wait(20)
            log.close()
            text = (Path(data) / "server.log").read_text()
            if "Traceback" in text:
                print("the server's log has a traceback:\n" + text[-3000:])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
