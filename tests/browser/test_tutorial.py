"""The guided tutorial, played from the lobby's "Learn to play" by reading only what the screen says: each
lesson's goal and the hint of its step ("Fly to Pallas", "Press Drill", "Press Deposit, then Ice")."""

from __future__ import annotations

import re
from typing import Any

from .conftest import Server, seq, shot

ACTIONS = ["Build robot", "Build gates", "Place gate", "Drill", "Mine", "Deposit", "Wait"]


def follow(page: Any, hint: str) -> None:
    """Does what a hint says, with the controls it names, and waits for the server's answer."""
    before = seq(page)
    fly = re.search(r"Fly (?:through the gate )?to (\w[\w-]*)", hint)
    press = re.search(r"Press (" + "|".join(ACTIONS) + r")( twice)?(?:, then (\w+))?", hint)
    if fly:
        page.locator(".dest", has_text=fly.group(1)).first.locator("button").click()
    elif press:
        button = page.locator(".actionbar .action", has_text=press.group(1))
        button.click()
        if press.group(2):
            button.click()
        if press.group(3):
            page.locator(".deposit-kind", has_text=press.group(3)).click()
    else:
        raise AssertionError(f"a hint that says nothing to do: {hint!r}")
    # the server's answer; or, with a bot team-mate, the lesson may end on the bot's step instead
    page.wait_for_function(f"window.__am.seq > {before} || !!document.querySelector('.lesson-done')")


def test_the_whole_tutorial_from_the_hints(server: Server, new_page: Any) -> None:
    page = new_page(width=1280, height=800)
    page.goto(f"{server.url}/")
    page.click("#learn")
    page.wait_for_selector(".lesson-card")
    titles = page.locator(".lessons").first.locator(".lesson-card h3").all_inner_texts()
    assert titles == ["Fly", "Drill", "Mine", "Deposit and the base", "The Sun", "Storms and shelters", "Robots",
                      "Gates", "A first game"]
    page.locator(".lesson-card").first.locator("button").click()
    done: list[str] = []
    for _ in range(9):
        # the lesson's game is on screen, the guide has asked the server about it (its hint is not the previous
        # lesson's), and it is this browser's step
        page.wait_for_function(
            "document.body.dataset.ready === '1' && !!document.querySelector('.lesson-hint')"
            " && window.__am.seq >= 0 && window.__am.lessonSeq >= 0 && window.__am.lessonSeq >= window.__am.seq"
            " && !document.querySelector('.actionbar.inactive')")
        title = page.inner_text(".lesson-title")
        assert page.inner_text(".lesson-goal").startswith("Goal:")
        shot(page, f"lesson-{len(done) + 1}")
        for _ in range(400):
            if page.locator(".lesson-done").count():
                break
            hint = page.inner_text(".lesson-hint")
            assert page.locator(".lesson-target").count() >= 1 or "Wait" in hint
            follow(page, hint)
            # The guide has asked the server about the new position before the next hint is read, and it is this
            # browser's step again (a bot team-mate's step comes after the answer, and may end the lesson).
            page.wait_for_function(
                "!!document.querySelector('.lesson-done') || (window.__am.lessonSeq >= window.__am.seq"
                " && !document.querySelector('.actionbar.inactive'))")
        page.wait_for_selector(".lesson-done")
        card = page.inner_text(".lesson-done")
        assert "lesson done" in card.lower() and title in card
        assert re.search(r"\d+\s+rounds? taken", card)
        done.append(title)
        if page.locator("#lesson-next").count() == 0:
            break
        page.click("#lesson-next")
        page.wait_for_function("(t) => document.querySelector('.lesson-title')?.innerText !== t", arg=title)
    assert done == ["Fly", "Drill", "Mine", "Deposit and the base", "The Sun", "Storms and shelters", "Robots",
                    "Gates", "A first game"]
