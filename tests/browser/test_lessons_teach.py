"""The first lesson as a new player meets it, by taps on a phone (390×844, touch) and by clicks on a desktop,
in English and Hungarian: it opens with its goal, a picture and an introduction that says how the game is won;
it ticks each step off as it is met; it ends with what it taught; the Learn page then marks it done and the next
one next (kept by this browser); and the lobby never lists the lesson's game."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Page, Server, seq, shot

TEXTS = {
    "en": {"learn": "Learn to play", "win": "3 ice, 3 iron, 3 carbon and 3 uranium", "learned": "You learned:",
           "done": "Done", "next": "Next", "title": "Fly"},
    "hu": {"learn": "Tanuld meg játszva", "win": "3 jeget, 3 vasat, 3 szenet és 3 uránt",
           "learned": "Amit megtanultál:", "done": "Kész", "next": "Következő", "title": "Repülés"},
}

RUNS = [pytest.param(390, 844, True, "en", id="phone-en"), pytest.param(390, 844, True, "hu", id="phone-hu"),
        pytest.param(1280, 800, False, "en", id="desktop-en"), pytest.param(1280, 800, False, "hu", id="desktop-hu")]


class Taps:
    """Taps (or clicks, on a desktop) as a person makes them, counted."""

    def __init__(self, page: Page, phone: bool) -> None:
        self.page, self.phone, self.count = page, phone, 0

    def __call__(self, selector: str) -> None:
        target = self.page.locator(selector).first
        target.wait_for(state="visible")
        if self.phone:
            target.tap()
        else:
            target.click()
        self.count += 1


def fly_where_pointed(page: Page, tap: Taps, target: str) -> None:
    """Flies to the highlighted destination: from the Fly list, opening its tab first when it is hidden."""
    before = seq(page)
    dest = f".dest[data-target='{target}'] button.lesson-target"
    if not page.locator(dest).first.is_visible():
        tap(".tabs button[data-tab='go']")
    tap(dest)
    page.wait_for_function(f"window.__am.seq > {before}")
    # the guide has asked the server about the new position
    page.wait_for_function("!!document.querySelector('.lesson-done') || window.__am.lessonSeq >= window.__am.seq")


@pytest.mark.parametrize(("width", "height", "phone", "lang"), RUNS)
def test_the_first_lesson_teaches_and_is_kept_done(server: Server, new_page: Any, width: int, height: int,
                                                    phone: bool, lang: str) -> None:
    words = TEXTS[lang]
    name = f"lesson-teach-{'phone' if phone else 'desktop'}-{lang}"
    page = new_page(width=width, height=height, lang=lang, phone=phone)
    page.goto(f"{server.url}/")
    page.wait_for_selector("#learn")
    tap = Taps(page, phone)
    tap("#learn")
    page.wait_for_selector(".lesson-card")
    first = page.locator(".lessons").first.locator(".lesson-card").first
    assert first.get_attribute("data-state") == "next" and words["next"] in first.inner_text()
    assert page.locator(".lesson-card[data-state='done']").count() == 0
    shot(page, f"{name}-0-learn")
    tap(".lesson-card[data-lesson='fly'] button")

    # the lesson opens with its goal, its picture and the introduction (how the game is won)
    page.wait_for_selector(".lesson-intro .lesson-picture")
    page.wait_for_function("window.__am.lessonSeq >= 0 && window.__am.lessonSeq >= window.__am.seq")
    banner = page.locator(".lesson-banner")
    assert words["title"] in banner.locator(".lesson-title").inner_text()
    assert words["win"] in banner.locator(".lesson-intro").inner_text()
    assert page.locator(".lesson-ticks li").count() == 2 and page.locator(".lesson-ticks li.met").count() == 0
    game_id = page.evaluate("decodeURIComponent(location.hash.split('/')[2].split('?')[0])")
    shot(page, f"{name}-1-intro")
    tap("#lesson-intro-ok")
    assert page.locator(".lesson-intro").count() == 0

    # each step met is ticked off, and written out struck through
    fly_where_pointed(page, tap, "Pallas")
    page.wait_for_function("document.querySelectorAll('.lesson-ticks li.met').length === 1")
    assert page.locator(".lesson-met").is_visible()
    shot(page, f"{name}-2-ticked")
    fly_where_pointed(page, tap, "Vesta")

    # the end: what was learned, and the next lesson
    card = page.locator(".lesson-done")
    card.wait_for()
    assert words["learned"] in card.locator(".lesson-learned").inner_text()
    assert page.locator("#lesson-next").is_visible()
    shot(page, f"{name}-3-learned")
    taps = tap.count
    print(f"\nfirst lesson ({name}): {taps} taps from the Learn page to its end")
    assert taps <= 6

    # back on the Learn page, the lesson is done and the next one is next
    tap("#lesson-list")
    page.wait_for_selector(".lesson-card[data-lesson='fly'][data-state='done']")
    assert page.locator(".lesson-card[data-lesson='drill']").get_attribute("data-state") == "next"
    assert words["done"] in page.locator(".lesson-card[data-lesson='fly']").inner_text()
    shot(page, f"{name}-4-learn-done")
    # kept by this browser: a reload still shows it done
    page.reload()
    page.wait_for_selector(".lesson-card[data-lesson='fly'][data-state='done']")

    # the lobby does not list the lesson's game
    listed = [g["id"] for g in page.request.get(f"{server.url}/api/games").json()["games"]]
    assert game_id not in listed
    page.goto(f"{server.url}/")
    page.wait_for_selector(".lobby")
    page.wait_for_load_state("networkidle")
    assert game_id not in page.content()
