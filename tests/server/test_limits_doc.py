"""docs/server.md's "Limits" table and "Threats" section are kept true: every default is the code's, every limit
setting is in the table, every test a threat names exists."""

from __future__ import annotations

import ast
import importlib
import re
from dataclasses import fields
from pathlib import Path

from asteroid_mining.server import Settings
from asteroid_mining.server.schemas import CreateGame

DOC = Path(__file__).parents[2] / "docs" / "server.md"
NOT_LIMITS = {"data_dir", "host", "port", "synchronous", "bot_delay", "allowed_origins", "forwarded_allow_ips",
              "static_dir", "snapshot_every", "database", "redis", "node_id", "lease_seconds"}
"""Settings that are not limits (where, how, how often); a cluster's settings are in docs/deploy.md."""


def section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def limit_rows() -> list[tuple[str, str, str]]:
    rows = []
    for line in section("Limits").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and cells[1].startswith("`"):
            rows.append((cells[0], cells[1].strip("`"), cells[2].strip("`")))
    return rows


def shown(value: object) -> str:
    return str(value)


def bounds(field: str) -> str:
    schema = CreateGame.model_json_schema()["properties"][field]
    schema = schema.get("anyOf", [schema])[0]
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    return f"{low}–{schema['maximum']}"


def test_every_default_in_the_limits_table_is_the_codes() -> None:
    defaults = Settings(data_dir=Path("."))
    rows = limit_rows()
    assert len(rows) > 20
    for what, source, default in rows:
        if source.startswith("CreateGame."):
            assert default == bounds(source.split(".")[1]), what
        elif "." in source:
            module, _, name = source.rpartition(".")
            assert default == shown(getattr(importlib.import_module(module), name)), what
        else:
            assert default == shown(getattr(defaults, source)), what


def test_every_limit_setting_is_in_the_table() -> None:
    listed = {source for _, source, _ in limit_rows()}
    limits = {f.name for f in fields(Settings)} - NOT_LIMITS
    assert limits <= listed, limits - listed


def test_every_test_a_threat_names_exists() -> None:
    named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", section("Threats"))
    assert len(named) >= 10
    root = Path(__file__).parents[2]
    for path, name in named:
        tree = ast.parse((root / path).read_text(encoding="utf-8"))
        functions = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
        assert name in functions, f"{path}::{name}"
