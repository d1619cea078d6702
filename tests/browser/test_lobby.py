"""The lobby: create a game with its settings (a preset belt, or an uploaded belt file), copy invite links,
play every seat here (hot-seat: no hand-over screen unless asked for), list games and watch one as a spectator,
this browser's games with a replay once finished, leaving a game, and `/#/quick` resuming the quick game."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .belts import shelter_belt, workshop_belt
from .conftest import Server, acted, open_game, shot


def test_hot_seat_has_no_hand_over_screen_by_default(server: Server, new_page: Any) -> None:
    page = new_page()
    page.goto(f"{server.url}/")
    page.fill("input[name=seats]", "2")
    page.fill("input[name=settlers_per_seat]", "1")
    page.select_option("select[name=belt]", "tutorial")
    page.select_option("select[name=seat_2]", "")
    page.click("#create-game")
    page.wait_for_selector(".created:not([hidden])")
    assert "plays Settler 1" in page.inner_text(".created") and "s1" not in page.inner_text(".created .seats")
    page.click("#play-here")
    page.wait_for_function("document.body.dataset.ready === '1'")
    for settler in ("1", "2", "1"):
        assert page.locator(".overlay").is_hidden()
        assert page.locator(".order li.now").inner_text() == settler
        assert page.inner_text(".settler-panel .turn-flag") == "YOUR STEP"
        before = page.evaluate("window.__am.seq")
        page.keyboard.press("w")
        page.wait_for_function(f"window.__am.seq > {before}")


def test_create_a_game_in_the_lobby_and_play_it_hot_seat(server: Server, new_page: Any) -> None:
    page = new_page()
    page.goto(f"{server.url}/")
    page.wait_for_selector("#quick-play")
    shot(page, "lobby")
    page.fill("input[name=seats]", "2")
    page.fill("input[name=settlers_per_seat]", "1")
    page.select_option("select[name=belt]", "tutorial")
    page.fill("input[name=seed]", "7")
    page.select_option("select[name=timer]", "120")
    page.check("#opt-handover")
    page.click("#create-game")
    page.wait_for_selector(".created:not([hidden])")
    invites = page.locator(".created input.invite")
    assert invites.count() == 2
    assert "#/game/" in invites.nth(1).input_value() and "token=" in invites.nth(1).input_value()
    shot(page, "lobby-created")
    page.click("#play-here")
    page.wait_for_function("document.body.dataset.ready === '1'")
    page.wait_for_selector(".overlay .handover")
    assert "Pass the device to Player 1 — orange" in page.inner_text(".overlay")
    shot(page, "handover")
    page.keyboard.press("Enter")
    assert page.locator(".overlay").is_hidden()
    assert page.locator(".timer").is_visible()  # the turn timer of a timed game
    before = page.evaluate("window.__am.seq")
    page.keyboard.press("w")
    page.wait_for_function(f"window.__am.seq > {before}")
    page.wait_for_selector(".overlay .handover")  # settler 2 belongs to player 2: pass the screen
    assert "Pass the device to Player 2 — sky blue" in page.inner_text(".overlay")
    page.click(".overlay button.primary")
    assert page.locator(".order li.now").inner_text() == "2"
    shot(page, "game-tutorial")


def test_upload_a_belt_file(server: Server, new_page: Any, tmp_path: Path) -> None:
    belt = tmp_path / "workshop.json"
    belt.write_text(json.dumps(workshop_belt()))
    page = new_page()
    page.goto(f"{server.url}/")
    page.fill("input[name=seats]", "1")
    page.select_option("select[name=belt]", "__file")
    page.set_input_files("input[name=belt_file]", str(belt))
    page.wait_for_function("document.querySelector('.file-note').textContent.includes('Workshop')")
    page.click("#create-game")
    page.wait_for_selector(".created:not([hidden])")
    page.click("#play-here")
    page.wait_for_function("document.body.dataset.ready === '1'")
    assert "on Home" in page.inner_text(".settler-panel")
    assert page.locator(".dest[data-target='Drill']").count() == 1


def test_list_and_watch_a_game(server: Server, new_page: Any) -> None:
    game = server.create(seats=2, settlers_per_seat=1, belt="tutorial", seed=3)
    page = new_page()
    page.goto(f"{server.url}/")
    row = page.locator(f".game-row[data-game='{game['id']}']")
    row.wait_for()
    assert "Tutorial: First Light" in row.inner_text()
    row.locator("text=Watch").click()
    page.wait_for_function("document.body.dataset.ready === '1'")
    assert page.locator(".topbar .badge.watch").is_visible()
    assert "watching" in page.inner_text("#action-reason")
    assert page.locator(".turn-flag").count() == 0  # nobody's step is this browser's
    shot(page, "watch")


def test_my_games_finished_with_replay_and_leaving(server: Server, new_page: Any) -> None:
    page = new_page()
    page.goto(f"{server.url}/")
    page.click("#quick-play")
    page.wait_for_function("document.body.dataset.ready === '1'")
    first = page.evaluate("location.hash")
    # /#/quick resumes this browser's unfinished quick game instead of making another
    page.goto(f"{server.url}/#/")
    page.goto(f"{server.url}/#/quick")
    page.wait_for_function("document.body.dataset.ready === '1' && location.hash.startsWith('#/game/')")
    assert page.evaluate("location.hash") == first
    game_id = first.split("/")[-1]
    page.goto(f"{server.url}/#/")
    mine = page.locator(f".mine .game-row[data-game='{game_id}']")
    mine.wait_for()
    assert "Resume" in mine.inner_text()
    page.once("dialog", lambda d: d.accept())
    mine.locator("button.leave").click()
    page.wait_for_selector(f".mine .game-row[data-game='{game_id}']", state="detached")
    page.goto(f"{server.url}/#/quick")  # left: a new quick game
    page.wait_for_function("document.body.dataset.ready === '1' && location.hash.startsWith('#/game/')")
    assert page.evaluate("location.hash") != first


def test_a_finished_game_of_mine_has_its_replay(server: Server, new_page: Any) -> None:
    game = server.create(seats=1, settlers_per_seat=1, belt=shelter_belt(), seed=1)
    page = new_page()
    open_game(page, server, game)
    acted(page, lambda: page.click(".dest[data-target='Hot'] button"))
    page.keyboard.press("d")  # the drill warns first …
    acted(page, lambda: page.keyboard.press("d"))  # … and the bare uranium explodes: lost
    page.goto(f"{server.url}/#/")
    row = page.locator(f".mine .game-row[data-game='{game['id']}']")
    row.wait_for()
    assert row.get_attribute("data-status") == "lost"
    row.locator(".replay-link").click()
    page.wait_for_function("document.body.dataset.ready === '1' && document.body.dataset.page === 'replay'")
