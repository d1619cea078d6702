"""Fixtures of the browser tests: a real game server in a subprocess (127.0.0.1, a free port, a temporary data
directory) and Debian's Chromium driven by Playwright, headless.

These tests are never skipped: without Chromium or without the built client they fail and say what to do (CI
installs Chromium in `.ci/run`; `make test` builds the client first).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

CHROMIUM = Path(os.environ.get("ASTEROID_MINING_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    # WebGL without a GPU: Chromium's software rasteriser (SwiftShader) behind ANGLE.
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
]
ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "src" / "asteroid_mining" / "server" / "static"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"


class Server:
    """A running `python -m asteroid_mining.server`."""

    def __init__(self, data: Path) -> None:
        # port 0: the system gives the server a free port when it binds, and the server says which in its log (a
        # port picked here could be taken by another process of a busy machine before the server bound it)
        self.port = 0
        self.log = data / "server.log"
        # Every test of the package shares this server and plays from one address: the limit of running games per
        # address (20 for players) would be reached by the tests together, not by any one of them.
        env = {**os.environ, "ASTEROID_MINING_BOT_DELAY": "0.05", "ASTEROID_MINING_MAX_GAMES_PER_CLIENT": "1000"}
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "asteroid_mining.server", "--host", "127.0.0.1", "--port", "0",
                 "--data", str(data)],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
            )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server stopped at once:\n{self.log.read_text()}")
            if not self.port:
                found = re.search(r"Uvicorn running on http://\S+:(\d+)", self.log.read_text())
                self.port = int(found.group(1)) if found else 0
            with contextlib.suppress(httpx.HTTPError):
                if self.port and httpx.get(f"{self.url}/api/health", timeout=5).status_code == 200:
                    return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"the server did not answer within 60 s:\n{self.log.read_text()}")

    @property
    def url(self) -> str:
        """Its HTTP address."""
        return f"http://127.0.0.1:{self.port}"

    def create(self, **body: Any) -> dict[str, Any]:
        """POST /api/games; the answer (id and seats with their tokens)."""
        answer = httpx.post(f"{self.url}/api/games", json=body, timeout=30)
        assert answer.status_code == 201, answer.text
        return dict(answer.json())

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium is needed for the browser tests and is not at {CHROMIUM}: install it with "
                    "`apt-get install -y chromium` (CI's .ci/run does), or point ASTEROID_MINING_CHROMIUM at it.",
                    pytrace=False)
    return CHROMIUM


@pytest.fixture(scope="session")
def built_client() -> Path:
    if not (STATIC / "index.html").is_file() or not (STATIC / "build.json").is_file():
        pytest.fail(f"the browser client is not built ({STATIC} has no index.html/build.json): run `make web` "
                    "(or `cd web && npm ci && npm run build`); `make test` does it for you.", pytrace=False)
    return STATIC


@pytest.fixture(scope="package")
def server(tmp_path_factory: pytest.TempPathFactory, built_client: Path) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("server-data"))
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="package")
def browser(chromium_path: Path) -> Iterator[Any]:
    # Package scope: Playwright's sync API keeps an event loop running in the main thread while it is open,
    # so it must be stopped before the rest of the suite (whose tests call asyncio.run) goes on.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(chromium_path), headless=True, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


Page = Any
"""A Playwright page (its types stay in Playwright)."""


@pytest.fixture
def new_page(browser: Any) -> Iterator[Callable[..., Page]]:
    """Opens pages in fresh browser contexts (1280×720, reduced motion unless asked otherwise); page errors fail."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(width: int = 1280, height: int = 720, motion: bool = False, lang: str = "en", phone: bool = False) -> Page:
        # phone: a touch screen that reports itself as a mobile device (taps, no hover)
        context = browser.new_context(viewport={"width": width, "height": height},
                                      reduced_motion="no-preference" if motion else "reduce", locale="en-GB",
                                      is_mobile=phone, has_touch=phone)
        context.add_init_script(
            f"try {{ if (!localStorage.getItem('am.lang')) localStorage.setItem('am.lang', {json.dumps(lang)}); }}"
            " catch (e) {}")
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.set_default_timeout(60_000)  # a bound on each wait only: Chromium on a busy machine is slow
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"errors in the page: {errors}"


def shot(page: Page, name: str) -> None:
    """Saves a screenshot of the page under artifacts/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def open_game(page: Page, server: Server, game: dict[str, Any], seats: list[int] | None = None) -> None:
    """Opens the game screen holding the tokens of `seats` (default: every human seat, hot-seat)."""
    tokens = {str(s["seat"]): s["token"] for s in game["seats"]
              if s["token"] and (seats is None or s["seat"] in seats)}
    page.goto(f"{server.url}/")
    page.evaluate("([id, t]) => localStorage.setItem('am.tokens', JSON.stringify({[id]: t}))", [game["id"], tokens])
    page.goto(f"{server.url}/#/game/{game['id']}")
    page.wait_for_function("document.body.dataset.ready === '1'")


def seq(page: Page) -> int:
    return int(page.evaluate("window.__am.seq"))


def acted(page: Page, do: Callable[[], None], steps: int = 1) -> None:
    """Runs `do` (a click or a key) and waits until the screen has `steps` more updates from the server."""
    before = seq(page)
    do()
    page.wait_for_function(f"window.__am.seq >= {before + steps}")
    page.wait_for_function("!document.querySelector('.actionbar .reason')?.textContent?.startsWith('Sending')")
