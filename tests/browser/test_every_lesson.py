"""Every lesson and a quick game against a bot, finished through the screen as a person would — by the controls the
lesson (or the hint button) points at, tapped on a phone (390×844, touch), clicked on a tablet (820×1180) and a
desktop (1280×800), in English and Hungarian — with the taps counted and printed.

The nine lessons are spread over the sizes so that each runs once in each language, and each size finishes three
in each language (all 54 combinations would add some ten minutes to the suite and find nothing the spread does
not: the lessons' boards are the same at every size). The quick game is won with the hint button at the phone's
size in one language and the desktop's in the other; its replay is then walked at the phone's size."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import Page, Server, seq, shot

SPREAD = {
    ("en", 390): ["fly", "deposit", "storms"], ("en", 820): ["drill", "sun", "gates"],
    ("en", 1280): ["mine", "robots", "first-game"],
    ("hu", 390): ["mine", "robots", "first-game"], ("hu", 820): ["fly", "deposit", "storms"],
    ("hu", 1280): ["drill", "sun", "gates"],
}
SIZES = {390: (390, 844, True), 820: (820, 1180, False), 1280: (1280, 800, False)}
READY = ("!!document.querySelector('.lesson-done') || (window.__am.lessonSeq >= 0"
         " && window.__am.lessonSeq >= window.__am.seq && !document.querySelector('.actionbar.inactive'))")
QUICK_SEED = 1
"""A seed of the standard belt on which the hints (for seat 1) and the planner bot (seat 2) win in 23 rounds."""


class Player:
    """Taps (clicks, off a phone) as a person makes them, counted."""

    def __init__(self, page: Page, phone: bool) -> None:
        self.page, self.phone, self.taps = page, phone, 0

    def tap(self, selector: str) -> None:
        target = self.page.locator(selector).first
        target.wait_for(state="visible")
        target.tap() if self.phone else target.click()
        self.taps += 1

    def choose(self, selector: str, value: str) -> None:
        """A drop-down: one tap opens it, one picks."""
        self.page.select_option(selector, value)
        self.taps += 2

    def tap_on_map(self, asteroid: str) -> bool:
        """Taps an asteroid on the map if it is in the map's free part (not under a banner or the buttons)."""
        page = self.page
        if not page.locator(".map").is_visible():
            return False
        page.wait_for_function("window.__am.scene && !window.__am.scene.camera.gliding")
        p = page.evaluate("(id) => window.__am.where(id)", asteroid)
        box = page.locator(".map").bounding_box()
        tools = page.locator(".map-tools").bounding_box()
        top = box["y"]
        for cover in (".lesson-banner", ".map-foot"):
            el = page.locator(cover)
            if el.count() and el.first.is_visible():
                b = el.first.bounding_box()
                if cover == ".lesson-banner":
                    top = max(top, b["y"] + b["height"])
        if p is None or not (box["x"] + 20 <= p["x"] <= tools["x"] - 20 and top + 20 <= p["y"]
                             <= box["y"] + box["height"] - 90):
            return False
        if self.phone:
            page.touchscreen.tap(p["x"], p["y"])
        else:
            page.mouse.click(p["x"], p["y"])
        self.taps += 1
        return True

    def fly(self, target: str) -> None:
        """To a destination: on the map when it is in view, else from the Fly list."""
        if self.tap_on_map(target):
            return
        dest = f".dest[data-target='{target}'] button"
        if not self.page.locator(dest).first.is_visible():
            self.tap(".tabs button[data-tab='go']")
        self.tap(dest)

    def act(self, action: str) -> None:
        """Presses an action's button; a warning's confirmation is a second press; Deposit then asks which."""
        page = self.page
        before = seq(page)
        self.tap(f".actionbar .action[data-action='{action}']")
        page.wait_for_function(
            f"window.__am.seq > {before} || !!document.querySelector('.lesson-done')"
            " || !!document.querySelector('.actionbar .action.armed')"
            " || !!document.querySelector('.deposit-kind:not(.refused)')")
        if page.locator(".actionbar .action.armed").count():
            self.tap(f".actionbar .action[data-action='{action}']")
        if seq(page) == before and page.locator(".deposit-kind:not(.refused)").count():
            # which kind: a lesson that says which points at it in the menu (and it can go); else the one that can
            kind = page.locator(".deposit-kind.lesson-target")
            if kind.count():
                assert "refused" not in (kind.first.get_attribute("class") or ""), "the lesson points at a refused kind"
                self.tap(".deposit-kind.lesson-target")
            else:
                self.tap(".deposit-kind:not(.refused)")

    def back_to_map(self) -> None:
        if self.phone and self.page.locator(".tabs button[data-tab='map']").is_visible() \
                and self.page.locator(".game-screen").get_attribute("data-tab") != "map":
            self.tap(".tabs button[data-tab='map']")


def pointed(page: Page) -> str | None:
    """What the screen points at now: `move:ID`, an action's name, or None."""
    dest = page.locator(".dest button.lesson-target")
    if dest.count():
        return "move:" + str(page.locator(".dest:has(button.lesson-target)").first.get_attribute("data-target"))
    action = page.locator(".actionbar .action.lesson-target")
    if action.count():
        return str(action.first.get_attribute("data-action"))
    return None


def follow(page: Page, player: Player, press: str) -> None:
    before = seq(page)
    if press.startswith("move:"):
        player.fly(press[5:])
    else:
        player.act(press)
    page.wait_for_function(f"window.__am.seq > {before} || !!document.querySelector('.lesson-done')")
    page.wait_for_function(READY)
    player.back_to_map()


def play_lesson(page: Page, player: Player, lesson: str, where: str) -> int:
    """Opens a lesson from the Learn page and plays it to its end by what it points at; its taps."""
    start = player.taps
    player.tap(f".lesson-card[data-lesson='{lesson}'] button")
    page.wait_for_function("document.body.dataset.ready === '1' && !!document.querySelector('.lesson-hint')")
    page.wait_for_function(READY)
    if page.locator("#lesson-intro-ok").count():
        player.tap("#lesson-intro-ok")
    for _ in range(300):
        if page.locator(".lesson-done").count():
            break
        press = pointed(page)
        if press is None:  # the lesson names nothing: a good player's action, from the hint button
            player.tap(".map-tools button[data-tool='hint']")
            page.wait_for_selector(".hint-card[data-state='shown']")
            press = pointed(page)
            assert press, f"{where}: the hint points at nothing"
        follow(page, player, press)
    page.wait_for_selector(".lesson-done")
    shot(page, f"every-lesson-{where}")
    taps = player.taps - start
    print(f"\nlesson {where}: {taps} taps")
    player.tap("#lesson-list")
    page.wait_for_selector(f".lesson-card[data-lesson='{lesson}'][data-state='done']")
    return taps


@pytest.mark.parametrize(("lang", "size"), list(SPREAD))
def test_lessons_finished_through_the_screen(server: Server, new_page: Any, lang: str, size: int) -> None:
    width, height, phone = SIZES[size]
    page = new_page(width=width, height=height, lang=lang, phone=phone)
    player = Player(page, phone)
    page.goto(f"{server.url}/")
    player.tap("#learn")
    page.wait_for_selector(".lesson-card")
    for lesson in SPREAD[(lang, size)]:
        taps = play_lesson(page, player, lesson, f"{lesson}-{size}-{lang}")
        if lesson == "fly":
            assert taps <= 5  # the card, "Got it", two flights on the map, back to the list


@pytest.mark.parametrize(("lang", "size"), [("en", 390), ("hu", 1280)])
def test_a_quick_game_won_with_the_hint_button(server: Server, new_page: Any, lang: str, size: int) -> None:
    width, height, phone = SIZES[size]
    page = new_page(width=width, height=height, lang=lang, phone=phone)
    player = Player(page, phone)
    page.goto(f"{server.url}/")
    # a new game from the lobby's form: two players of two settlers, the second one the planner bot
    page.wait_for_selector("select[name='seat_2'] option[value='planner']", state="attached")
    player.choose("select[name='seat_2']", "planner")
    page.fill("input[name='seed']", str(QUICK_SEED))
    player.taps += 1
    player.tap("#create-game")
    player.tap("#play-here")
    page.wait_for_function("document.body.dataset.ready === '1'")
    setup = player.taps
    steps = 0
    for _ in range(300):
        # this browser's step (the bot's are played by the server meanwhile), or the end
        page.wait_for_function("!!document.querySelector('.overlay .end')"
                               " || !document.querySelector('.actionbar.inactive')")
        if page.locator(".overlay .end").count():
            break
        before = seq(page)
        player.tap(".map-tools button[data-tool='hint']")
        page.wait_for_selector(".hint-card[data-state='shown']")
        press = pointed(page)
        assert press, "the hint points at nothing"
        follow_game(page, player, press, before)
        steps += 1
    page.wait_for_selector(".overlay .end.won")
    rounds = page.inner_text(".overlay .stats .stat strong >> nth=0")
    shot(page, f"every-lesson-quick-win-{size}-{lang}")
    print(f"\nquick game won ({size}, {lang}) in {rounds} rounds: {player.taps} taps ({setup} to set it up, "
          f"{steps} steps of this player's settlers)")
    if phone:
        walk_the_replay(page, player)


def walk_the_replay(page: Page, player: Player) -> None:
    """The replay on a phone: it opens on where the game was played, its controls are reachable by taps, and its
    labels do not cover each other."""
    player.tap(".overlay .end .buttons button.primary")
    page.wait_for_function("document.body.dataset.ready === '1' && document.body.dataset.page === 'replay'")
    page.wait_for_function("window.__am.scene && !window.__am.scene.camera.gliding")
    def position() -> tuple[int, int]:
        found = re.search(r"Step (\d+) of (\d+)", page.inner_text(".position"))
        assert found, page.inner_text(".position")
        return int(found.group(1)), int(found.group(2))

    step, total = position()
    assert step == 0 and total > 20
    # it opens on where the game starts, near enough to read the names: the settlers' start is on screen
    start = page.evaluate("window.__am.scene.core.model.view.settlers[0].at")
    s = page.evaluate("""(id) => { const sc = window.__am.scene; const q = sc.position(id);
        return q ? sc.camera.toScreen(q.x, q.y) : null; }""", start)
    size = page.evaluate("window.__am.scene.camera.size")
    assert s is not None and 0 <= s["x"] <= size["width"] and 0 <= s["y"] <= size["height"], (s, size)
    zoom = page.evaluate("window.__am.scene.camera.zoom")
    assert zoom >= 0.5, f"the replay opens too far out (zoom {zoom})"
    page.wait_for_function("!window.__am.scene.core.labelsDirty")
    assert page.evaluate("window.__am.scene.labelBoxes().length") >= 2, "the replay's first screen names nothing"
    shot(page, "every-lesson-replay-390-start")
    for _ in range(3):
        player.tap("#replay-forward")
    assert position() == (3, total)
    player.tap("#replay-back")
    assert position() == (2, total)
    slider = page.locator(".timeline").bounding_box()
    assert slider["height"] >= 44, "the replay's slider is too thin for a finger"
    page.locator(".timeline").fill(str(total))
    assert position() == (total, total)
    shot(page, "every-lesson-replay-390-end")


def follow_game(page: Page, player: Player, press: str, before: int) -> None:
    if press.startswith("move:"):
        player.fly(press[5:])
    else:
        player.act(press)
    page.wait_for_function(f"window.__am.seq > {before}")
    player.back_to_map()
