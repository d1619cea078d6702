"""A cluster for tests: `make cluster`'s throwaway PostgreSQL, Redis, nodes and HAProxy, on free ports."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from tests.services import LocalCluster


class Cluster(LocalCluster):
    """PostgreSQL (fsync off: the tests kill nodes, not the machine), Redis, `nodes` nodes (bots without delay,
    short leases) and a round-robin balancer on a free port."""

    def __init__(self, nodes: int = 3, lease: float = 1.5, balancer: bool = True, extra: tuple[str, ...] = ()) -> None:
        super().__init__(nodes, port=None, fsync=False, balancer=balancer,
                         extra=("--bot-delay", "0", "--lease-seconds", str(lease), "--max-games-per-client", "100",
                                *extra))
        self.lease = lease

    def close(self) -> None:
        """Stop everything; with `AM_KEEP_CLUSTER_LOGS` set to a folder, the nodes' logs are copied there first
        (`{folder}/{cluster folder}/{node}.log`), to read after a failure."""
        keep = os.environ.get("AM_KEEP_CLUSTER_LOGS")
        if keep:
            target = Path(keep) / self.dir.name
            target.mkdir(parents=True, exist_ok=True)
            for node in self.nodes:
                if node.log.exists():
                    shutil.copyfile(node.log, target / f"{node.name}.log")
        super().close()

    def log_lines(self, about: list[str], limit: int = 40) -> str:
        """The nodes' log lines that name any of `about` (game ids), the last `limit` of each node: what a test
        that timed out waiting for those games prints, to say what the nodes did with them."""
        out: list[str] = []
        for node in self.nodes:
            if not node.log.exists():
                continue
            lines = [line for line in node.log.read_text(errors="replace").splitlines()
                     if any(word in line for word in about)]
            out.extend(f"{node.name}: {line}" for line in lines[-limit:])
        return "\n".join(out)

    @property
    def url(self) -> str:
        return self.balancer.url if self.balancer else self.nodes[0].url

    def ws_url(self, game: str, token: str | None = None, node: int | None = None) -> str:
        base = self.nodes[node].ws_url if node is not None else (self.balancer.ws_url if self.balancer
                                                                 else self.nodes[0].ws_url)
        return f"{base}/api/games/{game}/ws" + (f"?token={token}" if token else "")

    def create(self, body: dict[str, Any], node: int | None = None) -> dict[str, Any]:
        url = self.nodes[node].url if node is not None else self.url
        deadline = time.monotonic() + 60  # the balancer may still send a request to a node it has not seen die
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                answer = httpx.post(f"{url}/api/games", json=body, timeout=30)
                if answer.status_code == 201:
                    return dict(answer.json())
                raise AssertionError(answer.text)
            time.sleep(0.1)
        raise AssertionError("no node created the game")


def owner_of(cluster: Cluster, game: str) -> str | None:
    """The node holding the game's lease."""
    import redis

    assert cluster.redis is not None
    client = redis.Redis.from_url(cluster.redis.url)
    try:
        value = client.get(f"am:lease:{game}")
        if value is None:
            return None
        return (value.decode() if isinstance(value, bytes) else str(value)).rpartition(" ")[0]
    finally:
        client.close()


def open_ws(url: str) -> ClientConnection:
    return connect(url, open_timeout=30, close_timeout=5)


def receive(conn: ClientConnection, timeout: float) -> dict[str, Any]:
    return dict(json.loads(conn.recv(timeout=timeout)))
