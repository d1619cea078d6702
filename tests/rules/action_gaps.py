"""What a new action, refusal code or event still lacks elsewhere in the project: each gap in words, naming the
file to edit. `tests/rules/test_adding_an_action.py` asserts there is none, in this tree and in a copy with a toy
action added; run as a script (`python action_gaps.py ROOT`) it prints the gaps of the tree at ROOT as JSON, with
the engine that `PYTHONPATH` gives (the toy's copy runs it on its own sources).

Every list the checks read is derived from the engine (`ACTION_SPECS`, `REFUSAL_KINDS`, the `Event` union), so
that nothing here needs an edit for a new action.
"""

from __future__ import annotations

import json
import re
import sys
import typing
from pathlib import Path

LANGS = ("en", "hu")


def _words(root: Path, lang: str) -> dict[str, str]:
    found: dict[str, str] = json.loads((root / "web/static/i18n" / f"{lang}.json").read_text(encoding="utf-8"))
    return found


def _has_word(words: dict[str, str], key: str) -> bool:
    """`key` or, for a word with plural forms or variants, a key that begins with `key_`."""
    return bool(words.get(key)) or any(k.startswith(key + "_") and v for k, v in words.items())


def action_gaps(root: Path) -> list[str]:
    """Every settler action's place in the RL action space, the client's action table, the lessons, and its words
    in both languages."""
    from asteroid_mining.rl.encoding import ACTION_LAYOUT, MOVE
    from asteroid_mining.rules import ACTION_SPECS
    from asteroid_mining.rules.actions import RULES
    from asteroid_mining.server.action_schemas import action_slots

    settler = [spec.name for spec in ACTION_SPECS if "settler" in spec.actors]
    module = {rule.name: type(rule).__module__.rsplit(".", 1)[-1] for rule in RULES}
    gaps: list[str] = []
    indexed = {a.name for a in ACTION_LAYOUT} | {MOVE}
    gaps += [f"rl/encoding.py: {name} has no index in the action space" for name in settler if name not in indexed]
    gaps += [f"rl/encoding.py: {name} has indices but is no settler action" for name in sorted(indexed)
             if name not in settler]
    # the engine refuses to load a settler action that says no key, or another's (`actions._check_keys`)
    slots = {slot["name"]: slot for slot in action_slots()}
    for name in settler:
        if name not in slots:
            gaps.append(f"server/action_schemas.py: {name} is not in the client's action table")
        elif name != MOVE and not slots[name]["key"]:
            gaps.append(f"rules/actions/{module[name]}.py: {name} has the key None (no button on the action bar)")
    for lang in LANGS:
        words = _words(root, lang)
        for name in settler:
            gaps += [f"web/static/i18n/{lang}.json: {key}" for key in (f"action.{name}", f"help.{name}")
                     if not words.get(key) and not (name == MOVE and key.startswith("help."))]
    for path in sorted((root / "src/asteroid_mining/server/lessons").glob("*.json")):
        lesson = json.loads(path.read_text(encoding="utf-8"))
        for number, step in enumerate(lesson.get("steps", [])):
            press = step.get("press")
            if press is not None and press.split(":")[0] not in settler:
                gaps.append(f"server/lessons/{path.name}: steps[{number}].press {press!r} is no settler action")
    return gaps


def client_gaps(root: Path) -> list[str]:
    """The client's generated action table (`make protocol`) holds every settler action, and the action bar and
    the key map are built from it rather than from lists of their own (an action without a drawn picture gets a
    lettered one: `web/src/ui/action_icons.ts`)."""
    from asteroid_mining.rules import ACTION_SPECS

    settler = [spec.name for spec in ACTION_SPECS if "settler" in spec.actors]
    table = (root / "web/src/generated/actions.ts").read_text(encoding="utf-8")
    gaps: list[str] = []
    presses = re.search(r"export const PRESSES = (\[.*?\]) as const;", table)
    if presses is None or sorted(json.loads(presses.group(1))) != sorted(settler):
        gaps.append("web/src/generated/actions.ts: PRESSES is not every settler action (run make protocol)")
    slots = re.search(r"export const ACTION_SLOTS = (\[.*?\]) as const;", table)
    named = [slot["name"] for slot in json.loads(slots.group(1))] if slots else []
    gaps += [f"web/src/generated/actions.ts: no slot for {name} (run make protocol)"
             for name in settler if name != "move" and name not in named]
    for path in ("web/src/ui/actionbar.ts", "web/src/ui/keymap.ts"):
        if "ACTION_SLOTS" not in (root / path).read_text(encoding="utf-8"):
            gaps.append(f"{path}: does not build its actions from the generated ACTION_SLOTS")
    return gaps


def word_gaps(root: Path) -> list[str]:
    """Words in both languages for every refusal code the rules give (`refusal.CODE`) and every event
    (`log.TYPE`, or its variants `log.TYPE_…`)."""
    from asteroid_mining.rules import REFUSAL_KINDS
    from asteroid_mining.rules.events import Event

    types = [record.type for record in typing.get_args(Event)]
    gaps: list[str] = []
    for lang in LANGS:
        words = _words(root, lang)
        gaps += [f"web/static/i18n/{lang}.json: refusal.{code}" for code in REFUSAL_KINDS
                 if not _has_word(words, f"refusal.{code}")]
        gaps += [f"web/static/i18n/{lang}.json: log.{kind}" for kind in types if not _has_word(words, f"log.{kind}")]
    return gaps


if __name__ == "__main__":
    here = Path(sys.argv[1])
    print(json.dumps(action_gaps(here) + word_gaps(here) + client_gaps(here)))
