"""axe-core (the npm package, pinned in web/package.json) finds nothing against WCAG 2.2 A and AA on any screen:
the lobby, the Learn page, a lesson, the game screen (a settler selected, the help open, a drill warning
showing), the end screen, the replay viewer, the hot-seat hand-over and the log — on a 390×844 touch screen and
at 1280×800, in English and Hungarian.

axe's script is run in the page (as the page's own code, past its Content-Security-Policy); no rule is turned
off. A failure lists each violation with its rule, impact and the nodes it found (their CSS targets).
"""

from __future__ import annotations

from typing import Any

import pytest

from .belts import shelter_belt
from .conftest import ROOT, Page, Server, acted, open_game, shot

AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]

RUN = """async (tags) => {
  const result = await axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
  }));
}"""

RUNS = [pytest.param(390, 844, True, "en", id="phone-en"), pytest.param(390, 844, True, "hu", id="phone-hu"),
        pytest.param(1280, 800, False, "en", id="desktop-en"), pytest.param(1280, 800, False, "hu", id="desktop-hu")]


def axe_source() -> str:
    if not AXE.is_file():
        pytest.fail(f"axe-core is not installed ({AXE}): run `cd web && npm ci` (`make web` does)", pytrace=False)
    return AXE.read_text()


class Audit:
    """Runs axe on one page's screens, one after another, and keeps what each found."""

    def __init__(self, page: Page, name: str) -> None:
        self.page, self.name = page, name
        self.found: dict[str, list[dict[str, Any]]] = {}
        self.source = axe_source()

    def __call__(self, screen: str) -> None:
        """axe on what the page shows now, with a screenshot of it."""
        page = self.page
        page.wait_for_function("document.fonts.status === 'loaded'")
        if not page.evaluate("typeof window.axe === 'object'"):
            page.evaluate(self.source)  # a new document (a reload, a new address) needs it again
        violations = page.evaluate(RUN, TAGS)
        shot(page, f"axe-{self.name}-{screen}")
        if violations:
            self.found[screen] = violations

    def check(self) -> None:
        """Fails with every violation found, screen by screen."""
        lines = []
        for screen, violations in self.found.items():
            for v in violations:
                lines.append(f"{screen}: {v['id']} ({v['impact']}): {v['help']}")
                lines.extend(f"    {n['target']}: {' '.join(n['summary'].split())[:300]}" for n in v["nodes"])
        assert not lines, f"axe found, at {self.name}:\n" + "\n".join(lines)


def tap(page: Page, phone: bool, selector: str) -> None:
    target = page.locator(selector).first
    target.wait_for(state="visible")
    if phone:
        target.tap()
    else:
        target.click()


def tab(page: Page, phone: bool, name: str) -> None:
    """Shows one of the phone's tabs (a desktop shows every panel at once)."""
    if phone:
        tap(page, phone, f".tabs button[data-tab='{name}']")
        page.wait_for_function(f"document.querySelector('.game-screen').dataset.tab === '{name}'")


@pytest.mark.parametrize(("width", "height", "phone", "lang"), RUNS)
def test_axe_finds_nothing_on_any_screen(server: Server, new_page: Any, width: int, height: int, phone: bool,
                                         lang: str) -> None:
    name = f"{'phone' if phone else 'desktop'}-{lang}"
    page = new_page(width=width, height=height, lang=lang, phone=phone)
    audit = Audit(page, name)

    # the lobby, the Learn page and a lesson
    page.goto(f"{server.url}/")
    page.wait_for_selector("#quick-play")
    audit("lobby")
    tap(page, phone, "#learn")
    page.wait_for_selector(".lesson-card")
    audit("learn")
    tap(page, phone, ".lesson-card[data-lesson='fly'] button")
    page.wait_for_selector(".lesson-intro .lesson-picture")
    page.wait_for_function("document.body.dataset.ready === '1'")
    audit("lesson-intro")
    tap(page, phone, "#lesson-intro-ok")
    audit("lesson")

    # the game screen: hot-seat (two players on one device) with the hand-over screen
    game = server.create(seats=2, settlers_per_seat=1, belt=shelter_belt(), seed=1, options={"storm_interval": 0})
    page.goto(f"{server.url}/")
    page.evaluate("(id) => localStorage.setItem('am.handover', JSON.stringify([id]))", game["id"])
    open_game(page, server, game)
    page.wait_for_selector(".overlay .handover")
    audit("handover")
    tap(page, phone, ".overlay .handover button.primary")
    page.wait_for_selector(".overlay", state="hidden")
    audit("game")
    # the map is a labelled picture, and its icon buttons are named in the page's language
    names = {"en": ("Map of the belt", "Zoom in"), "hu": ("Az aszteroidaöv térképe", "Nagyítás")}[lang]
    assert page.get_attribute(".map canvas", "role") == "img"
    assert page.get_attribute(".map canvas", "aria-label") == names[0]
    assert page.get_attribute(".map-tools button[data-tool='in']", "aria-label") == names[1]
    for name_of_tab in ("settler", "here", "go", "storms", "log") if phone else ():
        tab(page, phone, name_of_tab)
        audit(f"game-{name_of_tab}")
    tab(page, phone, "map")

    # the settler whose step it is, with a destination chosen (the keyboard's n), then the help
    page.keyboard.press("n")
    page.wait_for_selector(".dest.focused", state="attached")
    tab(page, phone, "settler")
    audit("game-selected")
    tab(page, phone, "map")
    page.keyboard.press("?")
    page.wait_for_selector(".overlay .help")
    audit("help")
    page.keyboard.press("Escape")
    page.wait_for_selector(".overlay", state="hidden")

    # a drill warning, then the end screen (bare uranium near the Sun explodes under the settler)
    alone = server.create(seats=1, settlers_per_seat=1, belt=shelter_belt(), seed=1)
    open_game(page, server, alone)
    tab(page, phone, "go")
    acted(page, lambda: tap(page, phone, ".dest[data-target='Hot'] button"))
    tab(page, phone, "map")
    tap(page, phone, ".action-drill")
    page.wait_for_function("document.querySelector('#action-reason')?.textContent?.length > 0")
    audit("warning")
    acted(page, lambda: tap(page, phone, ".action-drill"))
    page.wait_for_selector(".overlay .end.lost")
    audit("end")
    page.keyboard.press("Escape")  # the end card closes: the game stays on the screen
    page.wait_for_selector(".overlay", state="hidden")
    tab(page, phone, "log")
    audit("end-log")

    # the replay viewer of the ended game
    page.goto(f"{server.url}/#/replay/{alone['id']}")
    page.wait_for_selector(".timeline")
    page.wait_for_function("document.body.dataset.ready === '1'")
    audit("replay")

    audit.check()
