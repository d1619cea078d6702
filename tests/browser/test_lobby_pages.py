"""The lobby's list of games is paged: it shows the first page, how many games there are, and a "More games"
button that adds the next page until every game is shown (then the button is gone and the focus is on the first
game added); the games shown stay shown at the next refresh. On a 390×844 touch screen and at 1280×800, in
English and Hungarian, with axe-core finding nothing on the list with its button."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import Server, shot
from .test_axe import RUNS, Audit

PAGE = 5
"""The lobby's page size on this module's server (the default is 50: five stand for it)."""
MAX_PAGE = 8
"""The largest page this module's server gives: smaller than the client's largest (200), which it falls back from
to pages of the server's own size."""
GAMES = 12


@pytest.fixture(scope="module")
def paged(tmp_path_factory: pytest.TempPathFactory, built_client: Path) -> Iterator[Server]:
    """A server of its own, with pages of `PAGE` games and `GAMES` open games listed."""
    sizes = {"ASTEROID_MINING_LOBBY_PAGE_SIZE": str(PAGE), "ASTEROID_MINING_LOBBY_MAX_PAGE_SIZE": str(MAX_PAGE)}
    before = {name: os.environ.get(name) for name in sizes}
    os.environ.update(sizes)
    try:
        running = Server(tmp_path_factory.mktemp("paged-lobby"))
    finally:
        for name, value in before.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value
    try:
        for seed in range(GAMES):
            running.create(seats=2, belt="tutorial", seed=seed)
        yield running
    finally:
        running.stop()


def rows(page: Any) -> int:
    return int(page.locator(".list .games .game-row").count())


@pytest.mark.parametrize(("width", "height", "phone", "lang"), RUNS)
def test_more_games_adds_pages_until_every_game_is_shown(paged: Server, new_page: Any, width: int, height: int,
                                                        phone: bool, lang: str) -> None:
    total = httpx.get(f"{paged.url}/api/games", timeout=30).json()["total"]  # (each run adds a game)
    assert total >= GAMES
    page = new_page(width, height, phone=phone, lang=lang)
    page.goto(f"{paged.url}/")
    page.wait_for_function(f"document.querySelectorAll('.list .games .game-row').length === {PAGE}")
    count = page.locator("#games-count")
    more = page.locator("#more-games")
    assert more.is_visible() and count.is_visible()
    expected = {"en": (f"Showing {PAGE} of {total} games", "More games"),
                "hu": (f"{total} játékból {PAGE} látható", "További játékok")}[lang]
    assert count.inner_text() == expected[0] and more.inner_text() == expected[1]
    more.scroll_into_view_if_needed()
    audit = Audit(page, f"lobby-pages-{'phone' if phone else 'desktop'}-{lang}")
    audit("more")
    shot(page, f"lobby-more-{width}-{lang}")
    shown = PAGE
    while shown < total:
        (more.tap if phone else more.click)()
        last = shown
        shown = min(shown + PAGE, total)
        page.wait_for_function(f"document.querySelectorAll('.list .games .game-row').length === {shown}")
        assert str(shown) in count.inner_text()
        assert more.is_visible() == (shown < total)
    # the button is gone: the focus is on the first game it added
    assert page.evaluate(f"document.activeElement.closest('.game-row') === "
                         f"document.querySelectorAll('.list .games .game-row')[{last}]")
    ids = page.eval_on_selector_all(".list .games .game-row", "rows => rows.map((r) => r.dataset.game)")
    assert len(set(ids)) == total
    # the list is refreshed every 5 seconds with as many games as are shown (asked for in one page larger than
    # this server gives: refused, so in pages of its own size, which may show a few more): a new game comes first,
    # and the button is back if one no longer fits
    created = paged.create(seats=1, belt="tutorial", seed=100 + len(lang) + width)
    page.wait_for_function(f"document.querySelector('.list .games .game-row').dataset.game === '{created['id']}'")
    shown = rows(page)
    assert total <= shown <= total + 1 and more.is_visible() == (shown == total)
    assert count.inner_text() == {"en": f"Showing {shown} of {total + 1} games",
                                  "hu": f"{total + 1} játékból {shown} látható"}[lang]
    count.scroll_into_view_if_needed()
    shot(page, f"lobby-all-{width}-{lang}")
    audit("all")
    audit.check()
