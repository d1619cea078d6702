"""Playing through the browser: turns on a hand-made belt (drill, mine, move, build a robot, build and place
gates, travel through them), a storm forecast and a shelter, the reason for an illegal action, a drill warning,
a turn with the keyboard alone, and a win on a small belt followed by its replay."""

from __future__ import annotations

from typing import Any

from asteroid_mining.rules.orbit import Orbit

from .belts import (
    BONANZA_PLAN,
    WORKSHOP_PLAN,
    bonanza_belt,
    bonanza_seed,
    shelter_belt,
    shelter_seed,
    workshop_belt,
    workshop_seed,
)
from .conftest import Page, Server, acted, open_game, shot

BUTTON = {"drill": ".action-drill", "mine": ".action-mine", "build_robot": ".action-build_robot",
          "build_gates": ".action-build_gates", "place": ".action-place", "wait": ".action-wait"}


def play_step(page: Page, step: dict[str, Any], on_map: bool = False) -> None:
    """One step through the screen: a destination (in the list, or on the map) or an action button."""
    if step["action"] == "move":
        target = step["target"]
        if on_map:
            where = page.evaluate("id => window.__am.where(id)", target)
            acted(page, lambda: page.mouse.click(where["x"], where["y"]))
        else:
            acted(page, lambda: page.click(f".dest[data-target='{target}'] button"))
    else:
        acted(page, lambda: page.click(BUTTON[step["action"]]))


def settler_text(page: Page) -> str:
    return str(page.inner_text(".settler-panel"))


def test_turns_drill_mine_move_robot_gates(server: Server, new_page: Any) -> None:
    game = server.create(seats=1, settlers_per_seat=1, belt=workshop_belt(), seed=workshop_seed())
    page = new_page()
    open_game(page, server, game)
    shot(page, "game-start")
    for i, step in enumerate(WORKSHOP_PLAN):
        play_step(page, step, on_map=(i == 4))  # one move by clicking the asteroid on the map
        if step["action"] == "mine" and i == 3:
            assert "on Drill" in settler_text(page)
            assert page.inner_text(".cargo-item:nth-child(2) .n") == "1"  # one iron mined after two drills
            shot(page, "game-mined")
        if step["action"] == "build_robot":
            assert page.locator(".log li", has_text="built robot").count() == 1
        if step["action"] == "build_gates":
            assert "gate1" in settler_text(page) and "gate2" in settler_text(page)
            shot(page, "game-gates-built")
        if step["action"] == "place" and step["gate"] == "gate2":
            assert page.locator(".log li", has_text="the pair is open").count() == 1
            assert page.locator(".dest[data-target='gate2']").count() == 1
            shot(page, "game-gates-open")
    assert "on Frost" in settler_text(page)  # came back through the gate pair
    assert page.locator(".log li", has_text="stepped through gate gate2").count() == 1
    shot(page, "game-through-gate")


def test_forecast_and_shelter(server: Server, new_page: Any) -> None:
    seed, waits = shelter_seed()
    game = server.create(seats=1, settlers_per_seat=1, belt=shelter_belt(), seed=seed)
    page = new_page()
    open_game(page, server, game)
    assert page.locator(".forecast").count() == 0
    for _ in range(waits):
        acted(page, lambda: page.keyboard.press("w"))
    forecast = page.locator(".forecast").first
    assert "hits in" in forecast.inner_text() or "next round" in forecast.inner_text()
    assert "Exposed: Settler 1" in forecast.inner_text()
    assert page.locator(".dest[data-target='Bunker'] .st").count() == 1  # the storm mark in the list too
    shot(page, "game-forecast")
    play_step(page, {"action": "move", "target": "Bunker"}, on_map=True)
    assert "shelter" in page.inner_text(".here-panel")
    assert "Sheltered: Settler 1" in page.locator(".forecast").first.inner_text()
    for _ in range(6):
        if page.locator(".log li", has_text="A solar storm hit").count():
            break
        acted(page, lambda: page.click(".action-wait"))
    assert page.locator(".log li", has_text="A solar storm hit").count() == 1
    assert page.locator(".log li", has_text="died").count() == 0
    assert "on Bunker" in settler_text(page)
    shot(page, "game-storm-survived")


def test_reason_for_an_illegal_action_and_drill_warning(server: Server, new_page: Any) -> None:
    game = server.create(seats=1, settlers_per_seat=1, belt=shelter_belt(), seed=1)
    page = new_page()
    open_game(page, server, game)
    before = page.evaluate("window.__am.seq")
    page.click(".action-mine", force=True)  # refused actions stay clickable (aria-disabled) and say why
    reason = page.inner_text("#action-reason")
    assert "Mine" in reason and "Camp still has 1 layer of mantle" in reason
    assert page.get_attribute(".action-mine", "aria-disabled") == "true"
    page.hover(".action-build_robot")
    assert "needs 1 iron and 1 carbon and 1 uranium more" in page.inner_text("#action-reason")
    assert page.evaluate("window.__am.seq") == before  # nothing was sent
    shot(page, "game-refused")
    play_step(page, {"action": "move", "target": "Hot"})
    assert "warn" not in (page.get_attribute(".action-drill", "class") or "")
    assert "danger" in (page.get_attribute(".action-drill", "class") or "")
    page.click(".action-drill")
    assert "explodes" in page.inner_text("#action-reason")
    assert page.evaluate("window.__am.seq") == before + 1  # the warning asks first: no drill sent
    shot(page, "game-drill-warning")


def test_a_turn_with_the_keyboard_only(server: Server, new_page: Any) -> None:
    game = server.create(seats=1, settlers_per_seat=1, belt=workshop_belt(), seed=workshop_seed())
    page = new_page()
    open_game(page, server, game)
    page.keyboard.press("n")  # choose the first destination
    assert page.locator(".dest.focused[data-target='Drill']").count() == 1
    acted(page, lambda: page.keyboard.press("Enter"))
    assert "on Drill" in settler_text(page)
    acted(page, lambda: page.keyboard.press("d"))
    assert page.locator(".log li", has_text="drilled Drill").count() == 1
    acted(page, lambda: page.keyboard.press("1"))  # the first place in the list: back Home
    assert "on Home" in settler_text(page)
    page.keyboard.press("Tab")  # focus moves through real controls
    assert page.evaluate("document.activeElement.tagName") in ("A", "BUTTON", "MAIN")
    page.keyboard.press("?")
    assert page.locator(".overlay .help").count() == 1
    shot(page, "game-help")
    page.keyboard.press("Escape")
    assert page.locator(".overlay").is_hidden()


def test_win_a_small_belt_and_replay_it(server: Server, new_page: Any) -> None:
    game = server.create(seats=1, settlers_per_seat=2, belt=bonanza_belt(), seed=bonanza_seed())
    page = new_page()
    open_game(page, server, game)
    for step in BONANZA_PLAN:
        assert page.locator(".order li.now").inner_text() == step["settler"][1:]
        play_step(page, step)
    page.wait_for_selector(".overlay .end.won")
    end = page.inner_text(".overlay .card")
    assert "The base is built!" in end and "Home" in end
    assert "12" in page.inner_text(".overlay .stats")  # units mined
    assert "No settler was lost" in end
    shot(page, "game-won")
    page.click("text=Watch the replay")
    page.wait_for_function("document.body.dataset.ready === '1' && document.body.dataset.page === 'replay'")
    assert "Step 0 of 26" in page.inner_text(".position")
    page.click("#replay-forward")
    page.click("#replay-forward")
    assert "Step 2 of 26" in page.inner_text(".position")
    assert page.locator(".log li", has_text="mined ice").count() == 0
    page.locator(".timeline").fill("20")
    assert "Step 20 of 26" in page.inner_text(".position")
    assert page.locator(".log li", has_text="mined").count() == 10
    page.keyboard.press("End")
    assert "Step 26 of 26" in page.inner_text(".position")
    assert page.locator(".log li", has_text="built the base").count() == 1
    shot(page, "replay")
    page.click("#replay-back")
    assert "Step 25 of 26" in page.inner_text(".position")


def _sun_words(orbit: str, round_no: int) -> str:
    """What the standing panel says of an asteroid's orbit in a round (R5), worked out here with the engine."""
    parsed = Orbit.parse(orbit)
    near, change = parsed.is_near(round_no), parsed.next_change(round_no)
    assert change is not None
    n = change - round_no
    if near:
        return "near the Sun · far next round" if n == 1 else f"near the Sun · far in {n} rounds"
    return "far · near the Sun next round" if n == 1 else f"far · near the Sun in {n} rounds"


def test_the_sun_moves_on_with_the_rounds(server: Server, new_page: Any) -> None:
    """The server leaves `near` and `next_change` out of its messages; the browser works them out from each
    asteroid's orbit whenever the round moves on (R5)."""
    belt = {"format": "asteroid-mining/belt", "version": 1, "name": "Orbits", "start": "Home",
            "asteroids": [{"id": "Home", "mantle": 0, "core": "hollow", "orbit": "3/1/0", "position": [-9.0, 1.0]},
                          {"id": "Next", "mantle": 2, "core": "iron", "orbit": "4/2/1", "position": [-9.0, 3.0]}],
            "links": [["Home", "Next"]]}
    game = server.create(seats=1, settlers_per_seat=1, belt=belt, seed=1, options={"storm_interval": 0})
    page = new_page()
    open_game(page, server, game)
    for round_no in range(1, 7):
        assert page.inner_text(".round-box strong") == str(round_no)
        assert _sun_words("3/1/0", round_no) in page.inner_text(".here-panel")
        near_next = "near" in (page.get_attribute(".dest[data-target='Next'] .s", "class") or "").split()
        assert near_next == Orbit.parse("4/2/1").is_near(round_no)
        if round_no == 4:
            shot(page, "game-sun")
        acted(page, lambda: page.keyboard.press("w"))
