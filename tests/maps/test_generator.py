"""The belt generator: deterministic, the sizes asked for, connected, fair, hubs where they belong."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asteroid_mining.maps import belt_problems, belt_to_json
from asteroid_mining.maps.fairness import NEAR_SHARE, SHELTER_HOPS, SHELTER_SHARE, fairness_report, needed_units
from asteroid_mining.maps.generator import PRESETS, BeltParams, GeneratorError, generate_belt, preset_params
from asteroid_mining.maps.graph import BeltArrays, degrees
from asteroid_mining.maps.layout import SECTOR_LETTERS
from asteroid_mining.rules.belt import Belt
from asteroid_mining.rules.materials import HOLLOW, KINDS

FAST_PRESETS = ["tutorial", "small", "standard"]


def dump(belt: Belt) -> str:
    return json.dumps(belt_to_json(belt), sort_keys=True)


def graph(belt: Belt) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(a.id for a in belt.asteroids)
    g.add_edges_from(belt.links)
    return g


@pytest.mark.parametrize("preset", FAST_PRESETS)
def test_same_seed_same_json(preset: str) -> None:
    assert dump(generate_belt(preset, seed=42)) == dump(generate_belt(preset, seed=42))


def test_different_seeds_differ() -> None:
    assert dump(generate_belt("small", seed=1)) != dump(generate_belt("small", seed=2))


def test_same_params_object_or_preset_name() -> None:
    assert dump(generate_belt(PRESETS["small"], seed=3)) != ""
    assert generate_belt("small", seed=3).asteroids == generate_belt(PRESETS["small"], seed=3).asteroids


@pytest.mark.parametrize("preset", [*FAST_PRESETS, "large"])
def test_sizes_per_preset(preset: str) -> None:
    belt = generate_belt(preset, seed=7)
    assert len(belt.asteroids) == PRESETS[preset].size
    assert belt_problems(belt_to_json(belt)) == []


def test_preset_sizes_are_as_named() -> None:
    sizes = {name: p.size for name, p in PRESETS.items()}
    assert sizes == {"tutorial": 30, "small": 80, "standard": 250, "large": 2_000, "huge": 20_000}


def test_custom_size_and_overrides() -> None:
    belt = generate_belt("small", seed=1, size=123, richness=0.8, name="Mine")
    assert len(belt.asteroids) == 123
    assert belt.name == "Mine"


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("preset", FAST_PRESETS)
def test_connected(preset: str, seed: int) -> None:
    assert nx.is_connected(graph(generate_belt(preset, seed=seed)))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("preset", FAST_PRESETS)
def test_fair(preset: str, seed: int) -> None:
    belt = generate_belt(preset, seed=seed)
    report = fairness_report(belt)
    assert report.warnings() == []
    need = needed_units()
    for kind in KINDS:
        assert report.usable[kind] >= need[kind] + 1, kind  # comfortably more than a win needs
    assert report.shelter_share >= SHELTER_SHARE
    assert report.near_share >= NEAR_SHARE
    assert report.start_shelter


def test_shelter_distance_checked_independently(standard: Belt) -> None:
    g = graph(standard)
    hollow = [a.id for a in standard.asteroids if a.core == HOLLOW]
    dist = nx.multi_source_dijkstra_path_length(g, hollow)
    within = sum(1 for a in standard.asteroids if dist[a.id] <= SHELTER_HOPS)
    assert within >= 0.95 * len(standard.asteroids)


def test_every_asteroid_near_at_some_round_of_its_orbit(standard: Belt) -> None:
    near_sometime = [
        a.orbit is not None and any(a.orbit.is_near(r) for r in range(1, a.orbit.period + 1))
        for a in standard.asteroids
    ]
    assert np.mean(near_sometime) >= 0.95


def test_every_region_goes_near_the_sun() -> None:
    belt = generate_belt("standard", seed=3)
    for letter in SECTOR_LETTERS:
        region = [a for a in belt.asteroids if a.id.rstrip("0123456789") == letter]
        if not region:
            continue
        rounds = {r for a in region if a.orbit for r in range(1, 41) if a.orbit.is_near(r)}
        assert len(rounds) >= 10, letter


def test_varied_orbits_and_mantles(standard: Belt) -> None:
    periods = {a.orbit.period for a in standard.asteroids if a.orbit}
    windows = {a.orbit.window for a in standard.asteroids if a.orbit}
    mantles = {a.mantle for a in standard.asteroids}
    assert len(periods) >= 8 and len(windows) >= 5 and len(mantles) >= 5


def test_no_trap_cores(standard: Belt) -> None:
    """Ice and uranium never lie bare at the start, nor on an asteroid that is always near the Sun."""
    for a in standard.asteroids:
        if a.core in ("ice", "uranium"):
            assert a.mantle > 0
            assert a.orbit is None or a.orbit.window < a.orbit.period


def test_start_is_sensible(standard: Belt) -> None:
    start = next(a for a in standard.asteroids if a.id == standard.start)
    assert start.core == HOLLOW and start.mantle == 0
    report = fairness_report(standard)
    assert report.start_kinds >= 3
    g = graph(standard)
    assert 1 <= g.degree[standard.start] < 20


def test_ids_name_the_sector() -> None:
    belt = generate_belt("small", seed=2)
    for a in belt.asteroids:
        assert a.position is not None
        angle = np.degrees(np.arctan2(a.position[1], a.position[0])) % 360
        assert a.id[0] == SECTOR_LETTERS[min(int(angle // 15), 23)]


def test_annulus_around_the_sun(standard: Belt) -> None:
    xy = np.array([a.position for a in standard.asteroids])
    r = np.hypot(xy[:, 0], xy[:, 1])
    assert r.min() > 0.3 * r.max()


def test_density_sets_the_mean_degree() -> None:
    for density in (3.0, 5.0, 8.0):
        belt = generate_belt(BeltParams(size=1000, density=density, hubs=0), seed=1)
        mean = 2 * len(belt.links) / len(belt.asteroids)
        assert density * 0.8 <= mean <= density * 1.25, (density, mean)


def test_hubs_on_large_belts() -> None:
    belt = generate_belt("large", seed=4)
    arrays = BeltArrays.of(belt)
    deg = degrees(arrays.n, arrays.edges)
    assert (deg >= 200).sum() >= PRESETS["large"].hubs - 1
    assert nx.is_connected(graph(belt))
    report = fairness_report(belt)
    assert report.hubs >= PRESETS["large"].hubs - 1
    assert report.warnings() == []


def test_no_hubs_on_small_belts(small: Belt) -> None:
    assert fairness_report(small).hubs == 0
    assert fairness_report(small).max_degree < 20


def test_links_are_canonical(standard: Belt) -> None:
    seen = set()
    for a, b in standard.links:
        assert a != b
        key = frozenset((a, b))
        assert key not in seen
        seen.add(key)


def test_storm_settings_follow_size() -> None:
    assert generate_belt("tutorial", seed=1).storm_sector >= generate_belt("standard", seed=1).storm_sector
    assert "storm_interval=" in generate_belt("standard", seed=1).description


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (dict(size=5), "size must be between"),
        (dict(size=300_000), "size must be between"),
        (dict(density=0.5), "density must be between"),
        (dict(hubs=-1), "hubs must be between"),
        (dict(hubs=100), "hubs must be between 0 and 12 for 250 asteroids"),
        (dict(richness=9.0), "richness must be between"),
        (dict(storms=-1.0), "storm frequency must be between"),
        (dict(hub_size=(10, 5)), "hub sizes"),
    ],
)
def test_bad_parameters(params: dict[str, object], message: str) -> None:
    with pytest.raises(GeneratorError, match=message):
        generate_belt("standard", seed=1, **params)


def test_unknown_preset_and_negative_seed() -> None:
    with pytest.raises(GeneratorError, match="unknown preset 'giant'"):
        preset_params("giant")
    with pytest.raises(GeneratorError, match="seed"):
        generate_belt("small", seed=-1)


@settings(max_examples=25, deadline=None)
@given(
    size=st.integers(30, 400),
    density=st.floats(1.0, 12.0),
    hubs=st.integers(0, 3),
    richness=st.floats(0.2, 2.0),
    storms=st.floats(0.0, 3.0),
    seed=st.integers(0, 2**32),
)
def test_any_parameters_give_a_valid_connected_belt(
    size: int, density: float, hubs: int, richness: float, storms: float, seed: int
) -> None:
    params = BeltParams(size=size, density=density, hubs=min(hubs, size // 20), richness=richness, storms=storms)
    belt = generate_belt(params, seed=seed)
    assert len(belt.asteroids) == size
    assert belt_problems(belt_to_json(belt)) == []
    assert nx.is_connected(graph(belt))
    report = fairness_report(belt)
    need = needed_units()
    assert all(report.usable[k] >= need[k] for k in KINDS)
    assert report.shelter_share >= SHELTER_SHARE


def test_the_belt_carries_its_storm_interval_and_keeps_it_through_a_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from asteroid_mining.maps.format import load_belt, save_belt
    from asteroid_mining.maps.storms import recommended_storm_interval

    belt = generate_belt("small", seed=4)
    assert belt.storm_interval == recommended_storm_interval(belt.storm_sector, 1.0)
    save_belt(belt, tmp_path / "b.json")
    assert load_belt(tmp_path / "b.json").storm_interval == belt.storm_interval
