"""Choosing the store and the cluster: settings checked with one sentence each, and a server that cannot reach
its database or Redis stops at once with one line (exit status 2), before it listens."""

from __future__ import annotations

import subprocess
import sys

import pytest

from asteroid_mining.server.config import Settings, SettingsError
from asteroid_mining.server.stores import describe, make_hub, make_store
from asteroid_mining.storage import SqliteStore
from tests.services import free_port


@pytest.mark.parametrize(("changes", "message"), [
    ({"database": "mysql://x"}, "database must be a postgresql:// URL, not 'mysql'"),
    ({"redis": "http://x", "database": "postgresql://x"}, "redis must be a redis:// URL"),
    ({"redis": "redis://x"}, "redis (a cluster) needs a shared database"),
    ({"lease_seconds": 0.1}, "lease_seconds must be between 0.5 and 60"),
])
def test_bad_cluster_settings_are_named(changes: dict[str, object], message: str) -> None:
    with pytest.raises(SettingsError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Settings(**changes)  # type: ignore[arg-type]


def test_without_a_database_the_server_is_what_it_was(tmp_path: object) -> None:
    settings = Settings(data_dir=tmp_path)  # type: ignore[arg-type]
    assert isinstance(make_store(settings), SqliteStore)
    assert type(make_hub(settings, make_store(settings))).__name__ == "GameHub"
    assert describe(settings) == str(tmp_path)


def test_the_environment_chooses_postgresql() -> None:
    settings = Settings.from_env({"ASTEROID_MINING_DATABASE": "postgresql://game:secret@db.example:5432/games"})
    assert type(make_store(settings)).__name__ == "PostgresStore"
    assert describe(settings) == "PostgreSQL at postgresql://game@db.example:5432/games"  # no password


def test_an_unreachable_database_is_one_line_and_exit_2() -> None:
    args = ["--database", "postgresql://nobody@127.0.0.1:{port}/games"]
    port = str(free_port())
    done = subprocess.run([sys.executable, "-m", "asteroid_mining", "serve", "--port", str(free_port()),
                           *(a.replace("{port}", port) for a in args)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and errors[0].startswith(
        f"asteroid-mining serve: error: cannot connect to PostgreSQL at postgresql://nobody@127.0.0.1:{port}/games: "
        "connection failed:") and "Connection refused" in errors[0]
    assert "Traceback" not in done.stderr


def test_an_unreachable_redis_is_one_line_and_exit_2(tmp_path: object) -> None:
    from tests.services import Postgres

    database = Postgres().start()
    try:
        port = str(free_port())
        done = subprocess.run([sys.executable, "-m", "asteroid_mining", "serve", "--port", str(free_port()),
                               "--database", database.url, "--redis", f"redis://127.0.0.1:{port}/0"],
                              capture_output=True, text=True, timeout=60, check=False)
    finally:
        database.close()
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and errors[0].startswith(
        f"asteroid-mining serve: error: cannot reach Redis at redis://127.0.0.1:{port}/0: ")
    assert "Traceback" not in done.stderr
