"""A hub of many neighbours: the fly-to list is searchable and sorted with what the team needs first, and a
click on an entry flies there without a card popping up for the entry then under the pointer."""

from __future__ import annotations

from typing import Any

from .belts import _belt
from .conftest import Server, acted, open_game


def hub_belt() -> dict[str, Any]:
    """Home linked to 30 asteroids: hollow ones, bare iron, and iron under two layers."""
    spokes = [(f"H{i}", 0, "hollow", "far") for i in range(1, 21)]
    spokes += [(f"D{i}", 2, "iron", "far") for i in range(1, 6)] + [(f"F{i}", 0, "iron", "far") for i in range(1, 6)]
    asteroids = [("Home", 0, "hollow", "far"), *spokes]
    return _belt("Hub", "Home", asteroids, [("Home", a[0]) for a in spokes], spread=300.0)


def test_a_hubs_fly_to_list(server: Server, new_page: Any) -> None:
    game = server.create(seats=1, settlers_per_seat=1, belt=hub_belt(), seed=1, options={"storm_interval": 0})
    page = new_page(width=1280, height=800)
    open_game(page, server, game)
    rows = page.locator(".dest").evaluate_all("(els) => els.map((e) => e.dataset.target)")
    assert len(rows) == 30
    # bare iron first (needed, nothing to drill), then iron under mantle, the hollow ones last
    assert sorted(rows[:5]) == [f"F{i}" for i in range(1, 6)]
    assert sorted(rows[5:10]) == [f"D{i}" for i in range(1, 6)]
    page.fill(".dest-search", "h1")
    visible = page.locator(".dest:visible").evaluate_all("(els) => els.map((e) => e.dataset.target)")
    assert sorted(visible) == sorted(["H1", *[f"H{i}" for i in range(10, 20)]])
    page.fill(".dest-search", "")
    page.locator(".dest[data-target='F3'] button").hover()
    page.wait_for_selector(".inspector:not([hidden])")
    acted(page, lambda: page.locator(".dest[data-target='F3'] button").click())
    assert "on F3" in page.inner_text(".settler-panel")
    assert page.locator(".inspector").is_hidden()  # no card for whatever row is now under the still pointer
