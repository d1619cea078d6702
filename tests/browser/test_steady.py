"""The screen never moves under a finger, and says plainly what happened.

- No control moves when a message comes: a drill's warning, a refusal, a confirmation cancelled and an action done
  leave every button where it was (±1 px), on a phone (390×844 and on its side, touch), a tablet (820×1180) and a
  laptop (1280×800), in English and in Hungarian; the message line holds each message whole.
- An action that happened is told in green, with what changed ("Drilled: Rock's mantle 2 → 1.") and a mark on the
  map; red is for a real refusal only (the next choice's refusal is not shown as if the action had failed).
- A drill's confirmation does not expire (the page's clock is moved on by ten minutes: it still waits), and ends
  with Cancel or any other press; a drill whose bare core would react only rounds later asks nothing.
- The warning about bare ice under the settler comes two rounds before it boils away, and says to mine it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from asteroid_mining.rules.orbit import Orbit

from .conftest import ROOT, Page, Server, open_game, seq, shot

CONTROLS = """(all) => [...document.querySelectorAll(all ? 'button, a[href], select, input'
    : '.actionbar button, .tabs button, .topbar button, .topbar a, .map-tools button')]
  .filter((el) => el.offsetParent && !el.classList.contains('cancel'))
  .map((el, i) => {
    const r = el.getBoundingClientRect();
    const name = el.dataset.action || el.dataset.tab || el.dataset.tool || el.dataset.lang || el.dataset.target
      || el.className || el.tagName;
    return [`${i}:${name}`, [r.x, r.y, r.width, r.height]];
  })"""

# The message line shows its whole message: no more text than its box holds.
LINE = """() => {
  const r = document.querySelector('#action-reason');
  return { text: r.innerText, scroll: r.scrollHeight, client: r.clientHeight,
           tones: [...r.querySelectorAll('.msg')].map((m) => m.className.replace('msg msg-', '')) };
}"""

COLOUR = "(sel) => getComputedStyle(document.querySelector(sel)).color"


def asteroid(aid: str, mantle: int, core: str, orbit: Any, x: float, y: float) -> dict[str, Any]:
    return {"id": aid, "mantle": mantle, "core": core, "orbit": orbit, "position": [x, y]}


def belt(name: str, asteroids: list[dict[str, Any]], links: list[tuple[str, str]]) -> dict[str, Any]:
    return {"format": "asteroid-mining/belt", "version": 1, "name": name, "start": asteroids[0]["id"],
            "asteroids": asteroids, "links": [list(link) for link in links]}


# Camp, a shelter; Frost: one layer over ice, always near the Sun (a drill there asks twice); Rock: two layers
# over iron, always far.
STEADY = belt("Steady", [
    asteroid("Camp", 0, "hollow", {"sun": "far"}, -9.0, 1.0),
    asteroid("Frost", 1, "ice", {"sun": "near"}, -8.0, 3.0),
    asteroid("Rock", 2, "iron", {"sun": "far"}, -10.0, 3.0),
], [("Camp", "Frost"), ("Camp", "Rock"), ("Frost", "Rock")])

# Floe: one layer over ice, first near the Sun in round 9 (its orbit: 12 rounds, 2 of them near).
FLOE_ORBIT = "12/2/4"
THAW = belt("Thaw", [asteroid("Floe", 1, "ice", FLOE_ORBIT, -9.0, 1.0),
                     asteroid("Shore", 0, "hollow", {"sun": "far"}, -9.0, 3.0)], [("Floe", "Shore")])

QUIET = {"storm_interval": 0}


def new_game(server: Server, page: Page, doc: dict[str, Any]) -> None:
    game = server.create(seats=1, settlers_per_seat=1, belt=doc, seed=1, options=QUIET)
    open_game(page, server, game)
    page.wait_for_function("document.fonts.status === 'loaded'")


def tap(page: Page, touch: bool, selector: str) -> None:
    """A tap on a phone, a click elsewhere; refused buttons (aria-disabled) are pressed all the same."""
    if touch:
        page.locator(selector).tap(force=True)
    else:
        page.click(selector, force=True)


def answered(page: Page, press: Any) -> None:
    """Runs `press` and waits for the server's answer and the screen's outcome of it."""
    before = seq(page)
    press()
    page.wait_for_function(f"window.__am.seq > {before} && !document.querySelector('.actionbar .reason')"
                           "?.textContent?.startsWith('Sending') && !window.__am.scene?.animating")


def fly(page: Page, touch: bool, target: str) -> None:
    small = page.evaluate("getComputedStyle(document.querySelector('.tabs')).display !== 'none'")
    if small:
        tap(page, touch, ".tabs button[data-tab='go']")
    answered(page, lambda: tap(page, touch, f".dest[data-target='{target}'] button"))
    if small:
        tap(page, touch, ".tabs button[data-tab='map']")


def same(before: list[Any], after: list[Any], what: str) -> None:
    """The same controls in the same places, to within a pixel."""
    assert [k for k, _ in after] == [k for k, _ in before], what
    moved = {k: (b, a) for (k, b), (_, a) in zip(before, after, strict=True)
             if any(abs(x - y) > 1 for x, y in zip(b, a, strict=True))}
    assert not moved, f"{what}: moved {moved}"


def whole(page: Page) -> dict[str, Any]:
    line: dict[str, Any] = page.evaluate(LINE)
    assert line["scroll"] <= line["client"] + 1, f"the message does not fit its line: {line}"
    return line


@pytest.mark.parametrize("lang", ["en", "hu"])
@pytest.mark.parametrize(("width", "height", "touch"),
                         [(390, 844, True), (844, 390, True), (820, 1180, False), (1280, 800, False)])
def test_no_control_moves_when_a_message_comes(server: Server, new_page: Any, width: int, height: int, touch: bool,
                                               lang: str) -> None:
    page = new_page(width=width, height=height, lang=lang, phone=touch)
    new_game(server, page, STEADY)
    fly(page, touch, "Frost")
    page.wait_for_function("!window.__am.scene.animating")
    start = page.evaluate(CONTROLS, True)
    assert len(start) >= 10

    tap(page, touch, ".action-drill")  # the warning: bare ice near the Sun boils away at once
    same(start, page.evaluate(CONTROLS, True), "a warning came")
    assert "armed" in (page.get_attribute(".action-drill", "class") or "")
    line = whole(page)
    assert line["tones"] == ["danger"] and "Frost" in line["text"]
    assert page.locator(".actionbar .cancel:visible").count() == 1
    shot(page, f"steady-{width}x{height}-{lang}-warning")

    tap(page, touch, ".action-mine")  # a refusal (a layer is left): it also ends the confirmation
    line = whole(page)
    assert line["tones"] == ["refused"]
    assert "armed" not in (page.get_attribute(".action-drill", "class") or "")
    same(start, page.evaluate(CONTROLS, True), "a refusal came")

    tap(page, touch, ".action-drill")
    tap(page, touch, ".actionbar .cancel:visible")  # Cancel: nothing is drilled
    assert "armed" not in (page.get_attribute(".action-drill", "class") or "")
    assert page.locator(".actionbar .cancel:visible").count() == 0
    same(start, page.evaluate(CONTROLS, True), "a confirmation was cancelled")

    settled = page.evaluate(CONTROLS, False)
    tap(page, touch, ".action-drill")
    answered(page, lambda: tap(page, touch, ".action-drill"))  # the second press drills
    line = whole(page)
    assert line["tones"][0] == "done" and "Frost" in line["text"]
    # The game changed (the panels say so), but the bars, the tabs and the map's tools stay where they were.
    same(settled, page.evaluate(CONTROLS, False), "an action was done")
    shot(page, f"steady-{width}x{height}-{lang}-done")


@pytest.mark.parametrize("lang", ["en", "hu"])
def test_an_action_done_is_told_in_green_and_a_refusal_in_red(server: Server, new_page: Any, lang: str) -> None:
    page = new_page(width=390, height=844, lang=lang, phone=True)
    new_game(server, page, STEADY)
    fly(page, True, "Rock")
    assert page.evaluate("window.__am.acknowledged.at(-1)") == "Rock"  # the map marked where the settler flew
    words = {
        "en": ["Drilled: Rock's mantle 2 → 1.", "Drilled through Rock: its iron core is bare.",
               "Drill: Rock is already drilled through", "Mined iron on Rock (cargo 1/10)."],
        "hu": ["Fúrás kész: Rock köpenye 2 → 1.", "Átfúrtad: Rock magja (vas) most csupasz.",
               "Fúrás: Rock már át van fúrva", "Kibányásztad a magot (vas) itt: Rock – raktér: 1/10."],
    }[lang]
    marks = page.evaluate("window.__am.acknowledged.length")
    answered(page, lambda: tap(page, True, ".action-drill"))
    assert whole(page)["text"] == words[0]
    answered(page, lambda: tap(page, True, ".action-drill"))
    # The drill worked; the server's next choices refuse another drill (drilled through), and the finger still
    # rests on Drill: what shows is the drill done, in green, never that refusal.
    line = whole(page)
    assert line["text"] == words[1] and line["tones"] == ["done"]
    assert page.evaluate("window.__am.choices()['s1'].choices.find((c) => c.action === 'drill').refusal.code") \
        == "drilled_through"
    green = page.evaluate(COLOUR, "#action-reason .msg-done")
    assert green == "rgb(111, 224, 189)", green
    assert page.evaluate("window.__am.acknowledged").count("Rock") == 3
    assert page.evaluate("window.__am.acknowledged.length") == marks + 2
    shot(page, f"steady-done-{lang}")

    tap(page, True, ".action-drill")  # a real refusal: red, with its reason
    line = whole(page)
    assert line["text"] == words[2] and line["tones"] == ["refused"]
    red = page.evaluate(COLOUR, "#action-reason .msg-refused")
    assert red == "rgb(255, 176, 138)" and red != green
    shot(page, f"steady-refused-{lang}")

    answered(page, lambda: tap(page, True, ".action-mine"))
    line = whole(page)
    assert line["text"] == words[3] and line["tones"] == ["done"]
    assert page.locator("#action-reason .msg-refused").count() == 0


@pytest.mark.parametrize(("width", "height", "lang"), [(390, 844, "hu"), (1280, 800, "en")])
def test_the_top_bar_stays_when_the_connection_and_the_clock_change(server: Server, new_page: Any, width: int,
                                                                     height: int, lang: str) -> None:
    page = new_page(width=width, height=height, lang=lang, phone=width < 1000)
    game = server.create(seats=1, settlers_per_seat=1, belt=STEADY, seed=1, options=QUIET, turn_seconds=600)
    open_game(page, server, game)
    assert page.locator(".topbar .timer").is_visible()
    start = page.evaluate(CONTROLS, True)
    shot(page, f"steady-timer-{width}x{height}-{lang}")
    # The connection's state as the top bar writes it (a lost connection is not made here: the bar's words are).
    for state in ("closed", "failed", "connecting", "open"):
        page.evaluate("(s) => { const c = document.querySelector('.topbar .conn');"
                      " c.className = `conn ${s}`; c.textContent = s === 'open' ? '' : `${s}: some words`; }", state)
        same(start, page.evaluate(CONTROLS, True), f"the connection is {state}")
    # A step: the clock starts again. The game ends: the clock stops (no deadline), and keeps its place.
    bars = page.evaluate(CONTROLS, False)
    answered(page, lambda: tap(page, width < 1000, ".action-wait"))
    same(bars, page.evaluate(CONTROLS, False), "a step was taken")
    token = game["seats"][0]["token"]
    assert httpx.post(f"{server.url}/api/games/{game['id']}/abandon", json={"token": token}).status_code == 200
    page.wait_for_selector(".overlay .card.end.abandoned")
    assert page.inner_text(".topbar .timer .t") == "–:––"
    same(bars, page.evaluate(CONTROLS, False), "the game ended")


def messages(lang: str) -> list[list[tuple[str, str]]]:
    """The longest messages the line shows at once, as (tone, text) parts in `lang`: each drill confirmation,
    each drill note, each warning after an outcome, outcomes with what followed them (long names, many rounds)."""
    words = json.loads((ROOT / "web" / "static" / "i18n" / f"{lang}.json").read_text())
    params = {"asteroid": "Asteroid-27", "target": "Asteroid-27", "origin": "Asteroid-28", "n": 12, "before": 3,
              "after": 2, "limit": 10, "gate": "gate12", "via": "gate12", "first": "gate11", "second": "gate12",
              "robot": "robot12", "actor": words["settler.subject"].format(art="a", n=12),
              "core": words["core.uranium"], "kind": words["kind.uranium"], "kind_acc": words["kind_acc.uranium"],
              "when": words["when.next"]}

    def say(key: str) -> str:
        return re.sub(r"\{(\w+)\}", lambda m: str(params[m.group(1)]), words[key])

    confirm = [[("danger", f"{say(f'warn.{core}_{when}')} {words['warn.confirm_touch']}")]
               for core in ("ice", "uranium") for when in ("now", "next")]
    notes = [[("note", say(f"warn.{core}_later"))] for core in ("ice", "uranium")]
    warnings = [[("done", say("done.waited")), ("danger", say(key))] for key in words if key.startswith("warn.here_")]
    outcomes = [[("done", say("done.drilled_through")), ("news", say("log.exploded")),
                 ("news", say("log.died_explosion"))],
                [("done", say("done.drilled_through")), ("note", say("warn.here_uranium").replace(
                    words["when.next"], words["when.in"].replace("{n}", "12")))],
                [("done", say("done.gate_placed_active"))], [("done", say("done.mined"))]]
    return confirm + notes + warnings + outcomes


WRITE = """(parts) => {
  const line = document.querySelector('#action-reason');
  line.replaceChildren(...parts.flatMap(([tone, text], i) => {
    const span = document.createElement('span');
    span.className = `msg msg-${tone}`;
    span.textContent = text;
    return i ? [' ', span] : [span];
  }));
  return { scroll: line.scrollHeight, client: line.clientHeight, box: line.parentElement.clientHeight };
}"""


@pytest.mark.parametrize("lang", ["en", "hu"])
@pytest.mark.parametrize(("width", "height"), [(360, 740), (820, 1180), (1280, 800), (844, 390)])
def test_every_message_fits_its_line(server: Server, new_page: Any, width: int, height: int, lang: str) -> None:
    page = new_page(width=width, height=height, lang=lang, phone=width < 1000)
    new_game(server, page, STEADY)
    tap(page, width < 1000, ".action-drill")  # a confirmation pending: Cancel is shown (on a phone, after Wait)
    for parts in messages(lang):
        fit = page.evaluate(WRITE, parts)
        assert fit["scroll"] <= fit["client"] + 1 and fit["client"] <= fit["box"] + 1, (parts, fit)


def test_a_drill_confirmation_waits_and_ends_with_another_press(server: Server, new_page: Any) -> None:
    page = new_page(width=390, height=844, phone=True)
    page.clock.install()
    new_game(server, page, STEADY)
    fly(page, True, "Frost")
    before = seq(page)
    tap(page, True, ".action-drill")
    # Ten minutes later (the page's clock moved on: timers due in that time have run) the drill still waits for
    # its second press, and says so.
    page.clock.fast_forward(600_000)
    assert "armed" in (page.get_attribute(".action-drill", "class") or "")
    assert "Tap Drill again to drill anyway." in page.inner_text("#action-reason")
    assert page.locator(".actionbar .cancel:visible").count() == 1
    assert seq(page) == before  # nothing was sent
    # Escape ends it, and so does a tap on the map (it is not the second press)
    page.keyboard.press("Escape")
    assert "armed" not in (page.get_attribute(".action-drill", "class") or "")
    tap(page, True, ".action-drill")
    box = page.locator(".map").bounding_box()
    page.touchscreen.tap(box["x"] + 12, box["y"] + 12)
    assert "armed" not in (page.get_attribute(".action-drill", "class") or "")
    assert page.locator(".actionbar .cancel:visible").count() == 0
    tap(page, True, ".action-drill")
    page.clock.fast_forward(60_000)
    assert seq(page) == before
    answered(page, lambda: tap(page, True, ".action-drill"))
    assert page.locator(".log li", has_text="drilled Frost").count() == 1
    assert page.locator(".log li", has_text="The ice of Frost boiled away").count() == 1
    assert "armed" not in (page.get_attribute(".action-drill", "class") or "")


def test_the_warning_about_bare_ice_comes_when_it_can_be_acted_on(server: Server, new_page: Any) -> None:
    page = new_page(width=390, height=844, phone=True)
    new_game(server, page, THAW)
    # The ice would boil away rounds from now: the drill says when, and does not ask twice.
    assert "danger" not in (page.get_attribute(".action-drill", "class") or "")
    page.focus(".action-drill")  # a focused (or hovered) button explains itself
    assert "boils away when Floe nears the Sun in 8 rounds: mine it before then" in page.inner_text("#action-reason")
    answered(page, lambda: tap(page, True, ".action-drill"))
    assert page.inner_text("#action-reason") == \
        "Drilled through Floe: its ice core is bare. Floe's ice will boil away near the Sun in 6 rounds."
    # The bare ice reacts at the end of the round before Floe's first round near the Sun (R5, R12).
    reacts = (Orbit.parse(FLOE_ORBIT).next_near(2) or 0) - 1
    assert reacts == 8
    warning = "#action-reason .msg-danger"
    for round_no in range(2, reacts - 2):
        assert page.inner_text(".round-box strong") == str(round_no)
        assert page.locator(warning).count() == 0, f"a warning in round {round_no}, {reacts - round_no} rounds early"
        answered(page, lambda: tap(page, True, ".action-wait"))
    assert page.inner_text(".round-box strong") == str(reacts - 2)
    assert page.inner_text(warning) == "Floe's ice will boil away near the Sun in 2 rounds: mine it now."
    assert "suggested" in (page.get_attribute(".action-mine", "class") or "")
    shot(page, "steady-ice-warning")
    answered(page, lambda: tap(page, True, ".action-wait"))
    assert page.inner_text(warning) == \
        "Floe's ice will boil away near the Sun at the end of the next round: mine it now."
    answered(page, lambda: tap(page, True, ".action-mine"))
    assert page.inner_text("#action-reason") == "Mined ice on Floe (cargo 1/10)."
    assert page.locator(warning).count() == 0
