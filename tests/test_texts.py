"""The player-facing words: one source (the translation files of web/static/i18n), packaged with the Python code,
and a text in every language for every refusal the rules can give."""

from __future__ import annotations

import io
import json
import tomllib
from pathlib import Path

import orjson
import pytest

from asteroid_mining import texts
from asteroid_mining.rules import REFUSAL_KINDS, Refusal
from asteroid_mining.script.runner import run_files
from asteroid_mining.server.messages import refused
from asteroid_mining.texts import LANGS, refusal_text

ROOT = Path(__file__).resolve().parents[1]
WEB_TEXTS = ROOT / "web" / "static" / "i18n"


def missing_refusal_texts(found: dict[str, str]) -> list[str]:
    """The refusal codes of the rules with no text in `found`: neither `refusal.CODE` nor both plural variants."""
    return [code for code in REFUSAL_KINDS
            if f"refusal.{code}" not in found
            and not (f"refusal.{code}_one" in found and f"refusal.{code}_other" in found)]


@pytest.mark.parametrize("lang", LANGS)
def test_every_refusal_code_has_a_text(lang: str) -> None:
    assert missing_refusal_texts(texts.texts(lang)) == []


def test_the_check_sees_a_missing_text() -> None:
    found = dict(texts.texts("en"))
    del found["refusal.core_hollow"]
    del found["refusal.mantle_left_one"]  # one plural variant alone is not a text for every count
    assert missing_refusal_texts(found) == ["mantle_left", "core_hollow"]


@pytest.mark.parametrize("lang", LANGS)
def test_the_texts_are_the_browser_s_files(lang: str) -> None:
    """Read through the package (importlib.resources), the very files the browser client is built from."""
    assert texts.texts(lang) == json.loads((WEB_TEXTS / f"{lang}.json").read_text(encoding="utf-8"))


def test_the_texts_are_packaged() -> None:
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["asteroid_mining"]
    assert "texts/*.json" in package_data
    here = ROOT / "src" / "asteroid_mining" / "texts"
    assert {p.name for p in here.glob("*.json")} == {f"{lang}.json" for lang in LANGS}


def test_an_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="no texts for language 'xx'"):
        texts.texts("xx")


@pytest.mark.parametrize(("code", "params", "en", "hu"), [
    ("mantle_left", {"actor": "s1", "asteroid": "A", "mantle": 1},
     "A still has 1 layer of mantle", "A köpenyéből még 1 réteg van hátra"),
    ("mantle_left", {"actor": "s1", "asteroid": "A", "mantle": 3},
     "A still has 3 layers of mantle", "A köpenyéből még 3 réteg van hátra"),
    ("not_your_turn", {"actor": "s2", "turn": "s1"}, "it is Settler 1's turn", "most az 1. telepes lép"),
    ("missing_materials", {"actor": "s1", "build": "robot", "iron": 1, "uranium": 2},
     "building a robot needs 1 iron and 2 uranium more", "a robothoz még kell: 1 vas és 2 urán"),
    ("game_over", {"status": "won"}, "the game is over (won)", None),
])
def test_a_refusal_is_worded_as_the_browser_words_it(code: str, params: dict[str, str | int], en: str,
                                                     hu: str | None) -> None:
    assert refusal_text(code, params) == en
    if hu is not None:
        assert refusal_text(code, params, "hu") == hu


def test_an_unknown_code_is_the_code_itself() -> None:
    assert refusal_text("made_up", {"actor": "s1"}) == "made_up"


def test_the_server_answers_a_refused_action_in_the_texts_english() -> None:
    refusal = Refusal("core_hollow", {"actor": "s1", "asteroid": "Home"})
    answer = orjson.loads(refused(refusal, ref=7))
    assert answer == {"type": "error", "code": "core_hollow", "params": {"actor": "s1", "asteroid": "Home"},
                      "message": "the core of Home is hollow", "ref": 7}


def test_the_scenario_runner_words_refusals_from_the_texts(tmp_path: Path) -> None:
    path = tmp_path / "t.scn"
    path.write_text("asteroid A mantle=3 core=iron\nsettler s1 at=A\nreject do s1 mine\ndo s1 mine\n",
                    encoding="utf-8")
    out = io.StringIO()
    assert run_files([str(path)], quiet=False, out=out) != 0
    lines = out.getvalue().splitlines()
    assert "refused as expected: A still has 3 layers of mantle" in lines
    assert f"{path}:4: error: A still has 3 layers of mantle" in lines
