"""A whole game won on a phone (390×844, a touch screen) with taps only: flying by tapping asteroids on the map
(or, when one is off the screen, in the Fly sheet), mining with the action bar's buttons."""

from __future__ import annotations

from typing import Any

from .belts import BONANZA_PLAN, bonanza_belt, bonanza_seed
from .conftest import Page, Server, open_game, seq, shot


def tap_and_wait(page: Page, tap: Any) -> None:
    before = seq(page)
    tap()
    page.wait_for_function(f"window.__am.seq > {before}")


# Where an asteroid is drawn once the camera has come to rest (it glides to each new turn's settler).
SETTLED = """(id) => new Promise((done) => {
  let last = null;
  const look = () => {
    const p = window.__am.where(id);
    if (p && last && Math.abs(p.x - last.x) < 0.5 && Math.abs(p.y - last.y) < 0.5) done(p);
    else { last = p; requestAnimationFrame(() => requestAnimationFrame(look)); }
  };
  look();
})"""


def fly(page: Page, target: str) -> None:
    where = page.evaluate(SETTLED, target)
    box = page.locator(".map").bounding_box()
    inside = where and box["x"] + 20 < where["x"] < box["x"] + box["width"] - 60 and \
        box["y"] + 20 < where["y"] < box["y"] + box["height"] - 20
    if inside:
        tap_and_wait(page, lambda: page.touchscreen.tap(where["x"], where["y"]))
        return
    page.locator(".tabs button[data-tab='go']").tap()
    tap_and_wait(page, lambda: page.locator(f".dest[data-target='{target}'] button").tap())
    page.locator(".tabs button[data-tab='map']").tap()


def test_win_a_game_on_a_phone_with_taps_only(server: Server, new_page: Any) -> None:
    game = server.create(seats=1, settlers_per_seat=2, belt=bonanza_belt(), seed=bonanza_seed())
    page = new_page(width=390, height=844, phone=True)
    open_game(page, server, game)
    assert page.evaluate("matchMedia('(pointer: coarse)').matches")
    # the Fly sheet speaks of taps on a touch screen (its key badges are hidden there)
    page.locator(".tabs button[data-tab='go']").tap()
    assert page.locator("#dest-title ~ .hint").inner_text() == "Tap a ringed asteroid on the map, or a row here."
    page.locator(".tabs button[data-tab='map']").tap()
    for i, step in enumerate(BONANZA_PLAN):
        assert page.locator(".order li.now").inner_text() == step["settler"][1:]
        if step["action"] == "move":
            fly(page, step["target"])
        else:
            tap_and_wait(page, lambda: page.locator(".actionbar .action-mine").tap())
        if i == 2:  # what a tap did is told in green, and whose step it was (this phone plays two settlers)
            assert page.inner_text("#action-reason .msg-done") == "Settler 1 · Mined ice on I1 (cargo 1/10)."
        if i == 10:
            shot(page, "phone-playing")
    page.wait_for_selector(".overlay .end.won")
    assert "The base is built!" in page.inner_text(".overlay .card")
    shot(page, "phone-won")
