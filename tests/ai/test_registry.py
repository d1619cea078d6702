"""Bots from anywhere: the built-in ones, installed packages' (entry points) and a file's class (CLI only);
the example bot of docs/bots.md."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from asteroid_mining.ai import BOT_NAMES, Observation, SettlerBot, bot_names, make_bot
from asteroid_mining.ai.registry import BotError, installed_bots
from asteroid_mining.ai.simulate import SimConfig, run

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "prospector"
EXAMPLE_SPEC = f"{EXAMPLE / 'prospector.py'}:Prospector"


def install_example(folder: Path, name: str = "prospector", target: str = "prospector:Prospector") -> None:
    """What `pip install ./examples/prospector` leaves for importlib.metadata: a dist-info with entry points."""
    info = folder / "asteroid_mining_prospector-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: asteroid-mining-prospector\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text(f"[asteroid_mining.bots]\n{name} = {target}\n")


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    install_example(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(EXAMPLE))
    installed_bots.cache_clear()
    yield
    installed_bots.cache_clear()


def test_an_installed_bot_is_known_by_name(installed: None) -> None:
    assert bot_names() == (*BOT_NAMES, "prospector")
    bot = make_bot("prospector", seed=3)
    assert isinstance(bot, SettlerBot) and bot.name == "prospector"


def test_an_installed_bot_cannot_take_a_built_in_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install_example(tmp_path, name="planner")
    monkeypatch.syspath_prepend(str(tmp_path))
    installed_bots.cache_clear()
    try:
        assert bot_names() == BOT_NAMES
        assert type(make_bot("planner")).__name__ == "PlannerBot"
    finally:
        installed_bots.cache_clear()


def test_a_file_spec_only_when_files_are_allowed() -> None:
    with pytest.raises(BotError, match="unknown bot"):
        make_bot(EXAMPLE_SPEC)  # what the server calls: never imports a file
    assert make_bot(EXAMPLE_SPEC, seed=1, files=True).name == "prospector"
    with pytest.raises(BotError, match="there is no file"):
        make_bot("no/such/bot.py:Bot", files=True)
    with pytest.raises(BotError, match="has no class Nobody"):
        make_bot(f"{EXAMPLE / 'prospector.py'}:Nobody", files=True)


def test_the_example_bot_plays_legal_winning_games() -> None:
    results = run(SimConfig(bots=(EXAMPLE_SPEC,), games=6, belt="small", seed=1))
    assert all(r.refused == 0 and r.error is None for r in results)
    assert sum(r.outcome == "won" for r in results) >= 4


def test_the_example_bot_chooses_for_any_settler() -> None:
    from asteroid_mining.maps.resolve import resolve
    from asteroid_mining.rules import Game

    resolved = resolve("small", seed=2)
    game = Game.new(resolved.belt, resolved.options_for("classic"), seed=2)
    bot = make_bot(EXAMPLE_SPEC, files=True)
    for _ in range(30):
        action = bot.choose(Observation(game), game.turn or "s1")
        assert game.check(action) is None
        game.apply(action)


def test_simulate_plays_a_bot_from_a_file() -> None:
    # run beside the file, so that the table's bot name is short whatever folder the checkout is in
    done = subprocess.run([sys.executable, "-m", "asteroid_mining", "simulate", "--bot", "prospector.py:Prospector",
                           "--bot", "greedy", "--games", "2", "--belt", "small"], capture_output=True, text=True,
                          timeout=120, cwd=EXAMPLE)
    assert done.returncode == 0, done.stderr
    # shown by its own name, not the path it was given by
    assert "prospector" in done.stdout and "prospector.py" not in done.stdout and "greedy" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "asteroid_mining", "simulate", "--bot", "nobody.py:Bot"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
    assert bad.stderr.strip() == "asteroid-mining simulate: error: --bot nobody.py:Bot: there is no file nobody.py"
