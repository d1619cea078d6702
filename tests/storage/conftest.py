from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from asteroid_mining.storage import GameStore, SqliteStore
from tests.services import Postgres

_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """One throwaway PostgreSQL for the session; each test gets a database of its own."""
    with Postgres().start() as server:
        yield server


@pytest.fixture(params=["sqlite", "postgres"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], GameStore]:
    """Makes stores over one fresh database (each call a new store object: reopening sees what was stored)."""
    if request.param == "sqlite":
        return lambda: SqliteStore(tmp_path)
    from asteroid_mining.storage.postgres import PostgresStore

    server: Postgres = request.getfixturevalue("postgres")
    url = server.create_database(f"contract{next(_numbers)}")
    return lambda: PostgresStore(url)
