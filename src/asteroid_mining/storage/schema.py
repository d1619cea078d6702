"""The games' tables, described once and written out as SQL for each database the stores use: SQLite (a single
server, `SqliteStore`) and PostgreSQL (a cluster, `PostgresStore`).

The two layouts are the same three tables (`games`, `commands`, `snapshots`) and one index; they differ only where
the databases do, which is said here column by column rather than in two copies of the SQL:

- types: a 64-bit integer is `INTEGER` in SQLite (every integer is) and `BIGINT` in PostgreSQL; a float is `REAL`
  and `DOUBLE PRECISION`;
- the cluster's columns: a game's fence (`epoch`) and the number of asteroids of its belt (so that the lobby of
  every node need not read belt documents) exist in PostgreSQL only;
- what a migration left behind: the commands of an SQLite database of version 1 or 2 have no status, round or turn
  but the last of each game, so those columns may be NULL there;
- the command log is a `WITHOUT ROWID` table in SQLite (its key is the row).

How an older database is brought to this layout stays with each store (its history differs); what it ends with is
this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Dialect = Literal["sqlite", "postgresql"]
Kind = Literal["text", "integer", "bigint", "real"]

_TYPES: dict[Kind, dict[Dialect, str]] = {
    "text": {"sqlite": "TEXT", "postgresql": "TEXT"},
    "integer": {"sqlite": "INTEGER", "postgresql": "INTEGER"},
    "bigint": {"sqlite": "INTEGER", "postgresql": "BIGINT"},
    "real": {"sqlite": "REAL", "postgresql": "DOUBLE PRECISION"},
}


@dataclass(frozen=True, slots=True)
class Column:
    """A column: its name and kind, and where it differs between the dialects."""

    name: str
    kind: Kind
    null: tuple[Dialect, ...] = ()
    """The dialects in which it may be NULL (NOT NULL in the others)."""
    key: bool = False
    """The table's primary key on its own."""
    references: str | None = None
    """`table (column)` it refers to."""
    default: str | None = None
    only: Dialect | None = None
    """The one dialect that has it (None: both)."""

    def sql(self, dialect: Dialect) -> str:
        """The column's definition in `dialect`."""
        parts = [self.name, _TYPES[self.kind][dialect]]
        if self.key:
            parts.append("PRIMARY KEY")
        elif dialect not in self.null:
            parts.append("NOT NULL")
        if self.default is not None:
            parts.append(f"DEFAULT {self.default}")
        if self.references is not None:
            parts.append(f"REFERENCES {self.references}")
        return " ".join(parts)


BOTH: tuple[Dialect, ...] = ("sqlite", "postgresql")


@dataclass(frozen=True, slots=True)
class Table:
    """A table: its columns, in order, and its key when it has more than one column."""

    name: str
    doc: str
    columns: tuple[Column, ...]
    key: tuple[str, ...] = ()
    without_rowid: bool = False
    """SQLite keeps the rows in the key's order, with no rowid of their own."""

    def columns_in(self, dialect: Dialect) -> tuple[Column, ...]:
        """The columns `dialect` has."""
        return tuple(column for column in self.columns if column.only in (None, dialect))

    def column(self, name: str) -> Column:
        """The column named `name` (KeyError when there is none)."""
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(f"{self.name} has no column {name}")

    def sql(self, dialect: Dialect, if_not_exists: bool = False) -> str:
        """The table's `CREATE TABLE` statement in `dialect`."""
        lines = [column.sql(dialect) for column in self.columns_in(dialect)]
        if self.key:
            lines.append(f"PRIMARY KEY ({', '.join(self.key)})")
        body = ",\n    ".join(lines)
        head = f"CREATE TABLE {'IF NOT EXISTS ' if if_not_exists else ''}{self.name}"
        tail = " WITHOUT ROWID" if self.without_rowid and dialect == "sqlite" else ""
        return f"{head} (\n    {body}\n){tail}"


@dataclass(frozen=True, slots=True)
class Index:
    """An index, partial when it has a `where`; of columns or expressions (an expression in parentheses)."""

    name: str
    table: str
    columns: tuple[str, ...]
    where: str | None = None
    only: Dialect | None = None
    """The one dialect that has it (None: both)."""

    def sql(self, if_not_exists: bool = False) -> str:
        """Its `CREATE INDEX` statement (the same in each dialect that has it)."""
        where = f" WHERE {self.where}" if self.where else ""
        return (f"CREATE INDEX {'IF NOT EXISTS ' if if_not_exists else ''}{self.name} ON {self.table} "
                f"({', '.join(self.columns)}){where}")


GAMES = Table("games", "A game's record: its seq, status, round, turn and updated say where it was when created "
              "and, once it has ended, where it ended (in between, its last command says where it is); in a "
              "cluster's store `played` is 1 once a command of it is stored.", (
    Column("id", "text", key=True),
    Column("created", "real"),
    Column("belt", "text"),
    Column("options", "text"),
    Column("seed", "bigint"),
    Column("settlers", "integer"),
    Column("meta", "text"),
    Column("seq", "integer"),
    Column("status", "text"),
    Column("round", "integer"),
    Column("turn", "text", null=BOTH),
    Column("updated", "real"),
    Column("epoch", "bigint", default="0", only="postgresql"),
    Column("asteroids", "integer", only="postgresql"),
    Column("played", "integer", default="0", only="postgresql"),
))
COMMANDS = Table("commands", "The append-only log, with where the game is after each command.", (
    Column("game", "text", references="games (id)"),
    Column("seq", "integer"),
    Column("action", "text"),
    Column("author", "text"),
    Column("at", "real"),
    Column("status", "text", null=("sqlite",)),
    Column("round", "integer", null=("sqlite",)),
    Column("turn", "text", null=BOTH),
), key=("game", "seq"), without_rowid=True)
SNAPSHOTS = Table("snapshots", "Each game's latest snapshot: its state after command `seq`.", (
    Column("game", "text", key=True, references="games (id)"),
    Column("seq", "integer"),
    Column("state", "text"),
))

TABLES = (GAMES, COMMANDS, SNAPSHOTS)
"""Every table, in the order they are made (a table before those that refer to it)."""
GAME_CLIENT = """CREATE OR REPLACE FUNCTION game_client(meta TEXT) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN meta::json ->> 'client';
EXCEPTION WHEN others THEN
    RETURN NULL;
END $$"""
"""PostgreSQL's function of a game's `meta`: the address that created the game, or NULL when the meta is not a JSON
object (a damaged row, which is nobody's: reading the JSON of a damaged row in a query failed the query, and one
damaged running game made every create of the cluster fail, `503 storage_failed`). Not parallel safe: the block
that catches the failure is a subtransaction, which a parallel worker cannot start (building the index over a
large table is parallel)."""
RUNNING_BY_CLIENT = Index("games_running_by_client", "games", ("game_client(meta)", "played", "created"),
                          "status = 'running'", only="postgresql")
"""A cluster's running games by the address that created them, which every create of a game counts
(`PostgresStore.running_games_of`, against `max_games_per_client`): without it each create, refused ones included,
read and parsed the record of every running game of the cluster (51.8 ms of PostgreSQL's CPU at 50,000 of them).
Then whether each was played and when it was created: the count reads the address's played games and its open
ones younger than `open_game_ttl`, not the open games it let expire (20,000 of one address, 20 an hour for six
weeks, cost 17 ms of PostgreSQL's CPU a create, refused ones included, when it passed over them). A single server
counts its games in memory."""
PLAYING = Index("games_playing", "games", ("created", "id"), "status = 'running' AND played = 1",
                only="postgresql")
"""A cluster's running games that somebody has acted in (`played`: 1 from the first command stored): the lobby
reads these and the open games younger than `open_game_ttl` (`games_running` from a date on), never the open games
that expired. Those stay running in the store for good, and each building
of every node's lobby passed over all of them to ask the command log whether each had been played (58 ms of
PostgreSQL's CPU a building at 50,000 of them, once a second a node, without bound as they accumulate)."""
INDEXES = (Index("games_running", "games", ("created", "id"), "status = 'running'"), RUNNING_BY_CLIENT, PLAYING)
"""Every index: the running games, newest first, for the lobby and the restart; a cluster's, by their creator and
those played."""


def create_statements(dialect: Dialect, if_not_exists: bool = False) -> list[str]:
    """The statements that make the whole layout in `dialect` (each one only if it is not there, if asked)."""
    functions = [GAME_CLIENT] if dialect == "postgresql" else []
    return [table.sql(dialect, if_not_exists) for table in TABLES] + functions + [
        index.sql(if_not_exists) for index in INDEXES if index.only in (None, dialect)]


def column_names(dialect: Dialect) -> dict[str, set[str]]:
    """By table, the names of its columns in `dialect`."""
    return {table.name: {column.name for column in table.columns_in(dialect)} for table in TABLES}
