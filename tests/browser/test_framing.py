"""The camera and the labels: the first screen of every lesson and of a quick game frames what the player must look
at now (the current settler, the lesson's target), and no two labels on the map cover each other.

The labels are drawn on the canvas: the scene gives their boxes (`window.__am.scene.labelBoxes()`, CSS pixels of the
map) and where an asteroid is on the page (`window.__am.where(id)`)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Page, Server, open_game, shot

LESSONS = ["fly", "drill", "mine", "deposit", "sun", "storms", "robots", "gates", "first-game"]

OVERLAPS = """() => {
  const boxes = window.__am.scene.labelBoxes();
  const out = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    // a pixel of anti-aliasing is no overlap
    if (a.x0 < b.x1 - 1 && a.x1 > b.x0 + 1 && a.y0 < b.y1 - 1 && a.y1 > b.y0 + 1) out.push([a.id, b.id]);
  }
  return {count: boxes.length, overlaps: out};
}"""


def settled(page: Page) -> None:
    """The camera has stopped gliding and the labels are laid out for where it stopped."""
    page.wait_for_function("window.__am.scene && !window.__am.scene.camera.gliding"
                           " && !window.__am.scene.core.labelsDirty")


def no_overlapping_labels(page: Page, where: str) -> int:
    settled(page)
    found = page.evaluate(OVERLAPS)
    assert not found["overlaps"], f"{where}: labels cover each other: {found['overlaps']}"
    return int(found["count"])


def on_map(page: Page, asteroid: str, where: str) -> None:
    """The asteroid is inside the map's view, clear of the lesson's banner over its top."""
    settled(page)
    p = page.evaluate("(id) => window.__am.where(id)", asteroid)
    assert p is not None, f"{where}: {asteroid} is not drawn"
    box = page.locator(".map").bounding_box()
    top = box["y"]
    banner = page.locator(".lesson-banner")
    if banner.count() and banner.is_visible():
        b = banner.bounding_box()
        top = max(top, b["y"] + b["height"])
    assert box["x"] <= p["x"] <= box["x"] + box["width"] and top <= p["y"] <= box["y"] + box["height"], (
        f"{where}: {asteroid} at {p} is off the map's view ({box}, clear below y={top})")


def current_at(page: Page) -> str:
    at = page.evaluate("window.__am.scene.core.highlights.here")
    assert at, "no settler's step is shown"
    return str(at)


@pytest.mark.parametrize(("width", "height", "phone"), [(390, 844, True), (1280, 800, False)])
def test_every_lessons_first_screen_frames_its_target_and_labels_do_not_overlap(
        server: Server, new_page: Any, width: int, height: int, phone: bool) -> None:
    page = new_page(width=width, height=height, phone=phone)
    for lesson in LESSONS:
        page.goto(f"{server.url}/")
        page.click("#learn")
        page.locator(f".lesson-card[data-lesson='{lesson}'] button").first.click()
        page.wait_for_function(
            "document.body.dataset.ready === '1' && !!document.querySelector('.lesson-hint')"
            " && window.__am.lessonSeq >= 0 && window.__am.lessonSeq >= window.__am.seq")
        where = f"lesson {lesson} at {width}×{height}"
        no_overlapping_labels(page, where)
        if page.locator("#lesson-intro-ok").count():
            page.click("#lesson-intro-ok")
        here = current_at(page)
        on_map(page, here, where)
        target = page.evaluate("window.__am.scene.core.highlights.focus")
        if target:  # a lesson that asks for a flight: its destination is on screen too
            on_map(page, target, where)
        no_overlapping_labels(page, where)
        shot(page, f"framing-{lesson}-{width}")


@pytest.mark.parametrize("lang", ["en", "hu"])
@pytest.mark.parametrize(("width", "height", "phone"), [(390, 844, True), (820, 1180, False), (1280, 800, False)])
def test_a_quick_games_first_screen(server: Server, new_page: Any, width: int, height: int, phone: bool,
                                    lang: str) -> None:
    game = server.create(seats=2, settlers_per_seat=2, bots={"2": "planner"}, seed=11)
    page = new_page(width=width, height=height, lang=lang, phone=phone)
    open_game(page, server, game)
    where = f"quick game at {width}×{height} ({lang})"
    count = no_overlapping_labels(page, where)
    assert count >= 3, f"{where}: only {count} labels"
    on_map(page, current_at(page), where)
    shot(page, f"framing-quick-{width}-{lang}")
