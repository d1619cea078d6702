"""The lobby's lists come from the server: belts and difficulty levels (`GET /api/belts`), bots (`GET /api/bots`);
a game created with a difficulty gets that level's options."""

from __future__ import annotations

from typing import Any

import httpx

from asteroid_mining.maps.resolve import resolve

from .conftest import Server


def test_the_lobby_offers_what_the_server_lists(server: Server, new_page: Any) -> None:
    catalog = httpx.get(f"{server.url}/api/belts", timeout=10).json()
    page = new_page()
    page.goto(f"{server.url}/")
    page.wait_for_selector("select[name=difficulty] option[value=brutal]", state="attached")
    belts = page.eval_on_selector_all("select[name=belt] option", "els => els.map(e => e.value)")
    assert belts == [*(b["name"] for b in catalog["belts"]), "__file"]
    assert page.eval_on_selector("select[name=belt]", "e => e.value") == "standard"
    levels = page.eval_on_selector_all("select[name=difficulty] option", "els => els.map(e => e.value)")
    assert levels == ["", "easy", "normal", "hard", "brutal"]
    page.wait_for_selector("select[name=seat_1] option[value=planner]", state="attached")
    bots = page.eval_on_selector_all("select[name=seat_1] option", "els => els.map(e => e.value)")
    assert bots == ["", *httpx.get(f"{server.url}/api/bots", timeout=10).json()["bots"]]

    page.fill("input[name=seats]", "1")
    page.fill("input[name=seed]", "5")
    page.select_option("select[name=belt]", "small")
    page.select_option("select[name=difficulty]", "hard")
    page.click("#create-game")
    page.wait_for_selector(".created:not([hidden])")
    game = httpx.get(f"{server.url}/api/games", timeout=10).json()["games"][0]
    detail = httpx.get(f"{server.url}/api/games/{game['id']}", timeout=10).json()
    assert detail["state"]["options"] == resolve("small", 5, "hard").options_for("classic").to_json()
