"""docs/engine.md's "Adding an action" stays true: every action the engine registers has its scenario words, its
button, its key and its words in both of the client's languages, and the files the section names exist."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from asteroid_mining.rules import ACTION_SPECS
from asteroid_mining.rules.actions import ActionSpec, FieldSpec
from asteroid_mining.script.parser import Do, parse
from asteroid_mining.script.words import ACTION_WORDS, FIRST_WORDS, ActionWords, choose

ROOT = Path(__file__).resolve().parents[2]
NAMES = [spec.name for spec in ACTION_SPECS]
SAMPLE = {"thing": "x1", "new": "n{}", "material": "iron"}


def _words_of(action: ActionWords) -> list[str]:
    """A use of the action with every field given (new ids numbered so that they differ)."""
    words = list(action.words)
    for index, field in enumerate(action.spec.fields):
        words.append(SAMPLE[field.sort].format(index))
    return words


@pytest.mark.parametrize("action", ACTION_WORDS, ids=NAMES)
def test_every_action_has_scenario_words(action: ActionWords) -> None:
    assert action.words == tuple(action.spec.name.split("_"))
    for field in action.spec.fields:
        assert field.word and field.sort in ("thing", "new", "material"), field
    short = [*action.words, *(SAMPLE[f.sort].format(i) for i, f in enumerate(action.spec.fields) if f.required)]
    for words in (_words_of(action), short):
        statements = list(parse("asteroid A\nsettler s1 at=A\ndo s1 " + " ".join(words) + "\n"))
        do = statements[-1]
        assert isinstance(do, Do)
        assert (do.action, list(do.args)) == (words[0], words[1:])
        assert choose(do.action, do.args) == (action, tuple(words[len(action.words):]))


def test_first_words_keep_the_engine_order() -> None:
    assert list(FIRST_WORDS) == ["move", "drill", "mine", "deposit", "build", "place", "wait"]


def test_a_new_spec_gets_its_usage_from_its_fields() -> None:
    spec = ActionSpec(
        "launch_probe", "Launch a probe.",
        (FieldSpec("target", True, "where", "X", "thing"), FieldSpec("probe", False, "its id", "NEWID", "new")),
        ("settler",),
    )
    action = ActionWords(spec, ("launch", "probe"))
    assert action.usage() == "launch probe X [NEWID]"
    assert action.counts() == (1, 2)


@pytest.mark.parametrize("language", ["en", "hu"])
def test_every_action_has_client_words(language: str) -> None:
    words = json.loads((ROOT / "web/static/i18n" / f"{language}.json").read_text(encoding="utf-8"))
    for name in NAMES:
        assert words.get(f"action.{name}"), f"{language}.json: action.{name}"
        if name != "move":  # moves are the destinations listed on the map, explained there
            assert words.get(f"help.{name}"), f"{language}.json: help.{name}"


def test_every_action_but_move_has_a_button_and_a_key() -> None:
    bar = (ROOT / "web/src/ui/actionbar.ts").read_text(encoding="utf-8")
    keys = (ROOT / "web/src/ui/keymap.ts").read_text(encoding="utf-8")
    slots = re.findall(r'^\s*\["(\w+)", "\w", ICONS\.\w+\],$', bar, re.MULTILINE)
    assert slots == [name for name in NAMES if name != "move"]
    for name in slots:
        assert f'command: "act:{name}"' in keys, f"keymap.ts: act:{name}"


def test_the_section_names_files_that_exist() -> None:
    doc = (ROOT / "docs/engine.md").read_text(encoding="utf-8")
    section = doc.split("### Adding an action\n", 1)[1].split("\n### ", 1)[0]
    paths = re.findall(r"`((?:src|web|tests)/[\w/.]+)`", section)
    assert len(paths) >= 6
    for path in paths:
        if "NAME" not in path:  # the new module's own file
            assert (ROOT / path).exists(), path
