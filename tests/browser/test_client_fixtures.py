"""Fixtures the browser client's TypeScript unit tests (`npm test` in web/) compare against, made here by the
engine: the orbit formula's `near` and `next_change` for every orbit of a generated belt over 100 rounds.

The test writes the fixture when it is missing and fails when the committed one differs from what the engine
gives now, so the client's copy of the orbit formula is always checked against the engine's."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from asteroid_mining.maps.generator import generate_belt

FIXTURE = Path(__file__).resolve().parents[2] / "web" / "test" / "fixtures" / "orbits.json"
ROUNDS = 100


def orbit_fixture() -> dict[str, Any]:
    """Every distinct orbit of the `standard` belt of seed 5, with its near flags and next change per round."""
    belt = generate_belt("standard", seed=5)
    orbits: dict[str, dict[str, Any]] = {}
    for a in belt.asteroids:
        if a.orbit is None or str(a.orbit) in orbits:
            continue
        o = a.orbit
        orbits[str(o)] = {
            "near": "".join("1" if o.is_near(r) else "0" for r in range(1, ROUNDS + 1)),
            "next_change": [o.next_change(r) for r in range(1, ROUNDS + 1)],
        }
    return {"belt": "standard", "seed": 5, "rounds": ROUNDS, "orbits": orbits}


def test_the_orbit_fixture_is_the_engines() -> None:
    made = orbit_fixture()
    assert len(made["orbits"]) > 20
    text = json.dumps(made, indent=0, sort_keys=True) + "\n"
    if not FIXTURE.exists():
        FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        FIXTURE.write_text(text)
    assert FIXTURE.read_text() == text, f"{FIXTURE.name} is stale: delete it and run this test to make it again"


def test_the_clients_unit_tests_pass() -> None:
    """`npm test` in web/: the model, the diff folding, the key map, the log and the orbit formula."""
    web = FIXTURE.parents[2]
    if shutil.which("node") is None or not (web / "node_modules" / "esbuild").is_dir():
        pytest.fail("the client's unit tests need Node.js and web/node_modules: run `make web` first", pytrace=False)
    run = subprocess.run(["node", "test.mjs"], cwd=web, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "# fail 0" in run.stdout
