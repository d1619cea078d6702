"""The durable log of games: belts, options, seeds, append-only command logs and snapshots.

`GameStore` is the interface the server talks to; `SqliteStore` is the embedded default (one SQLite file in
WAL mode). A networked database can implement `GameStore` later without touching game logic.
"""

from .base import Command, GameRecord, GameStore, Progress, Snapshot, StorageError, StoredGame
from .sqlite import SqliteStore

__all__ = ["Command", "GameRecord", "GameStore", "Progress", "Snapshot", "SqliteStore", "StorageError", "StoredGame"]
