"""The hand-made belts shipped with the game: they load, they are what their descriptions promise."""

from __future__ import annotations

from collections import Counter

import networkx as nx
import pytest

from asteroid_mining.maps import BeltError, belt_to_json, dumps_belt, load_shipped, shipped_names
from asteroid_mining.maps.fairness import fairness_report, needed_units
from asteroid_mining.rules import Game
from asteroid_mining.rules.belt import Belt
from asteroid_mining.rules.materials import KINDS, WIN_TARGET


def test_names() -> None:
    assert shipped_names() == ["puzzle-gates", "puzzle-storm", "tutorial"]
    with pytest.raises(BeltError, match="no shipped belt is called 'nope'"):
        load_shipped("nope")


@pytest.mark.parametrize("name", shipped_names())
def test_each_loads_and_is_canonical(name: str) -> None:
    from importlib import resources

    belt = load_shipped(name)
    assert belt.name and len(belt.description) > 100
    text = resources.files("asteroid_mining.maps").joinpath("belts", f"{name}.json").read_text(encoding="utf-8")
    assert text == dumps_belt(belt)  # shipped files are written the way save_belt writes them
    assert all(a.position is not None for a in belt.asteroids)
    assert belt_to_json(belt)["version"] == 1


@pytest.mark.parametrize("name", shipped_names())
def test_each_is_winnable_and_starts_a_game(name: str) -> None:
    belt = load_shipped(name)
    units = Counter(a.core for a in belt.asteroids)
    assert all(units[k] >= WIN_TARGET for k in KINDS)
    start = next(a for a in belt.asteroids if a.id == belt.start)
    assert start.core == "hollow" and start.mantle == 0
    assert not any(a.id.startswith(("s", "robot", "gate", "ufo")) and a.id[-1].isdigit() for a in belt.asteroids)
    game = Game.new(belt, seed=1)
    assert game.status == "running" and game.winnable


def graph(belt: Belt) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(a.id for a in belt.asteroids)
    g.add_edges_from(belt.links)
    return g


def test_tutorial() -> None:
    belt = load_shipped("tutorial")
    assert 10 <= len(belt.asteroids) <= 30
    assert nx.is_connected(graph(belt))
    report = fairness_report(belt)
    need = needed_units()
    assert all(report.usable[k] >= need[k] for k in KINDS)  # enough for a robot and a gate pair too
    assert report.shelter_share == 1.0
    assert len(belt.gates) == 1
    # the asteroids the description names as safe uranium never come near
    for aid in ("Becquerel", "Rutherford"):
        spec = next(a for a in belt.asteroids if a.id == aid)
        assert spec.core == "uranium" and spec.orbit is None and spec.sun == "far"


def test_puzzle_storm() -> None:
    belt = load_shipped("puzzle-storm")
    assert belt.storm_sector == 90.0
    hollow = sorted(a.id for a in belt.asteroids if a.core == "hollow")
    assert hollow == ["Cellar", "Home", "Vault"]
    desert = [a for a in belt.asteroids if a.id.startswith("Dune")]
    assert {a.core for a in desert} == {"uranium", "carbon", "iron"}
    assert all(a.core != "uranium" for a in belt.asteroids if not a.id.startswith("Dune"))


def test_puzzle_gates() -> None:
    belt = load_shipped("puzzle-gates")
    g = graph(belt)
    parts = list(nx.connected_components(g))
    assert len(parts) == 2
    (pair,) = belt.gates
    west = next(p for p in parts if belt.start in p)
    assert pair.first_at in west and pair.second_at not in west
    east = next(p for p in parts if p is not west)
    assert {a.core for a in belt.asteroids if a.id in east and a.core == "carbon"} == {"carbon"}
    assert all(a.core != "carbon" for a in belt.asteroids if a.id in west)
    # exactly enough for a win and one gate pair
    units = Counter(a.core for a in belt.asteroids)
    assert {k: units[k] for k in KINDS} == {"ice": 4, "iron": 5, "carbon": 3, "uranium": 4}
    # Tinderbox: bare uranium, far until round 9
    tinder = next(a for a in belt.asteroids if a.id == pair.second_at)
    assert tinder.core == "uranium" and tinder.mantle == 0 and tinder.orbit is not None
    assert [r for r in range(1, 13) if tinder.orbit.is_near(r)] == [9, 10]
