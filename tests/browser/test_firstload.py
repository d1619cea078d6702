"""The first load on a phone network, in Chromium (not timed: benchmarks/bench_firstload.py times it): hashed
files kept for good and sent compressed, the lobby without the renderer, the web app manifest and its icons, the
service worker (it controls the page from the second load, keeps no API answer, opens the app offline with an
honest message, and takes a new build at the next open without mixing two builds' files)."""

from __future__ import annotations

import json
import re
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import STATIC, Server

HASHED = re.compile(r"^/assets/[\w.-]+-[A-Za-z0-9]{8,10}\.(js|css|woff2|png|svg)$")
EN = json.loads((Path(__file__).resolve().parents[2] / "web/static/i18n/en.json").read_text())
HU = json.loads((Path(__file__).resolve().parents[2] / "web/static/i18n/hu.json").read_text())
WAIT = 60_000  # ms: generous, for a busy machine


def build_of(static: Path) -> dict[str, Any]:
    """The build's own account of itself (version, entry, app shell, files)."""
    return dict(json.loads((static / "build.json").read_text()))


@pytest.fixture
def context(browser: Any) -> Iterator[Any]:
    """A fresh browser context (empty caches, no service worker) on a phone's screen."""
    made = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-GB")
    try:
        yield made
    finally:
        made.close()


def path_of(url: str) -> str:
    return "/" + url.split("//", 1)[1].split("/", 1)[1].split("?")[0]


def until(page: Any, condition: str) -> None:
    """Waits (WAIT at most) until the page's async `condition` (a JS expression, awaited) holds; Playwright's
    wait_for_function takes a promise for a true value, so it cannot wait on one."""
    held = page.evaluate("""async ([condition, wait]) => {
        const check = new Function(`return (async () => (${condition}))();`);
        const end = Date.now() + wait;
        while (Date.now() < end) {
            if (await check()) return true;
            await new Promise((r) => setTimeout(r, 100));
        }
        return false;
    }""", [condition, WAIT])
    assert held, f"not within {WAIT / 1000} s: {condition}"


def caches_are(page: Any, version: str) -> None:
    """Waits until the origin's only cache is `version`'s."""
    until(page, f"(await caches.keys()).join() === 'asteroid-mining-{version}'")


def controlled(page: Any) -> None:
    """Waits for the service worker to have installed (its shell kept) and to control the page."""
    until(page, "(await navigator.serviceWorker.getRegistration())?.active?.state === 'activated'")
    page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=WAIT)
    page.wait_for_selector("#quick-play", timeout=WAIT)


def test_the_lobby_loads_hashed_compressed_files_without_the_renderer(context: Any, server: Server) -> None:
    build = build_of(STATIC)
    page = context.new_page()
    answers: list[Any] = []
    page.on("response", lambda a: answers.append(a))
    page.goto(server.url)
    page.wait_for_selector("#quick-play", timeout=WAIT)
    lobby = {path_of(a.url): a for a in answers}
    assets = {p: a for p, a in lobby.items() if p.startswith("/assets/")}
    assert build["entry"] in {p[1:] for p in assets}
    for path, answer in assets.items():
        assert HASHED.match(path), path
        assert answer.status == 200 and answer.headers["cache-control"] == "public, max-age=31536000, immutable"
        if path.endswith((".js", ".css")):
            assert answer.headers["content-encoding"] == "br", path  # Chromium asks for br, gzip, …
            assert answer.headers["vary"] == "Accept-Encoding"
    page_answer = lobby["/"]
    assert page_answer.headers["cache-control"] == "no-cache" and page_answer.headers["etag"]
    # the renderer (and the game screen) is not loaded by the lobby: only the entry's own files
    game_files = set(page.eval_on_selector("script[data-game]", "s => s.dataset.game.split(' ')"))
    assert game_files and not game_files & {p[1:] for p in assets}
    assert {p[1:] for p in assets if p.endswith(".js")} <= set(build["shell"])
    # gzip for a client that does not take brotli (the file's bytes are the same once decoded)
    entry = f"{server.url}/{build['entry']}"
    gz = context.request.get(entry, headers={"accept-encoding": "gzip"})
    plain = context.request.get(entry, headers={"accept-encoding": "identity"})
    assert gz.headers["content-encoding"] == "gzip" and "content-encoding" not in plain.headers
    assert gz.body() == plain.body()
    # the game screen brings the renderer when it is opened
    page.click("#quick-play")
    page.wait_for_function("document.body.dataset.ready === '1'", timeout=WAIT)
    loaded = {path_of(a.url)[1:] for a in answers}
    assert game_files <= loaded


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height (its IHDR chunk)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


@pytest.mark.parametrize(("lang", "name"), [("en", "Asteroid Mining"), ("hu", "Aszteroidabányászat")])
def test_the_web_app_manifest_and_its_icons(context: Any, server: Server, lang: str, name: str) -> None:
    context.add_init_script(f"localStorage.setItem('am.lang', '{lang}')")
    page = context.new_page()
    page.goto(server.url)
    page.wait_for_selector("#quick-play", timeout=WAIT)
    href = page.eval_on_selector('link[rel="manifest"]', "l => l.href")
    answer = context.request.get(href)
    assert answer.ok and answer.headers["content-type"] == "application/manifest+json"
    assert answer.headers["cache-control"] == "no-cache"
    manifest = answer.json()
    assert manifest["name"] == name == (EN if lang == "en" else HU)["app.name"] and manifest["lang"] == lang
    assert 0 < len(manifest["short_name"]) <= 12
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"]) and manifest["background_color"]
    sizes: dict[tuple[str, str], tuple[int, int]] = {}
    for icon in manifest["icons"]:
        got = context.request.get(f"{server.url}/{icon['src']}")
        assert got.ok and HASHED.match("/" + icon["src"]), icon
        if icon["type"] == "image/png":
            sizes[(icon["sizes"], icon["purpose"])] = png_size(got.body())
    assert sizes == {("192x192", "any"): (192, 192), ("512x512", "any"): (512, 512),
                     ("512x512", "maskable"): (512, 512)}


def test_the_service_worker_controls_the_second_load_and_keeps_no_api_answer(context: Any, server: Server) -> None:
    build = build_of(STATIC)
    page = context.new_page()
    first: list[Any] = []
    page.on("response", lambda a: first.append(a))
    page.goto(server.url)
    page.wait_for_selector("#quick-play", timeout=WAIT)
    assert first and not any(a.from_service_worker for a in first)  # the first load is the network's alone
    controlled(page)
    # a third load: every hashed file from the worker's cache, none from the network
    answers: list[Any] = []
    page.on("response", lambda a: answers.append(a))
    page.reload()
    page.wait_for_selector("#quick-play", timeout=WAIT)
    hashed = [a for a in answers if path_of(a.url).startswith("/assets/")]
    assert hashed and all(a.from_service_worker for a in hashed), [a.url for a in hashed if not a.from_service_worker]
    caches_are(page, build["version"])
    kept = page.evaluate("""async () => {
        const names = await caches.keys();
        const urls = [];
        for (const name of names) for (const r of await (await caches.open(name)).keys()) urls.push(r.url);
        return { names, urls };
    }""")
    assert kept["names"] == [f"asteroid-mining-{build['version']}"]
    paths = {path_of(u) for u in kept["urls"]}
    assert "/" in paths and {f"/{p}" for p in build["shell"] if p != "./"} <= paths
    assert not any(p.startswith("/api/") or "token" in u for p, u in zip(paths, kept["urls"], strict=False))


def test_offline_the_app_opens_and_says_games_need_a_connection(context: Any, server: Server) -> None:
    page = context.new_page()
    page.goto(server.url)
    page.wait_for_selector("#quick-play", timeout=WAIT)
    controlled(page)
    context.set_offline(True)
    try:
        page.reload()
        card = page.wait_for_selector("[data-offline]", timeout=WAIT)
        assert EN["offline.title"] in card.inner_text() and EN["offline.text"] in card.inner_text()
        page.evaluate("localStorage.setItem('am.lang', 'hu')")
        page.reload()
        card = page.wait_for_selector("[data-offline]", timeout=WAIT)
        assert HU["offline.title"] in card.inner_text()
        # a game is not to be had offline: the quick game says so too, instead of failing
        page.goto(f"{server.url}/#/quick")
        page.wait_for_selector("[data-offline]", timeout=WAIT)
    finally:
        context.set_offline(False)
    # back online, the lobby comes back by itself
    page.goto(server.url)
    page.wait_for_selector("#quick-play", timeout=WAIT)


def second_build(first: Path, into: Path) -> str:
    """A second build made from `first`: its entry changed (and so renamed), the page and the worker naming the
    new entry and version. The new version."""
    shutil.copytree(first, into)
    build = build_of(first)
    old_entry = build["entry"]
    new_entry = re.sub(r"-[A-Za-z0-9]+\.js$", "-SECOND00.js", old_entry)
    version = "second0000"
    code = (first / old_entry).read_text() + "\nwindow.__secondBuild = true;\n"
    for stale in (old_entry, "index.html", "sw.js", "build.json"):
        for suffix in ("", ".br", ".gz"):
            (into / f"{stale}{suffix}").unlink(missing_ok=True)
    (into / new_entry).write_text(code)
    (into / "index.html").write_text((first / "index.html").read_text().replace(old_entry, new_entry))
    (into / "sw.js").write_text((first / "sw.js").read_text().replace(build["version"], version)
                                .replace(old_entry, new_entry))
    build.update(version=version, entry=new_entry, shell=[new_entry if p == old_entry else p for p in build["shell"]])
    (into / "build.json").write_text(json.dumps(build))
    return version


def test_a_new_build_is_used_at_the_next_open_never_mixed(context: Any, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    first = tmp_path / "first"
    shutil.copytree(STATIC, first)
    served = tmp_path / "served"
    shutil.copytree(first, served)
    second = tmp_path / "second"
    version = second_build(first, second)
    monkeypatch.setenv("ASTEROID_MINING_STATIC_DIR", str(served))
    data = tmp_path / "data"
    data.mkdir()
    running = Server(data)
    try:
        page = context.new_page()
        page.goto(running.url)
        page.wait_for_selector("#quick-play", timeout=WAIT)
        controlled(page)
        assert page.evaluate("window.__secondBuild") is None
        # the server's files are replaced by the second build
        shutil.rmtree(served)
        shutil.copytree(second, served)
        page.close()
        # the next open: the second build's page, and only its entry
        page = context.new_page()
        scripts: list[str] = []
        page.on("request", lambda r: scripts.append(path_of(r.url)) if r.resource_type == "script" else None)
        page.goto(running.url)
        page.wait_for_selector("#quick-play", timeout=WAIT)
        assert page.evaluate("window.__secondBuild") is True
        assert f"/{build_of(first)['entry']}" not in scripts
        # the second build's worker takes over and drops the first build's cache
        caches_are(page, version)
        # offline, the kept page is the second build's, with its own files
        context.set_offline(True)
        try:
            page.reload()
            page.wait_for_selector("[data-offline]", timeout=WAIT)
            assert page.evaluate("window.__secondBuild") is True
        finally:
            context.set_offline(False)
    finally:
        running.stop()
