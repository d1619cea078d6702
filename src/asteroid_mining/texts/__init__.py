"""The player-facing words of the game, from the one source of them: the translation files of the browser
client (`web/static/i18n/{en,hu}.json`, packaged here as `en.json` and `hu.json`).

The rules engine gives refusals as a code and parameters only; the browser words them from these files
(`web/src/words.ts`), and so does everything in Python that shows a refusal to a person — the command line,
the scenario runner, the server's answer to a refused action — with `refusal_text`, which follows the browser's
`refusalText` step for step.

A text is plain with `{name}` marks; a key with `_one`/`_other` variants picks one by the parameter `n` (as
`web/src/i18n.ts` does). The files are read once, through `importlib.resources`, so that an installed package
finds them as the source tree does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources

from ..rules import KINDS

LANGS = ("en", "hu")
"""The languages there are texts for."""

_MARK = re.compile(r"\{(\w+)\}")
_SETTLER = re.compile(r"^s\d+$")
_DIGITS = re.compile(r"\d+$")
Param = str | int
"""The value of a text's parameter."""


@cache
def texts(lang: str = "en") -> dict[str, str]:
    """Every text of `lang` by its key, as the translation file holds it; ValueError for another language."""
    if lang not in LANGS:
        raise ValueError(f"no texts for language {lang!r} (known: {', '.join(LANGS)})")
    raw = resources.files(__name__).joinpath(f"{lang}.json").read_text(encoding="utf-8")
    loaded = json.loads(raw)
    if not isinstance(loaded, dict) or not all(isinstance(v, str) for v in loaded.values()):
        raise ValueError(f"{lang}.json: must be an object of texts")
    return loaded


def has(key: str, lang: str = "en") -> bool:
    """Whether `lang` has a text for `key` (or its `_one`/`_other` variants)."""
    found = texts(lang)
    return key in found or f"{key}_one" in found


def text(key: str, params: Mapping[str, Param] | None = None, lang: str = "en") -> str:
    """The text of `key` with its `{name}` marks filled from `params` (a mark without a value stays as it is);
    the English text when `lang` has none, and the key itself when neither has."""
    values = params or {}
    found = texts(lang)
    chosen: str | None = None
    n = values.get("n")
    if isinstance(n, int):
        chosen = found.get(f"{key}_{'one' if n == 1 else 'other'}")
    if chosen is None:
        chosen = found.get(key, texts("en").get(key))
    if chosen is None:
        return key
    return _MARK.sub(lambda m: str(values[m.group(1)]) if m.group(1) in values else m.group(0), chosen)


def kind_name(kind: str, form: str = "", lang: str = "en") -> str:
    """A material's name ("ice", "jég"); `form` (`acc`) picks a grammatical form where the language has one."""
    key = f"kind_{form}.{kind}" if form else f"kind.{kind}"
    return text(key, lang=lang) if has(key, lang) else kind


def hungarian_article(number: int) -> str:
    """The Hungarian definite article before a number written in digits ("az 1.", "a 2.", "az 5.")."""
    lead = str(abs(number))
    return "az" if number == 1 or lead.startswith("5") or 1000 <= number < 2000 else "a"


def settler_subject(settler: str, lang: str = "en") -> str:
    """A settler as the subject of a sentence ("Settler 3", "a 3. telepes")."""
    digits = _DIGITS.search(settler)
    number = digits.group(0) if digits else settler[:2].upper()
    article = hungarian_article(int(number)) if number.isdigit() else "a"
    return text("settler.subject", {"n": number, "id": settler, "art": article}, lang)


def refusal_text(code: str, params: Mapping[str, Param], lang: str = "en") -> str:
    """A refusal of the rules (its code and parameters) as a sentence a player reads, in `lang`; the code itself
    for a code the texts do not know (`tests/test_texts.py` checks that every code of the rules is known)."""
    p: dict[str, Param] = dict(params)
    kind = params.get("kind")
    if isinstance(kind, str):
        p["kind_acc"] = kind_name(kind, "acc", lang)
        # these codes' `kind` is a kind of thing (settler, robot, ...), not a material
        p["kind"] = kind if code in ("cannot_do", "dead", "not_an_actor") else kind_name(kind, lang=lang)
    core = params.get("core")
    if isinstance(core, str):
        p["core"] = text(f"core.{core}", lang=lang)
    turn = params.get("turn")
    if isinstance(turn, str) and turn:
        p["turn"] = settler_subject(turn, lang)
    actor = params.get("actor")
    if isinstance(actor, str) and _SETTLER.match(actor):
        p["actor"] = settler_subject(actor, lang)
    mantle = params.get("mantle")
    if isinstance(mantle, int):
        p["n"] = mantle
    build = params.get("build")
    if isinstance(build, str):
        p["what"] = text(f"build.{build}", lang=lang)
        lacking = [f"{params[k]} {kind_name(k, lang=lang)}" for k in KINDS
                   if isinstance(params.get(k), int) and int(params[k]) > 0]
        p["lack"] = text("list.and", lang=lang).join(lacking)
    status = params.get("status")
    if isinstance(status, str):
        p["status"] = text(f"status.{status}", lang=lang)
    key = f"refusal.{code}"
    return text(key, p, lang) if has(key, lang) else code
