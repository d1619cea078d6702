"""The event log is the game's whole history from the server: the same after a reload, and complete for a
spectator who joins late (grouped by round, filterable by settler)."""

from __future__ import annotations

from typing import Any

import httpx

from .conftest import Server, acted, open_game, shot

# The log as drawn: (round, event type) of every row, in order.
DRAWN = """() => {
  const out = [];
  let round = 0;
  for (const li of document.querySelectorAll('.log-panel .log li')) {
    if (li.dataset.round) round = Number(li.dataset.round);
    else out.push([round, li.dataset.type]);
  }
  return out;
}"""


def server_log(server: Server, game: str) -> list[list[Any]]:
    """The server's history as (round, event type), rounds opened by `round` events."""
    steps = httpx.get(f"{server.url}/api/games/{game}/events", timeout=30).json()["steps"]
    out, round_no = [], 1
    for step in steps:
        for e in step["events"]:
            if e["type"] == "round":
                round_no = e["round"]
            else:
                out.append([round_no, e["type"]])
    return out


def test_the_log_after_a_reload_and_for_a_late_spectator(server: Server, new_page: Any) -> None:
    game = server.create(seats=1, settlers_per_seat=2, belt="tutorial", seed=4, options={"storm_interval": 0})
    page = new_page()
    open_game(page, server, game)
    for _ in range(18):  # nine rounds of two settlers
        acted(page, lambda: page.keyboard.press("w"))
    assert page.evaluate("window.__am.seq") == 18
    history = server_log(server, game["id"])
    assert [r for r, _ in history].count(9) == 2 and history[-1][0] == 9
    page.wait_for_function("window.__am.logLoaded >= 0")
    assert page.evaluate(DRAWN) == history

    page.reload()
    page.wait_for_function("document.body.dataset.ready === '1' && window.__am.logLoaded >= 18")
    assert page.evaluate(DRAWN) == history
    rounds = page.locator(".log-panel .log li[data-round]").evaluate_all("(els) => els.map((e) => e.dataset.round)")
    assert rounds == [str(n) for n in range(1, 11)]  # round 10 has begun, nothing in it yet

    watcher = new_page()
    watcher.goto(f"{server.url}/#/watch/{game['id']}")
    watcher.wait_for_function("document.body.dataset.ready === '1' && window.__am.logLoaded >= 18")
    assert watcher.evaluate(DRAWN) == history
    assert {r for r, _ in watcher.evaluate(DRAWN)} == set(range(1, 10))
    shot(watcher, "log-spectator")

    # filtered by settler: only settler 2's rows
    watcher.select_option(".log-filter", "s2")
    drawn = watcher.evaluate(DRAWN)
    assert drawn == [[r, t] for r, t in history if t == "waited"][1::2]
