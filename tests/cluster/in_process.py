"""Nodes of a cluster run in the test's own process, on a Redis and a PostgreSQL database the test started: as
hubs driven directly, or as served apps reached through `TestClient`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from asteroid_mining.server import Settings, create_app
from asteroid_mining.server.cluster.node import ClusterHub
from asteroid_mining.server.stores import make_hub, make_store
from tests.services import Redis


def node_settings(redis: Redis, database: str, tmp_path: Path, name: str, **extra: Any) -> Settings:
    """The settings of the node named `name` on `database` and `redis`: its own data folder, a 3 s lease, bots
    without delay, and `extra`."""
    return Settings(data_dir=tmp_path / name, static_dir=tmp_path / "static", database=database, redis=redis.url,
                    node_id=name, lease_seconds=3.0, bot_delay=0.0, **extra)


def node(redis: Redis, database: str, tmp_path: Path, name: str, **extra: Any) -> ClusterHub:
    """The hub of the node named `name` (`node_settings`), driven by the test."""
    settings = node_settings(redis, database, tmp_path, name, **extra)
    hub = make_hub(settings, make_store(settings))
    assert isinstance(hub, ClusterHub)
    return hub


def served_node(redis: Redis, database: str, tmp_path: Path, name: str, **extra: Any) -> TestClient:
    """The node named `name` (`node_settings`), served in this process."""
    return TestClient(create_app(node_settings(redis, database, tmp_path, name, **extra)))
