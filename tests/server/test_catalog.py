"""`GET /api/belts` and `GET /api/bots`, and games created through the one set-up path (`maps.resolve`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from asteroid_mining.ai.registry import installed_bots
from asteroid_mining.maps.difficulty import DIFFICULTIES
from asteroid_mining.maps.resolve import belt_catalog, resolve
from tests.ai.test_registry import EXAMPLE, install_example

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


def test_belts_are_listed_with_sizes_descriptions_and_difficulties(client: TestClient) -> None:
    answer = client.get("/api/belts").json()
    assert [b["name"] for b in answer["belts"]] == [b.name for b in belt_catalog() if b.name != "huge"]  # too big
    standard = next(b for b in answer["belts"] if b["name"] == "standard")
    assert standard["kind"] == "generated" and standard["asteroids"] == 250 and standard["description"]
    assert [d["name"] for d in answer["difficulties"]] == ["easy", "normal", "hard", "brutal"]


def test_a_game_gets_the_options_its_belt_recommends(client: TestClient) -> None:
    game = client.post("/api/games", json={"belt": "standard", "seed": 9, "rules": "extended"}).json()
    options = client.get(f"/api/games/{game['id']}").json()["state"]["options"]
    assert options == resolve("standard", 9).options_for("extended").to_json()
    storm = client.post("/api/games", json={"belt": "puzzle-storm", "seed": 1}).json()
    assert client.get(f"/api/games/{storm['id']}").json()["state"]["options"]["storm_interval"] == 3


def test_a_difficulty_level(client: TestClient) -> None:
    game = client.post("/api/games", json={"belt": "standard", "seed": 9, "difficulty": "hard",
                                           "options": {"storm_interval": 40}}).json()
    detail = client.get(f"/api/games/{game['id']}").json()
    expected = resolve("standard", 9, "hard")
    assert detail["state"]["options"] == expected.options_for("classic", {"storm_interval": 40}).to_json()
    assert detail["state"]["options"]["storm_warning"] == DIFFICULTIES["hard"].options["storm_warning"]
    assert {a["id"] for a in detail["state"]["asteroids"]} == {a.id for a in expected.belt.asteroids}
    bad = client.post("/api/games", json={"difficulty": "nightmare"})
    assert bad.status_code == 422
    assert bad.json()["error"]["field"] == "difficulty"
    assert "use easy, normal, hard, brutal" in bad.json()["error"]["message"]


def test_a_belt_name_is_never_a_file(client: TestClient, tmp_path: Path) -> None:
    answer = client.post("/api/games", json={"belt": str(EXAMPLE / "pyproject.toml")})
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "belt"
    assert "unknown belt" in answer.json()["error"]["message"]


def test_the_bots_of_the_registry(client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert client.get("/api/bots").json() == {"bots": ["random", "greedy", "planner", "learned"]}
    from asteroid_mining.ai import registry

    def never(spec: str) -> None:
        raise AssertionError(f"the server imported {spec}")

    monkeypatch.setattr(registry, "_from_file", never)
    refused = client.post("/api/games", json={"seats": 2, "bots": {"2": "examples/prospector.py:Prospector"[-32:]}})
    assert refused.status_code == 422 and refused.json()["error"]["field"] == "bots.2"
    assert "unknown bot" in refused.json()["error"]["message"]
    install_example(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(EXAMPLE))
    installed_bots.cache_clear()
    try:
        assert client.get("/api/bots").json() == {"bots": ["random", "greedy", "planner", "learned", "prospector"]}
        made = client.post("/api/games", json={"seats": 2, "bots": {"2": "prospector"}})
        assert made.status_code == 201, made.text
        assert made.json()["seats"][1]["bot"] == "prospector"
    finally:
        installed_bots.cache_clear()
