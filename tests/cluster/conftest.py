"""Fixtures of the cluster tests that drive hubs in the test's own process: Redis and PostgreSQL, started once a
module, and a database of each test's own."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

from tests.services import Postgres, Redis

_databases = itertools.count(1)


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[Redis, Postgres]]:
    """A Redis and a PostgreSQL server on free ports, for the tests of one module."""
    redis, postgres = Redis().start(), Postgres(fsync=False).start()
    try:
        yield redis, postgres
    finally:
        postgres.close()
        redis.close()


@pytest.fixture
def services(servers: tuple[Redis, Postgres]) -> tuple[Redis, str]:
    """Redis and a database of the test's own (the nodes' names and games are new in each)."""
    redis, postgres = servers
    return redis, postgres.create_database(f"hubs{next(_databases)}")
