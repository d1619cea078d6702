"""English and Hungarian: every text in both, and the switch between them."""

from __future__ import annotations

import json
import re
from typing import Any

from .conftest import ROOT, Server, open_game, shot

I18N = ROOT / "web" / "static" / "i18n"


def keys(lang: str) -> set[str]:
    return {re.sub(r"_(one|other)$", "", k) for k in json.loads((I18N / f"{lang}.json").read_text())}


def test_every_text_in_both_languages() -> None:
    assert keys("en") == keys("hu")
    hu = json.loads((I18N / "hu.json").read_text())
    en = json.loads((I18N / "en.json").read_text())
    same = [k for k in hu if k in en and hu[k] == en[k] and re.search("[a-z]{4}", hu[k])]
    assert same in ([], ["legend.robot"]), f"untranslated: {same}"


def test_switch_to_hungarian(server: Server, new_page: Any) -> None:
    page = new_page()
    page.goto(f"{server.url}/")
    page.wait_for_selector("#quick-play")
    page.click(".lang button[data-lang='hu']")
    page.wait_for_selector("h1:has-text('Aszteroidabányászat')")
    assert "Játék most" in page.inner_text("#quick-play")
    assert page.evaluate("document.documentElement.lang") == "hu"
    shot(page, "lobby-hu")
    game = server.create(seats=1, settlers_per_seat=2, belt="tutorial", seed=2)
    open_game(page, server, game)
    assert "Fúrás" in page.inner_text(".actionbar")
    assert "1. telepes" in page.inner_text(".settler-panel")
    page.click(".action-mine", force=True)
    assert "köpeny" in page.inner_text("#action-reason") or "üreges" in page.inner_text("#action-reason")
    page.keyboard.press("w")
    page.wait_for_selector(".log li:has-text('Az 1. telepes várakozott.')")
    shot(page, "game-hu")
    page.keyboard.press("l")  # back to English with the keyboard
    page.wait_for_selector(".log li:has-text('Settler 1 waited.')")
    assert "Drill" in page.inner_text(".actionbar")
