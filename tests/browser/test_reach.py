"""The game readable and reachable on a phone, a tablet and a desktop, in English and in Hungarian.

- No text under 12 CSS px on the lobby, the Learn page and a game screen (every visible element's computed size).
- On a touch screen every control (button, select, input, link, role=button) is at least 44×44 CSS px (a check box:
  the label that holds it, whose every point ticks it).
- The top bar stays one line at round 10 and beyond (its round box filled with 99 and 999 too).
- A storm forecast over the player's settler is a banner over the map with its countdown and the shelter to reach,
  and it moves no control.
- In hot-seat the hand-over names the next player and their colour, and the help explains the colours.
- The lesson belts' names are translated.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from .belts import shelter_belt, shelter_seed
from .conftest import ROOT, Page, Server, open_game, seq, shot

VIEWPORTS = [(390, 844, True), (820, 1180, False), (1280, 800, False)]

SMALL_TEXT = """() => [...document.querySelectorAll('body *')].filter((el) => {
  if (!el.offsetParent && getComputedStyle(el).position !== 'fixed') return false;
  const r = el.getBoundingClientRect();
  if (r.width < 2 || r.height < 2) return false;  // screen-reader-only text
  const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  return own && parseFloat(getComputedStyle(el).fontSize) < 12;
}).map((el) => `${el.tagName}.${el.className}: ${getComputedStyle(el).fontSize}`
  + ` "${el.textContent.trim().slice(0, 30)}"`)"""

SMALL_TARGETS = """() => [...document.querySelectorAll('button, select, input, a[href], [role=button], summary')]
  .filter((el) => {
    if (!el.offsetParent) return false;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) return false;
    if (el.type === 'file' || el.type === 'hidden') return false;
    return r.width < 43.5 || r.height < 43.5;
  }).map((el) => (el.type === 'checkbox' || el.type === 'radio') && el.closest('label') ? el.closest('label') : el)
  .filter((el) => { const r = el.getBoundingClientRect(); return r.width < 43.5 || r.height < 43.5; })
  .map((el) => { const r = el.getBoundingClientRect();
    return `${el.tagName}.${el.className}[${el.textContent.trim().slice(0, 20)}]`
      + ` ${r.width.toFixed(0)}×${r.height.toFixed(0)}`; })"""

ONE_LINE = """() => { const bar = document.querySelector('.topbar'); const r = bar.getBoundingClientRect();
  const kids = [...bar.children].filter((c) => c.offsetParent && getComputedStyle(c).position !== 'absolute')
    .map((c) => c.getBoundingClientRect()).filter((k) => k.width > 0);
  const mids = kids.map((k) => (k.top + k.bottom) / 2);
  return { height: r.height, right: Math.max(...kids.map((k) => k.right)), width: r.width + r.left,
           spread: Math.max(...mids) - Math.min(...mids) }; }"""


# Words a Hungarian screen must never show: English that slipped past the translations.
ENGLISH = re.compile(r"\b(Round|Lesson|Player|Settler|Storm|Drill|Mine|Deposit|Wait|Shelter|Fly|Take shelter|Next|"
                     r"Back|Start|Play|Replay|Turn|Cargo|Gates?|Robots?|Help|Close)\b")


def check(page: Page, touch: bool, where: str) -> None:
    if page.evaluate("document.documentElement.lang") == "hu":
        # a belt's own name (a custom belt's, "Storm Drill" here) is the player's text, not the client's
        text = page.evaluate("""() => [...document.querySelectorAll('.belt-name')].reduce(
          (all, el) => all.split(el.innerText).join(' '), document.body.innerText)""")
        english = ENGLISH.findall(text)
        assert not english, f"{where}: English on a Hungarian screen: {english}"
    small = page.evaluate(SMALL_TEXT)
    assert not small, f"{where}: text under 12 px: {small}"
    if touch:
        tiny = page.evaluate(SMALL_TARGETS)
        assert not tiny, f"{where}: targets under 44 px: {tiny}"


def wait_a_round(page: Page, touch: bool) -> None:
    before = seq(page)
    if touch:
        page.locator(".action-wait").tap()
    else:
        page.click(".action-wait")
    page.wait_for_function(f"window.__am.seq > {before}")


@pytest.mark.parametrize("lang", ["en", "hu"])
@pytest.mark.parametrize(("width", "height", "touch"), VIEWPORTS)
def test_lobby_and_learn_are_readable_and_reachable(server: Server, new_page: Any, width: int, height: int,
                                                    touch: bool, lang: str) -> None:
    page = new_page(width=width, height=height, lang=lang, phone=touch)
    page.goto(f"{server.url}/")
    page.wait_for_selector("select[name=belt] option[value=standard]", state="attached")
    page.wait_for_function("document.fonts.status === 'loaded'")
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    check(page, touch, "lobby")
    shot(page, f"reach-lobby-{width}-{lang}")
    page.goto(f"{server.url}/#/learn")
    page.wait_for_selector(".lesson-card")
    check(page, touch, "learn")
    shot(page, f"reach-learn-{width}-{lang}")


@pytest.mark.parametrize("lang", ["en", "hu"])
@pytest.mark.parametrize(("width", "height", "touch"), VIEWPORTS)
def test_game_screen_readable_reachable_one_line_top_bar_and_a_storm_banner(
        server: Server, new_page: Any, width: int, height: int, touch: bool, lang: str) -> None:
    seed, waits = shelter_seed()
    game = server.create(seats=1, settlers_per_seat=1, belt=shelter_belt(), seed=seed)
    page = new_page(width=width, height=height, lang=lang, phone=touch)
    open_game(page, server, game)
    page.wait_for_function("document.fonts.status === 'loaded'")
    check(page, touch, "game")
    assert page.locator(".danger-banner").is_hidden()
    for _ in range(waits):
        wait_a_round(page, touch)
    # the storm's forecast: Camp is no shelter, Bunker (one hop away) is
    page.wait_for_selector(".danger-banner:not([hidden])")
    text = page.inner_text(".danger-banner")
    assert "Bunker" in text and "Camp" in text, text
    assert ("take shelter on Bunker" in text) if lang == "en" else ("menedékbe: Bunker" in text), text
    check(page, touch, "game with a storm banner")
    banner = page.locator(".danger-banner").bounding_box()
    tools = page.locator(".map-tools").bounding_box()
    assert banner["x"] + banner["width"] <= tools["x"], "the banner lies under the map's buttons"
    shot(page, f"reach-game-storm-{width}-{lang}")
    if touch:  # every panel's sheet
        for tab in ("settler", "here", "go", "storms", "log"):
            page.locator(f".tabs button[data-tab='{tab}']").tap()
            check(page, touch, f"the {tab} sheet")
        page.locator(".tabs button[data-tab='map']").tap()
    page.locator(".topbar .icon-btn").click()
    page.wait_for_selector(".overlay .help")
    check(page, touch, "help")
    help_text = page.inner_text(".overlay .help")
    if touch:  # a phone's help speaks of taps, not keys
        assert page.locator(".overlay .help .keys").count() == 0
        assert page.locator(".overlay .help .gestures li").count() >= 4
    assert "☀" in help_text  # the glyphs beside an asteroid's name are explained
    shot(page, f"reach-help-{width}-{lang}")
    page.keyboard.press("Escape")


@pytest.mark.parametrize("lang", ["en", "hu"])
@pytest.mark.parametrize(("width", "height", "touch"), VIEWPORTS)
def test_top_bar_stays_one_line_at_late_rounds(server: Server, new_page: Any, width: int, height: int, touch: bool,
                                               lang: str) -> None:
    # two players of two settlers each in hot-seat (four tokens in the bar), no storms: waits up to round 10
    game = server.create(seats=2, settlers_per_seat=2, belt=shelter_belt(), seed=1, options={"storm_interval": 0})
    page = new_page(width=width, height=height, lang=lang, phone=touch)
    open_game(page, server, game)
    page.wait_for_function("document.fonts.status === 'loaded'")
    first = page.evaluate(ONE_LINE)
    while int(page.inner_text(".round-box strong")) < 10:
        before = seq(page)
        page.keyboard.press("w")
        page.wait_for_function(f"window.__am.seq > {before}")
    page.wait_for_function("!document.querySelector('.actionbar .reason')?.textContent?.startsWith('Sending')")
    for shown in ("10", "99", "999"):
        page.evaluate(f"document.querySelector('.round-box strong').textContent = '{shown}'")
        bar = page.evaluate(ONE_LINE)
        assert bar["spread"] <= 4, f"the top bar wraps at round {shown}: {bar}"
        assert bar["right"] <= bar["width"] + 1, f"the top bar overflows at round {shown}: {bar}"
        assert bar["height"] == first["height"], f"the top bar grows at round {shown}: {bar} (at first {first})"
        if shown == "10":
            check(page, touch, "the game at round 10")
            shot(page, f"reach-game-late-{width}-{lang}")


@pytest.mark.parametrize("lang", ["en", "hu"])
def test_hot_seat_hand_over_names_the_player_and_colour(server: Server, new_page: Any, lang: str) -> None:
    game = server.create(seats=2, settlers_per_seat=1, belt=shelter_belt(), seed=1, options={"storm_interval": 0})
    page = new_page(width=390, height=844, lang=lang, phone=True)
    page.goto(f"{server.url}/")
    page.evaluate("(id) => localStorage.setItem('am.handover', JSON.stringify([id]))", game["id"])
    open_game(page, server, game)
    page.wait_for_selector(".overlay .handover")
    title = page.inner_text(".overlay .handover h2")
    want = {"en": "Pass the device to Player 1 — orange", "hu": "Add tovább a készüléket: 1. játékos — narancs"}
    assert title == want[lang], title
    legend = page.locator(".overlay .handover .seat-legend li")
    assert legend.count() == 2
    check(page, True, "hand-over")
    shot(page, f"reach-handover-{lang}")
    page.locator(".overlay .handover button.primary").tap()
    cue = {"en": "Player 1's turn — orange", "hu": "1. játékos lép — narancs"}
    assert page.inner_text(".map .turn-cue") == cue[lang]  # the cue stays over the map while the player plays
    wait_a_round(page, True)
    page.wait_for_selector(".overlay .handover")
    assert ("— sky blue" if lang == "en" else "— égkék") in page.inner_text(".overlay .handover h2")
    page.locator(".overlay .handover button.primary").tap()
    second = {"en": "Player 2's turn — sky blue", "hu": "2. játékos lép — égkék"}
    assert page.inner_text(".map .turn-cue") == second[lang]
    check(page, True, "hot-seat")
    shot(page, f"reach-hotseat-{lang}")


def test_a_single_player_sees_no_turn_cue(server: Server, new_page: Any) -> None:
    game = server.create(seats=1, settlers_per_seat=2, belt=shelter_belt(), seed=1, options={"storm_interval": 0})
    page = new_page(width=390, height=844, phone=True)
    open_game(page, server, game)
    assert page.locator(".map .turn-cue").is_hidden()


def test_every_key_the_client_uses_is_in_both_languages() -> None:
    en = json.loads((ROOT / "web/static/i18n/en.json").read_text())
    hu = json.loads((ROOT / "web/static/i18n/hu.json").read_text())
    used: dict[str, str] = {}
    for path in sorted((ROOT / "web/src").rglob("*.ts")):
        for key in re.findall(r"""\bt\(\s*["']([\w.:-]+)["']""", path.read_text()):
            used.setdefault(key, path.name)
    assert len(used) > 100
    for lang, words in (("en", en), ("hu", hu)):
        missing = {k: f for k, f in used.items() if k not in words and f"{k}_one" not in words}
        assert not missing, f"keys used by the client and missing in {lang}.json: {missing}"


def test_lesson_names_are_translated() -> None:
    en = json.loads((ROOT / "web/static/i18n/en.json").read_text())
    hu = json.loads((ROOT / "web/static/i18n/hu.json").read_text())
    for path in sorted((ROOT / "src/asteroid_mining/server/lessons").glob("*.json")):
        belt = json.loads(path.read_text()).get("belt")
        name = belt.get("name") if isinstance(belt, dict) else None
        if name and name.startswith("Lesson: "):
            assert f"belt.{name}" in en and f"belt.{name}" in hu, f"{path.name}: {name!r} is not translated"
            assert not hu[f"belt.{name}"].startswith("Lesson"), hu[f"belt.{name}"]
