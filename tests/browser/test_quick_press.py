"""A press is never lost to the order in which a hot-seat's connections hear an update.

In hot-seat each seat has its own connection, and the next seat's choices come on its own one, a moment after the
update that made its settler current. A key pressed in that moment waits for them and is played when they come.
"""

from __future__ import annotations

import re
from typing import Any

from .belts import shelter_belt
from .conftest import Server, open_game, seq


def test_a_key_pressed_before_the_next_seats_choices_arrive_is_played(server: Server, new_page: Any) -> None:
    game = server.create(seats=2, settlers_per_seat=1, belt=shelter_belt(), seed=1, options={"storm_interval": 0})
    second = next(s["token"] for s in game["seats"] if s["seat"] == 2)
    page = new_page(width=1280, height=800, lang="en")
    held: list[str | bytes] = []
    holding = [False]
    pages: list[Any] = []

    def route(ws: Any) -> None:
        # the second seat's connection: what the server says to it is held back while `holding`
        pages.append(ws)
        upstream = ws.connect_to_server()
        upstream.on_message(lambda m: held.append(m) if holding[0] else ws.send(m))
        ws.on_message(upstream.send)

    page.route_web_socket(re.compile(f"token={re.escape(second)}"), route)
    open_game(page, server, game)
    page.wait_for_function("!document.querySelector('.actionbar .action-wait').classList.contains('refused')")
    holding[0] = True
    before = seq(page)
    page.keyboard.press("w")  # the first seat's settler waits: the second seat's settler is current
    page.wait_for_function(f"window.__am.seq > {before}")
    for _ in range(3000):  # the update that brings the second seat's choices reaches its (held) connection
        if held:
            break
        page.wait_for_timeout(20)
    assert held, "the second seat's connection heard nothing of the first seat's action"
    page.keyboard.press("w")  # before those choices: the press waits for them
    holding[0] = False
    for m in held:
        pages[-1].send(m)
    page.wait_for_function(f"window.__am.seq > {before + 1}")
    assert page.locator(".actionbar .reason .msg-error").count() == 0
