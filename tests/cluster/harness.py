"""A cluster for tests: a throwaway PostgreSQL and Redis, nodes on free ports, HAProxy in front of them."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from tests.server.helpers import ServerProcess
from tests.services import HAProxy, Postgres, Redis


class Cluster:
    """PostgreSQL, Redis, `nodes` server nodes and a round-robin balancer; `close()` stops them all."""

    def __init__(self, nodes: int = 3, lease: float = 1.5, balancer: bool = True, extra: tuple[str, ...] = ()) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="am-cluster-"))
        self.postgres = Postgres().start()
        self.database = self.postgres.create_database("games")
        self.redis = Redis().start()
        self.lease = lease
        self.nodes = [ServerProcess(self.dir / f"node{i + 1}", "--database", self.database, "--redis",
                                    self.redis.url, "--node-id", f"node{i + 1}", "--lease-seconds", str(lease), *extra)
                      for i in range(nodes)]
        for node in self.nodes:
            node.start()
        self.balancer = HAProxy([n.port for n in self.nodes]).start() if balancer else None

    @property
    def url(self) -> str:
        return self.balancer.url if self.balancer else self.nodes[0].url

    def ws_url(self, game: str, token: str | None = None, node: int | None = None) -> str:
        base = self.nodes[node].ws_url if node is not None else (self.balancer.ws_url if self.balancer
                                                                 else self.nodes[0].ws_url)
        return f"{base}/api/games/{game}/ws" + (f"?token={token}" if token else "")

    def create(self, body: dict[str, Any], node: int | None = None) -> dict[str, Any]:
        url = self.nodes[node].url if node is not None else self.url
        for _ in range(50):  # the balancer may still send a request to a node it has not seen die
            with contextlib.suppress(httpx.HTTPError):
                answer = httpx.post(f"{url}/api/games", json=body, timeout=10)
                if answer.status_code == 201:
                    return dict(answer.json())
                raise AssertionError(answer.text)
            time.sleep(0.1)
        raise AssertionError("no node created the game")

    def close(self) -> None:
        if self.balancer is not None:
            self.balancer.close()
        for node in self.nodes:
            node.stop()
        self.redis.close()
        self.postgres.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def owner_of(cluster: Cluster, game: str) -> str | None:
    """The node holding the game's lease."""
    import redis

    client = redis.Redis.from_url(cluster.redis.url)
    try:
        value = client.get(f"am:lease:{game}")
        return None if value is None else value.decode().rpartition(" ")[0]
    finally:
        client.close()


def open_ws(url: str) -> ClientConnection:
    return connect(url, open_timeout=10, close_timeout=2)


def receive(conn: ClientConnection, timeout: float) -> dict[str, Any]:
    return dict(json.loads(conn.recv(timeout=timeout)))
