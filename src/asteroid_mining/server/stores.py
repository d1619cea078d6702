"""Which store and hub a server uses: SQLite in the data directory (the embedded default), PostgreSQL when
`database` is set, and a node of a cluster when `redis` is set too."""

from __future__ import annotations

from ..storage import GameStore, SqliteStore
from .config import Settings
from .hub import GameHub


def make_store(settings: Settings) -> GameStore:
    """The store `settings` name (not opened yet)."""
    if settings.database:
        from ..storage.postgres import PostgresStore

        return PostgresStore(settings.database, read_seconds=settings.store_read_seconds,
                             write_seconds=settings.store_write_seconds)
    return SqliteStore(settings.data_dir, settings.synchronous)


def make_hub(settings: Settings, store: GameStore) -> GameHub:
    """The hub of the live games: one server's own, or a cluster node's."""
    if settings.redis:
        from .cluster.node import ClusterHub

        return ClusterHub(settings, store)
    return GameHub(settings, store)


def describe(settings: Settings) -> str:
    """Where games are kept, for the start-up line (no password)."""
    if settings.database:
        from ..storage.postgres import redact_url

        where = f"PostgreSQL at {redact_url(settings.database)}"
        # (a Redis URL holds its password too: `redis://:PASSWORD@host`, which the start-up line once showed)
        return f"{where}; a cluster node through Redis at {redact_url(settings.redis)}" if settings.redis else where
    return str(settings.data_dir)
