"""Two browser contexts (two players on two machines, by their invite links) play one online game together."""

from __future__ import annotations

from typing import Any

from .conftest import Server, shot


def test_two_players_play_one_game(server: Server, new_page: Any) -> None:
    game = server.create(seats=2, settlers_per_seat=1, belt="tutorial", seed=5)
    links = {s["seat"]: f"{server.url}/#/game/{game['id']}?seat={s['seat']}&token={s['token']}" for s in game["seats"]}
    one, two = new_page(), new_page()
    for page, seat in ((one, 1), (two, 2)):
        page.goto(links[seat])
        page.wait_for_function("document.body.dataset.ready === '1'")
        assert page.locator(".overlay").is_hidden()  # one seat each: no hand-over screen
    assert "Waiting for Settler 1 (Player 1)" in two.inner_text("#action-reason")
    one.click(".dest[data-target='Themis'] button")
    for page in (one, two):
        page.wait_for_function("window.__am.seq >= 1")
        page.wait_for_selector(".log li:has-text('Settler 1 flew from Home to Themis')")
    assert "Waiting for Settler 2 (Player 2)" in one.inner_text("#action-reason")
    assert two.get_attribute(".action-wait", "aria-disabled") == "false"
    two.keyboard.press("w")
    one.wait_for_selector(".log li:has-text('Settler 2 waited')")
    assert one.locator(".order li.now").inner_text() == "1"
    shot(one, "online-player1")
    shot(two, "online-player2")
