"""Abandoning a game from the lobby's "Your games": confirmed, then listed as finished with its replay, while a
game screen open on it shows the end as abandoned."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from .conftest import Server, open_game, shot


def _status(server: Server, game: dict[str, Any]) -> str:
    return str(httpx.get(f"{server.url}/api/games/{game['id']}/summary", timeout=30).json()["status"])


@pytest.mark.parametrize(("width", "height"), [(390, 844), (1280, 800)])
def test_abandon_a_game_from_the_lobby(server: Server, new_page: Any, width: int, height: int) -> None:
    game = server.create(seats=2, settlers_per_seat=1, bots={"2": "greedy"})
    phone = width < 600
    watcher = new_page(width, height, phone=phone)
    watcher.goto(f"{server.url}/#/watch/{game['id']}")
    watcher.wait_for_function("document.body.dataset.ready === '1'")

    page = new_page(width, height, phone=phone)
    open_game(page, server, game)  # this browser holds seat 1's token
    page.goto(f"{server.url}/#/")
    row = page.locator(f".mine .game-row[data-game='{game['id']}']")
    row.wait_for()
    assert row.get_attribute("data-status") in ("open", "running")
    abandon = row.locator("button.abandon")
    assert abandon.inner_text() == "Abandon" and abandon.is_visible()
    box = abandon.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width

    row.scroll_into_view_if_needed()
    shot(page, f"lobby-abandon-{width}x{height}")
    page.once("dialog", lambda d: d.dismiss())  # thought better of it: nothing happens
    abandon.click()
    assert _status(server, game) in ("open", "running")

    page.once("dialog", lambda d: d.accept())
    abandon.click()
    page.wait_for_selector(f".mine .game-row[data-game='{game['id']}'][data-status='abandoned']")
    row = page.locator(f".mine .game-row[data-game='{game['id']}']")
    assert "abandoned" in row.inner_text() and row.locator(".replay-link").is_visible()
    assert row.locator("button.abandon").count() == 0
    running = page.locator(f".games:not(.mine) .game-row[data-game='{game['id']}']")
    running.wait_for(state="detached")  # no longer among the running games
    assert _status(server, game) == "abandoned"
    shot(page, f"lobby-abandoned-{width}x{height}")

    watcher.wait_for_selector(".overlay .card.end.abandoned")
    assert "The game was abandoned" in watcher.inner_text(".overlay")
    shot(watcher, f"game-abandoned-{width}x{height}")

    row.locator(".replay-link").click()
    page.wait_for_function("document.body.dataset.ready === '1' && document.body.dataset.page === 'replay'")
