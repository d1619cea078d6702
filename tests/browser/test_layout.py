"""The game at every screen size, in both languages: nothing cut, buttons big enough to tap, the map filling a
phone; and the lobby, the lessons and the replay viewer with nothing cut either. Screenshots of each go to
artifacts/screenshots/ (layout-<w>x<h>-<lang>-<what>.png)."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import Server, open_game, shot

VIEWPORTS = [(390, 844), (844, 390), (768, 1024), (1024, 768), (1280, 720), (1920, 1080)]
PHONE_TABS = ["map", "settler", "here", "go", "storms", "log"]

# Every element that shows text of its own: a wider content than its box means the text is cut (or spills out).
CLIPPED = """() => {
  const out = [];
  const sel = 'button, a.button, h1, h2, h3, label, .label, .sub, .badge, .dname, .dmeta, .reason, .log li, '
    + '.muted, .hint, .turn-flag, .round-box, .who, .cargo-item, .need, .forecast, .tabs button, kbd, select, '
    + '.lesson-banner *, .storm-who span, .facts, .game-row, .lesson-card *, .tagline, .position, .field';
  for (const el of document.querySelectorAll(sel)) {
    const cs = getComputedStyle(el);
    if (cs.display === 'inline' || cs.visibility === 'hidden' || el.closest('[hidden]')) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (cs.overflowX === 'auto' || cs.overflowX === 'scroll') continue;
    if (el.scrollWidth > el.clientWidth + 1) {
      out.push(`${el.tagName.toLowerCase()}.${el.className}: "${el.textContent.trim().slice(0, 40)}" `
        + `${el.scrollWidth} > ${el.clientWidth}`);
    }
  }
  return out;
}"""

# Buttons a finger presses on a small screen: at least 44 px both ways.
SMALL_TARGETS = """() => [...document.querySelectorAll('.actionbar .action, .tabs button, .map-tools button')]
  .filter((b) => b.offsetParent)
  .map((b) => b.getBoundingClientRect())
  .filter((r) => r.width < 44 || r.height < 44)
  .map((r) => `${r.width}x${r.height}`)"""


@pytest.fixture(scope="module")
def quick_game(server: Server) -> dict[str, Any]:
    return server.create(seats=2, settlers_per_seat=2, belt="standard", rules="classic", seed=11)


@pytest.mark.parametrize("lang", ["en", "hu"])
@pytest.mark.parametrize(("width", "height"), VIEWPORTS)
def test_nothing_is_cut(server: Server, new_page: Any, quick_game: dict[str, Any], width: int, height: int,
                        lang: str) -> None:
    page = new_page(width=width, height=height, lang=lang)
    open_game(page, server, quick_game)
    small = page.evaluate("() => getComputedStyle(document.querySelector('.tabs')).display !== 'none'")
    assert small == (width <= 900 or height <= 560)
    tabs = PHONE_TABS if small else ["map"]
    for tab in tabs:
        if small:
            page.click(f".tabs button[data-tab='{tab}']")
            page.wait_for_function(f"document.querySelector('.game-screen').dataset.tab === '{tab}'")
        cut = page.evaluate(CLIPPED)
        shot(page, f"layout-{width}x{height}-{lang}-{tab}")
        assert not cut, f"text cut at {width}×{height} ({lang}, {tab}): {cut}"
    if small:
        page.click(".tabs button[data-tab='map']")
        assert page.evaluate(SMALL_TARGETS) == []
        # The map fills the screen's width and most of its height.
        box = page.locator(".map").bounding_box()
        assert box is not None and box["width"] >= width * 0.5 and box["height"] >= height * 0.35

    for page_name, address, ready in (
        ("lobby", "#/", "#quick-play"),
        ("learn", "#/learn", ".lesson-card"),
        ("replay", f"#/replay/{quick_game['id']}", ".timeline"),
    ):
        page.goto(f"{server.url}/{address}")
        page.wait_for_selector(ready)
        page.wait_for_function("document.fonts.status === 'loaded'")
        cut = page.evaluate(CLIPPED)
        shot(page, f"layout-{width}x{height}-{lang}-{page_name}")
        assert not cut, f"text cut at {width}×{height} ({lang}, {page_name}): {cut}"
