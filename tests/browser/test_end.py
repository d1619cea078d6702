"""Losing: bare uranium near the Sun explodes under the last settler (R6b, R8, R15); the animation plays and the
loss screen sums the game up."""

from __future__ import annotations

from typing import Any

from .belts import shelter_belt
from .conftest import Server, acted, open_game, shot


def test_an_explosion_and_the_loss_screen(server: Server, new_page: Any) -> None:
    game = server.create(seats=1, settlers_per_seat=1, belt=shelter_belt(), seed=1)
    page = new_page(motion=True)
    open_game(page, server, game)
    acted(page, lambda: page.click(".dest[data-target='Hot'] button"))
    page.wait_for_function("window.__am.scene.tweens.running === 0")  # the flight has landed
    page.keyboard.press("d")  # the drill warns first …
    assert "explodes" in page.inner_text("#action-reason")
    acted(page, lambda: page.keyboard.press("d"))  # … and drills on the second press
    shot(page, "game-explosion")
    page.wait_for_selector(".overlay .end.lost")
    card = page.inner_text(".overlay .card")
    assert "The belt has won" in card
    assert "Settler 1: explosion of Hot" in card
    assert page.locator(".log li", has_text="Hot exploded!").count() == 1
    shot(page, "game-lost")
