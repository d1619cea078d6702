"""The hint button ("What would a good player do?"): tapped on a phone, it shows the planner's action on the map
(the destination ringed, or the action's button pulsing) with a one-line reason in the player's language, and
the action it names is one the player can take."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Server, acted, open_game, seq, shot

REASON_WORDS = {"en": ("Fly to", "Drill", "Mine", "Wait"), "hu": ("Repülj", "Fúrás", "Bányászat", "Várakozás")}


@pytest.mark.parametrize("lang", ["en", "hu"])
@pytest.mark.parametrize(("width", "height", "touch"), [(390, 844, True), (1280, 800, False)])
def test_the_hint_shows_a_good_action_and_why(server: Server, new_page: Any, lang: str, width: int, height: int,
                                              touch: bool) -> None:
    game = server.create(seats=2, settlers_per_seat=1, bots={"2": "planner"}, seed=7)
    page = new_page(width=width, height=height, lang=lang, phone=touch)
    open_game(page, server, game)
    button = page.locator(".map-tools button[data-tool='hint']")
    assert button.get_attribute("aria-label") == ("What would a good player do?" if lang == "en"
                                                  else "Mit tenne egy jó játékos?")
    box = button.bounding_box()
    assert not touch or (box["width"] >= 44 and box["height"] >= 44)  # a finger's size on a touch screen
    for step in range(3):
        page.wait_for_function("!document.querySelector('.actionbar.inactive')")
        before = seq(page)
        button.tap() if touch else button.click()
        page.wait_for_selector(".hint-card[data-state='shown']")
        what = page.inner_text(".hint-card .hint-what")
        why = page.inner_text(".hint-card .hint-why")
        assert what.startswith(REASON_WORDS[lang]), what
        assert len(why) > 10 and "{" not in why and "hint.reason" not in why, why
        # shown on screen: the action's button or the destination pulses, and on the map it is ringed
        assert page.locator(".lesson-target").count() >= 1
        if step == 0:
            shot(page, f"hint-{width}-{lang}")
        target = page.locator(".lesson-target").first
        if what.startswith(REASON_WORDS[lang][0]):
            focus = page.evaluate("window.__am.scene.core.highlights.focus")
            assert focus and focus in what, (focus, what)
            if touch:  # on a phone the destination's button lies in the Fly sheet
                page.locator(".tabs button[data-tab='go']").tap()
            target = page.locator(".dest .lesson-target, .dest-panel .lesson-target").first
        # the named action is one the rules take: doing it is answered by an update, and the hint goes away
        acted(page, target.tap if touch else target.click)
        assert seq(page) > before
        page.wait_for_selector(".hint-card", state="hidden")
        if touch:
            page.locator(".tabs button[data-tab='map']").tap()
