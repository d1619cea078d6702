"""`maps.resolve`: the one set-up path of a game's belt (shipped belts win, the belt's storm interval everywhere)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asteroid_mining.maps import BeltError, belt_to_json, load_shipped, save_belt
from asteroid_mining.maps.difficulty import DIFFICULTIES, DIFFICULTY_NAMES
from asteroid_mining.maps.generator import generate_belt
from asteroid_mining.maps.resolve import ResolveError, belt_catalog, belt_source, resolve
from asteroid_mining.rules import CLASSIC, EXTENDED, Options


def test_a_shipped_belt_wins_over_the_preset_of_the_same_name() -> None:
    resolved = resolve("tutorial", seed=5)
    assert resolved.belt == load_shipped("tutorial")
    assert resolved.name == "tutorial"


def test_a_preset_is_generated_from_the_seed_with_its_storm_interval() -> None:
    resolved = resolve("standard", seed=7)
    belt = generate_belt("standard", seed=7)
    assert resolved.belt == belt
    assert belt.storm_interval is not None
    assert resolved.options == {"storm_interval": belt.storm_interval}
    assert resolved.options_for("classic") == Options(storm_interval=belt.storm_interval)
    assert resolved.options_for("extended").uranium_fuse == EXTENDED.uranium_fuse
    assert resolved.options_for("classic", {"storm_interval": 3}).storm_interval == 3  # the player's choice wins


def test_a_shipped_belt_recommends_its_own_storm_interval() -> None:
    assert resolve("puzzle-storm").options == {"storm_interval": 3}
    assert resolve("puzzle-gates").options == {}
    assert resolve("puzzle-gates").options_for("classic") == CLASSIC


def test_a_document_and_a_file(tmp_path: Path) -> None:
    belt = generate_belt("small", seed=2)
    assert resolve(belt_to_json(belt)).belt == belt
    path = tmp_path / "mine.json"
    save_belt(belt, path)
    assert resolve(path).belt == belt
    assert resolve(str(path), files=True).belt == belt
    with pytest.raises(ResolveError, match="unknown belt"):
        resolve(str(path))  # a name is never taken for a file unless the caller allows files
    with pytest.raises(BeltError):
        resolve({"format": "asteroid-mining/belt"})


def test_an_unknown_name_lists_what_is_known() -> None:
    with pytest.raises(ResolveError, match=r"unknown belt 'nowhere'.*puzzle-gates.*small, standard"):
        belt_source("nowhere")
    with pytest.raises(ResolveError, match="unknown difficulty 'nightmare': use easy, normal, hard, brutal"):
        belt_source("standard", "nightmare")


def test_a_source_knows_the_size_before_generating() -> None:
    assert belt_source("huge").size == 20_000
    assert belt_source("tutorial").size == len(load_shipped("tutorial").asteroids)


@pytest.mark.parametrize("level", DIFFICULTY_NAMES)
def test_a_difficulty_sets_the_generator_and_the_options(level: str) -> None:
    difficulty = DIFFICULTIES[level]
    resolved = resolve("standard", seed=3, difficulty=level)
    assert resolved.belt == generate_belt("standard", seed=3, **difficulty.generator)
    assert resolved.options["storm_warning"] == difficulty.options["storm_warning"]
    assert resolved.options["storm_interval"] == resolved.belt.storm_interval
    fixed = resolve("puzzle-storm", difficulty=level)  # a fixed belt: its storms scaled, the level's options
    assert fixed.belt == load_shipped("puzzle-storm")
    assert fixed.options["storm_interval"] == max(1, round(3 / difficulty.storms))


def test_the_catalog_lists_shipped_belts_then_the_presets_they_do_not_shadow() -> None:
    catalog = belt_catalog()
    assert [(b.name, b.kind) for b in catalog] == [
        ("puzzle-gates", "shipped"), ("puzzle-storm", "shipped"), ("tutorial", "shipped"),
        ("small", "generated"), ("standard", "generated"), ("large", "generated"), ("huge", "generated")]
    assert catalog[4].asteroids == 250 and catalog[0].description
    json.dumps([b.description for b in catalog])


def test_one_belt_resolver() -> None:
    """Game set-up goes through maps.resolve: no other module picks between shipped belts and presets."""
    root = Path(__file__).resolve().parents[2] / "src" / "asteroid_mining"
    choosers = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                      if "shipped_names()" in p.read_text(encoding="utf-8"))
    assert choosers == ["maps/resolve.py", "maps/shipped.py"]


def test_the_preset_names_are_the_generators() -> None:
    from asteroid_mining.maps.generator import PRESETS
    from asteroid_mining.maps.resolve import GENERATED

    assert tuple(PRESETS) == GENERATED


def test_a_source_pickles_with_its_belt_as_a_document() -> None:
    import pickle

    for source in (belt_source("tutorial", "hard"), belt_source("standard", "easy")):
        copy = pickle.loads(pickle.dumps(source))
        assert copy == source and copy(4) == source(4)
