"""The two builds of the bots' search: which one runs, and when the compiled one is used."""

from __future__ import annotations

import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import asteroid_mining.ai
from asteroid_mining.ai import BUILD, Observation, _native, make_bot, planner
from asteroid_mining.ai.planner import PlannerBot
from asteroid_mining.rules import Action, Game, Move, Wait, _engine

from ..builds import assert_build_asked_for, build_modules
from .conftest import play, small_game

AI = Path(asteroid_mining.ai.__file__).parent
AI_MODULES = build_modules("asteroid_mining.ai") or ()  # a list of modules, never "all"


def test_the_build_in_use_is_the_one_asked_for() -> None:
    assert_build_asked_for(BUILD, planner, lambda: _engine.compiled_problem(AI, AI_MODULES))


def test_the_compiled_modules_are_the_planners() -> None:
    # the package's __init__ decides which build runs, so it is never compiled; the modules exist
    assert AI_MODULES and "__init__" not in AI_MODULES
    assert all((AI / f"{m}.py").exists() for m in AI_MODULES)


def _package_copy(tmp_path: Path) -> Path:
    """The compiled modules' sources with a build record and (empty) extension modules, as `make compiled`
    leaves them."""
    here = tmp_path / "ai"
    here.mkdir()
    for source in _engine.compiled_sources(AI, AI_MODULES):
        (here / source.name).write_bytes(source.read_bytes())
        (here / (source.stem + importlib.machinery.EXTENSION_SUFFIXES[0])).write_bytes(b"")
    record = {"tag": _engine.build_tag(), "sources": _engine.source_hashes(here, AI_MODULES)}
    (here / _engine.MANIFEST.name).write_text(json.dumps(record), encoding="utf-8")
    return here


def test_a_build_is_used_only_while_it_matches_the_sources(tmp_path: Path) -> None:
    here = _package_copy(tmp_path)
    assert _engine.compiled_problem(here, AI_MODULES) is None
    source = here / "planner.py"
    source.write_text(source.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert "older than its sources (planner)" in (_engine.compiled_problem(here, AI_MODULES) or "")


def test_a_missing_extension_or_record_makes_the_build_unusable(tmp_path: Path) -> None:
    here = _package_copy(tmp_path)
    (here / f"search{importlib.machinery.EXTENSION_SUFFIXES[0]}").unlink()
    assert "missing (search)" in (_engine.compiled_problem(here, AI_MODULES) or "")
    (here / _engine.MANIFEST.name).unlink()
    assert "not built" in (_engine.compiled_problem(here, AI_MODULES) or "")


def test_pure_is_asked_for_both_builds() -> None:
    code = "import asteroid_mining.ai as ai, asteroid_mining.rules as r; print(ai.BUILD, r.ENGINE)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env=dict(os.environ, ASTEROID_MINING_ENGINE="pure"))
    assert result.stdout.split() == ["pure", "pure"]


def test_compiled_is_refused_when_not_usable() -> None:
    if _engine.compiled_problem(AI, AI_MODULES) is None:
        return  # built and current here: asking for it is fine (the tests above cover a stale one)
    result = subprocess.run([sys.executable, "-c", "import asteroid_mining.ai"], capture_output=True, text=True,
                            check=False, env=dict(os.environ, ASTEROID_MINING_ENGINE="compiled"))
    assert result.returncode != 0 and "ASTEROID_MINING_ENGINE=compiled" in result.stderr


def test_the_planner_plays_on_either_build() -> None:
    game = play(small_game(seed=3), make_bot("planner", 3))
    assert game.status == "won"


class Offering(Observation):
    """An observation of a kind of its own: the settler may take only the actions it is given."""

    __slots__ = ("offers",)

    def __init__(self, game: Game, offers: list[Action]) -> None:
        super().__init__(game)
        self.offers = offers

    def legal_actions(self, settler: str) -> list[Action]:
        return self.offers


class Patient(PlannerBot):
    """A planner that waits whenever the planner would move."""

    def choose(self, obs: Observation, settler: str) -> Action:
        action = super().choose(obs, settler)
        return Wait(settler) if isinstance(action, Move) else action


def test_python_classes_may_derive_from_the_observation_and_the_planner() -> None:
    game = small_game(seed=3)
    offers: list[Action] = [Wait("s1")]
    assert Offering(game, offers).legal_actions("s1") is offers
    assert Offering(game, offers).round == game.round
    bot = Patient(3)
    for _ in range(12):
        settler = game.turn
        assert settler is not None
        action = bot.choose(Observation(game), settler)
        assert not isinstance(action, Move)
        game.apply(action)


def test_without_mypy_extensions_the_decorator_changes_nothing() -> None:
    class Plain:
        pass

    assert _native.mypyc_attr(allow_interpreted_subclasses=True)(Plain) is Plain


def test_a_package_compiled_in_part_runs_the_modules_its_build_recorded(tmp_path: Path) -> None:
    """The modules compiled are named in one place, the build file: at run time the package takes them from its
    build's record, and a build made before a module joined the list stays usable for the others."""
    here = _package_copy(tmp_path)
    assert _engine.recorded_modules(here) == tuple(sorted(AI_MODULES))
    assert _engine.compiled_problem(here, _engine.recorded_modules(here)) is None
    (here / "extra.py").write_text("X = 1\n", encoding="utf-8")  # a module of the package the build did not compile
    assert _engine.compiled_problem(here, _engine.recorded_modules(here)) is None
    (here / _engine.MANIFEST.name).unlink()
    assert _engine.recorded_modules(here) == ()


def test_the_engine_names_no_other_package_s_modules() -> None:
    source = Path(_engine.__file__).read_text(encoding="utf-8")
    assert all(f'"{m}"' not in source for m in AI_MODULES)
    assert not hasattr(_engine, "AI_MODULES") and not hasattr(_engine, "MAPS_MODULES")
