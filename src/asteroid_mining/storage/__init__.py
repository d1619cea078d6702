"""The durable log of games: belts, options, seeds, append-only command logs and snapshots.

`GameStore` is the interface the server talks to; `SqliteStore` is the embedded default (one SQLite file in
WAL mode); `PostgresStore` (in `storage.postgres`, with the cluster extra) keeps the games of a cluster of nodes
in PostgreSQL.
"""

from .base import (
    Command,
    DamagedRecord,
    Fenced,
    GameRecord,
    GameStore,
    Progress,
    Snapshot,
    StorageError,
    StoredGame,
)
from .sqlite import SqliteStore

__all__ = ["Command", "DamagedRecord", "Fenced", "GameRecord", "GameStore", "Progress", "Snapshot", "SqliteStore",
           "StorageError", "StoredGame"]
