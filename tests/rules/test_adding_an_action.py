"""docs/engine.md's "Adding an action" stays true: every action the engine registers has its scenario words, its
place in the RL action space, its button and key in the client's generated action table, its words in both of the
client's languages (and every refusal code and event too), the lessons press only actions that exist, and a toy
action added to a copy of the project plays end to end after editing the 4 files the section names, and no others
(the client gets its button, with a lettered picture, and compiles with no edit).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from asteroid_mining.rules import ACTION_SPECS
from asteroid_mining.rules.actions import ActionSpec, FieldSpec
from asteroid_mining.script.parser import Do, parse
from asteroid_mining.script.words import ACTION_WORDS, FIRST_WORDS, ActionWords, choose

from .action_gaps import action_gaps, client_gaps, word_gaps

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


def test_every_action_but_move_has_a_button_and_a_key() -> None:
    assert client_gaps(ROOT) == []


def test_every_action_has_its_place_everywhere() -> None:
    """The RL action space, the client's action table (its keys), the lessons and the words of each action."""
    assert action_gaps(ROOT) == []


def test_every_refusal_code_and_event_has_words_in_both_languages() -> None:
    assert word_gaps(ROOT) == []


def test_the_checks_see_what_is_missing(tmp_path: Path) -> None:
    for path in ("web/static/i18n/en.json", "web/static/i18n/hu.json", "web/src/generated/actions.ts",
                 "web/src/ui/actionbar.ts", "web/src/ui/keymap.ts"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text((ROOT / path).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "src/asteroid_mining/server/lessons").mkdir(parents=True)
    (tmp_path / "src/asteroid_mining/server/lessons/01-x.json").write_text(
        json.dumps({"steps": [{"press": "drill"}, {"press": "fly:A"}]}), encoding="utf-8")
    hu = tmp_path / "web/static/i18n/hu.json"
    words = json.loads(hu.read_text(encoding="utf-8"))
    for key in ("action.mine", "refusal.core_hollow", "log.drilled", "log.sun_near", "log.sun_far"):
        del words[key]
    hu.write_text(json.dumps(words), encoding="utf-8")
    table = tmp_path / "web/src/generated/actions.ts"
    table.write_text(table.read_text(encoding="utf-8").replace('{"name":"mine","key":"m"},', ""), encoding="utf-8")
    keys = tmp_path / "web/src/ui/keymap.ts"
    keys.write_text(keys.read_text(encoding="utf-8").replace("ACTION_SLOTS", "MY_SLOTS"), encoding="utf-8")
    assert action_gaps(tmp_path) == [
        "web/static/i18n/hu.json: action.mine", "server/lessons/01-x.json: steps[1].press 'fly:A' is no settler action",
    ]
    assert word_gaps(tmp_path) == [
        "web/static/i18n/hu.json: refusal.core_hollow", "web/static/i18n/hu.json: log.drilled",
        "web/static/i18n/hu.json: log.sun",
    ]
    assert client_gaps(tmp_path) == [
        "web/src/generated/actions.ts: no slot for mine (run make protocol)",
        "web/src/ui/keymap.ts: does not build its actions from the generated ACTION_SLOTS",
    ]


TOY = '''"""`scan`: survey the core of the actor's asteroid from its surface, without drilling (a toy action)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..effects import touch
from ..errors import Refusal, shape_of
from ..events import Event
from ..state import Asteroid, GameState
from .base import Action, Actor, Rule

_DRILLED_THROUGH: Final = shape_of("drilled_through", ("actor", "asteroid"))


@dataclass(frozen=True, slots=True)
class Scan(Action):
    """Survey the core of the actor's asteroid without drilling."""

    def __init__(self, actor: str) -> None:
        object.__setattr__(self, "actor", actor)


Scan.name = "scan"
Scan.doc = "Survey the core of the actor's asteroid without drilling."


class ScanRule(Rule[Scan]):
    """Settlers only; an open core needs no scan."""

    record = Scan
    offered = 25
    key = "s"

    def refuse(self, state: GameState, actor: Actor, here: Asteroid, action: Scan) -> Refusal | None:
        """Needs mantle left."""
        if here.mantle == 0:
            return Refusal(_DRILLED_THROUGH, (actor.id, here.id))
        return None

    def perform(self, state: GameState, actor: Actor, here: Asteroid, action: Scan, events: list[Event]) -> None:
        """The core is known."""
        here.surveyed = True
        touch(state, here.id)

    def candidates(self, state: GameState, actor: Actor, here: Asteroid | None) -> list[Scan]:
        """The one scan."""
        return [Scan(actor.id)]


RULE = ScanRule()
'''
SCENARIO = """# R11: scan surveys the core through the mantle; an open core needs no scan
asteroid A mantle=2 core=iron
asteroid B mantle=0 core=ice
link A B
settler s1 at=A
do s1 scan
expect A.surveyed == true
expect A.mantle == 2
do s1 move B
reject=drilled_through do s1 scan
"""
PLAY = """
import json, sys
from asteroid_mining.rules import Game, Options, action_from_json
from asteroid_mining.rl.encoding import ACTION_LAYOUT, Encoder
from asteroid_mining.ai.observation import Observation
game = Game.empty(Options(turns="free", ufos=0))
game.add_asteroid("A", mantle=2, core="iron")
game.add_settler("s1", "A")
names = [c.action.name for c in game.choices("s1").choices]
legal = [a.name for a in game.legal_actions("s1")]
same = json.loads(game.choices_text("s1")) == game.choices("s1").to_json()
scan = next(a for a in ACTION_LAYOUT if a.name == "scan")
encoder = Encoder()
mask = encoder.mask(Observation(game), "s1")
played = encoder.action(Observation(game), "s1", scan.first).to_json()
game.apply(action_from_json(played))
print(json.dumps({"choices": names, "legal": legal, "text": same, "mask": int(mask[scan.first]),
                  "played": played, "surveyed": game.asteroids["A"].surveyed}))
"""


def _tree(root: Path) -> dict[str, str]:
    """Every file of the copy by its path, with its text's hash (caches and links to other files left out: the
    package's texts are links to the client's)."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file() and not p.is_symlink() and "__pycache__" not in p.parts}


def _python(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root / "src"), "ASTEROID_MINING_ENGINE": "pure"}
    return subprocess.run([sys.executable, *args], cwd=root, env=env, capture_output=True, text=True, timeout=600,
                          check=False)


def _run(root: Path, *args: str) -> str:
    done = _python(root, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _refused(root: Path, *args: str) -> str:
    """The last line of what a run that must fail wrote (its error)."""
    done = _python(root, *args)
    assert done.returncode != 0, done.stdout
    return done.stderr.strip().splitlines()[-1]


def test_a_toy_action_end_to_end(tmp_path: Path) -> None:
    """Add `scan` to a copy of the project: the checks name what it lacks until its files are in; then it is
    offered, judged, written, encoded for learning agents and played by a scenario, the client compiles with its
    button (a lettered picture: no client edit), and the files edited by hand are the section's 4: the rule (with
    its key), its words in two languages, its scenario (`make protocol` writes the client's action table)."""
    node = shutil.which("node")
    assert node is not None, "Node.js is needed to write the client's action table (make protocol)"
    assert (ROOT / "web/node_modules").exists(), "run `make web` first (npm ci)"
    root = tmp_path / "copy"
    shutil.copytree(ROOT / "src/asteroid_mining", root / "src/asteroid_mining", symlinks=True,
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "_compiled.json", "static"))
    for part in ("web/static/i18n", "web/src", "tests/scenarios"):
        shutil.copytree(ROOT / part, root / part)
    for part in ("web/protocol.mjs", "web/tsconfig.json"):
        shutil.copy(ROOT / part, root / part)
    (root / "web/node_modules").symlink_to(ROOT / "web/node_modules")
    shutil.copy(Path(__file__).with_name("action_gaps.py"), tmp_path / "action_gaps.py")
    before = _tree(root)
    gaps = [str(tmp_path / "action_gaps.py"), str(root)]
    assert json.loads(_run(root, *gaps)) == []

    # 1. the rule object, with its button's key: the engine does not load it without one, or with another's
    rule = root / "src/asteroid_mining/rules/actions/scan.py"
    rule.write_text(TOY.replace('    key = "s"\n', ""), encoding="utf-8")
    assert _refused(root, *gaps) == (
        "ValueError: rules/actions/scan.py: scan needs its key in ScanRule: the key of its button on the action bar "
        "(`key = 'x'`, one lowercase letter), or `key = None` for no button")
    rule.write_text(TOY.replace('key = "s"', 'key = "d"'), encoding="utf-8")
    assert _refused(root, *gaps) == (
        "ValueError: rules/actions/scan.py: scan's key 'd' is drill's already (rules/actions/drill.py): give it "
        "another")
    rule.write_text(TOY.replace('key = "s"', 'key = "S"'), encoding="utf-8")
    assert _refused(root, *gaps) == (
        "ValueError: rules/actions/scan.py: scan's key must be one lowercase letter (or None: no button), not 'S'")
    rule.write_text(TOY, encoding="utf-8")
    assert json.loads(_run(root, *gaps)) == [
        "web/static/i18n/en.json: action.scan", "web/static/i18n/en.json: help.scan",
        "web/static/i18n/hu.json: action.scan", "web/static/i18n/hu.json: help.scan",
        "web/src/generated/actions.ts: PRESSES is not every settler action (run make protocol)",
        "web/src/generated/actions.ts: no slot for scan (run make protocol)",
    ]
    # 2, 3. its words in both languages
    for lang, words in (("en", ("Scan", "Survey the core without drilling.")),
                        ("hu", ("Szkennelés", "Fúrás nélkül felméri a magot."))):
        path = root / "web/static/i18n" / f"{lang}.json"
        found = json.loads(path.read_text(encoding="utf-8"))
        found["action.scan"], found["help.scan"] = words
        path.write_text(json.dumps(found, ensure_ascii=False, indent=1), encoding="utf-8")
    assert json.loads(_run(root, *gaps)) == [
        "web/src/generated/actions.ts: PRESSES is not every settler action (run make protocol)",
        "web/src/generated/actions.ts: no slot for scan (run make protocol)",
    ]
    # `make protocol`: the client's action table, with scan's button after drill's
    schema = _run(root, "-m", "asteroid_mining.server.protocol")
    done = subprocess.run([node, "protocol.mjs"], cwd=root / "web", input=schema, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(_run(root, *gaps)) == []
    table = (root / "web/src/generated/actions.ts").read_text(encoding="utf-8")
    assert '[{"name":"drill","key":"d"},{"name":"scan","key":"s"},{"name":"mine","key":"m"},' in table
    # the client compiles as it is: the new button shows its initial (no picture is drawn for it)
    tsc = subprocess.run([node, str(root / "web/node_modules/typescript/bin/tsc"), "--noEmit", "-p", "."],
                         cwd=root / "web", capture_output=True, text=True, timeout=600, check=False)
    assert tsc.returncode == 0, tsc.stdout + tsc.stderr
    # 4. its scenario
    (root / "tests/scenarios/r11_scan.scn").write_text(SCENARIO, encoding="utf-8")
    summary = _run(root, "-m", "asteroid_mining", "script", "-q", "tests/scenarios/r11_scan.scn")
    assert re.fullmatch(r"[1-9]\d* passed, 0 failed", summary.splitlines()[-1]), summary

    played = json.loads(_run(root, "-c", PLAY))
    assert played == {"choices": ["drill", "scan", "mine", "deposit", "deposit", "deposit", "deposit",
                                  "build_robot", "build_gates", "wait"],
                      "legal": ["drill", "scan", "wait"], "text": True, "mask": 1,
                      "played": {"type": "scan", "actor": "s1"}, "surveyed": True}
    after = _tree(root)
    touched = sorted(path for path in after if before.get(path) != after[path])
    written = ["web/src/generated/actions.ts", "web/src/generated/protocol.schema.json", "web/src/protocol.ts"]
    assert [path for path in touched if path not in written] == [  # by hand: 4 files
        "src/asteroid_mining/rules/actions/scan.py", "tests/scenarios/r11_scan.scn", "web/static/i18n/en.json",
        "web/static/i18n/hu.json",
    ]


def test_the_section_names_files_that_exist() -> None:
    doc = (ROOT / "docs/engine.md").read_text(encoding="utf-8")
    section = doc.split("### Adding an action\n", 1)[1].split("\n### ", 1)[0]
    paths = re.findall(r"`((?:src|web|tests)/[\w/.]+)`", section)
    assert len(paths) >= 6
    for path in paths:
        if "NAME" not in path:  # the new module's own file
            assert (ROOT / path).exists(), path
