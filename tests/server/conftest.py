from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from asteroid_mining.server import Settings, create_app

from .helpers import two_loops_belt, winning_seed

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


def pytest_configure(config: pytest.Config) -> None:
    # Starlette 1.x prefers httpx2 for its test client; httpx is what the project pins
    config.addinivalue_line("filterwarnings", "ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", bot_delay=0.0, static_dir=tmp_path / "static", min_turn_seconds=0.05)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    from fastapi.testclient import TestClient

    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
def two_seats(client: TestClient) -> dict[str, Any]:
    """A created two-seat game on the two-loops belt (one settler a seat) that its plan wins."""
    body = {"seats": 2, "settlers_per_seat": 1, "belt": two_loops_belt(), "seed": winning_seed()}
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())
