"""The first load on a phone network, measured in headless Chromium against a real server.

    .venv/bin/python benchmarks/bench_firstload.py [--runs 3] [--json out.json] [--static DIR] [--trace FILE]

The phone: a 390×844 touch screen, the CPU slowed 4× (`Emulation.setCPUThrottlingRate`) and Lighthouse's mobile
network (`Network.emulateNetworkConditions`: 150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up). Measured, each
in a fresh browser context (an empty cache) unless said otherwise:

- cold lobby: the page opened until "Play now" is on the page (target ≤ 3.0 s, ≤ 300 KB on the wire);
- cold game: `#/quick` opened (the quick game: made, then its screen loaded) until the game's map is drawn
  (target ≤ 5.0 s); and the same from the lobby, "Play now" pressed as soon as it shows;
- warm lobby: the lobby opened again in the context of a cold lobby, once its service worker has kept the app
  shell (target ≤ 10 KB on the wire);
- large belt: a game on the shipped `large` belt (2,000 asteroids) opened until its map is drawn, and the bytes
  its WebSocket brought meanwhile — the handshake's answer and the game's first `state` (target ≤ 150 KB on the
  wire; the state is about 570 KB of JSON, compressed by the server for a browser that offers permessage-deflate).

Times are the page's own (`performance.now()`, from the navigation's start). Bytes on the wire are counted by a
TCP relay between the browser and the server (every byte the server sent, headers included: the page's requests,
the service worker's and the WebSockets'). `--static DIR` serves another build of the client, e.g. an older one.
`--trace FILE` then opens one more cold game and keeps its Chromium performance trace (from opening the page until
its map is drawn; open it in DevTools' Performance panel or https://ui.perfetto.dev): where the time goes,
request by request and task by task. Tracing slows the page, so that run is not among the figures.
The server runs in a temporary directory on a free port. Needs the built client (`make web`) and Chromium at
/usr/bin/chromium (or ASTEROID_MINING_CHROMIUM).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import BrowserContext, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("ASTEROID_MINING_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]
LATENCY_MS = 150
DOWN_BYTES_S = 1.6e6 / 8
UP_BYTES_S = 750e3 / 8
CPU_SLOWDOWN = 4
TARGETS = {"cold_lobby_s": 3.0, "cold_lobby_kb": 300, "cold_game_s": 5.0, "warm_lobby_kb": 10, "large_state_kb": 150}

# When "Play now" entered the page (the lobby's big button), in the page's own time.
PROBE = """
new MutationObserver((_, observer) => {
  if (document.getElementById("quick-play")) { window.__playNow = performance.now(); observer.disconnect(); }
}).observe(document, { childList: true, subtree: true });
"""


class Relay:
    """A TCP relay on a free port of 127.0.0.1 to `port`, counting the bytes each way (in its own thread)."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.down = 0
        self.up = 0
        self.ws_down = 0
        """The bytes sent down the WebSockets of games (their handshakes' answers and their messages)."""
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.port = 0

        def run() -> None:
            server = self.loop.run_until_complete(asyncio.start_server(self._client, "127.0.0.1", 0))
            self.port = server.sockets[0].getsockname()[1]
            ready.set()
            self.loop.run_forever()  # until stop()
            server.close()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        ready.wait(10)

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return

        websocket = False  # a game's WebSocket, told by the connection's first request
        first = True

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter, downstream: bool) -> None:
            nonlocal websocket, first
            try:
                while data := await src.read(65536):
                    if not downstream and first:
                        first = False
                        line = data.split(b"\r\n", 1)[0].split(b" ")
                        websocket = len(line) > 1 and line[1].startswith(b"/api/games/") and b"/ws" in line[1]
                    if downstream:
                        self.down += len(data)
                        if websocket:
                            self.ws_down += len(data)
                    else:
                        self.up += len(data)
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                with contextlib.suppress(Exception):
                    dst.close()

        await asyncio.gather(pipe(reader, up_writer, False), pipe(up_reader, writer, True))

    def stop(self) -> None:
        """Stops its loop (open connections die with the thread)."""
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


@contextlib.contextmanager
def server(static: Path | None) -> Iterator[int]:
    """A real server in a temporary directory; its port (the system's free one, read from its log)."""
    with tempfile.TemporaryDirectory(prefix="am-firstload-") as data:
        env = dict(os.environ)
        if static is not None:
            env["ASTEROID_MINING_STATIC_DIR"] = str(static)
        log = Path(data) / "server.log"
        with log.open("w") as out:
            process = subprocess.Popen([sys.executable, "-m", "asteroid_mining.server", "--host", "127.0.0.1",
                                        "--port", "0", "--data", str(Path(data) / "games")],
                                       stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
        try:
            deadline = time.monotonic() + 60
            port = 0
            while time.monotonic() < deadline and process.poll() is None:
                found = re.search(r"Uvicorn running on http://\S+:(\d+)", log.read_text())
                port = int(found.group(1)) if found else 0
                with contextlib.suppress(httpx.HTTPError):
                    if port and httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                        break
                time.sleep(0.1)
            else:
                raise RuntimeError(f"the server did not start:\n{log.read_text()}")
            yield port
        finally:
            process.terminate()
            process.wait(10)


def phone(context: BrowserContext) -> Page:
    """A page of `context` on the phone's network and CPU."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {"offline": False, "latency": LATENCY_MS,
                                                  "downloadThroughput": DOWN_BYTES_S, "uploadThroughput": UP_BYTES_S})
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    return page


def new_context(browser: Any) -> BrowserContext:
    context: BrowserContext = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=3,
                                                  is_mobile=True, has_touch=True, locale="en-GB")
    context.add_init_script(PROBE)
    return context


def lobby(page: Page, url: str, relay: Relay) -> dict[str, float]:
    """Opens the lobby; seconds until "Play now" is on the page, and KB the server sent meanwhile."""
    before = relay.down
    page.goto(url, wait_until="commit")
    page.wait_for_function("window.__playNow !== undefined", timeout=120_000)
    seconds = page.evaluate("window.__playNow") / 1000
    return {"s": seconds, "kb": (relay.down - before) / 1000}


# What a trace records: the page's tasks, scripts, layout and paint, its requests, and the GPU process's work.
TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute", "blink.user_timing",
                    "loading", "netlog", "toplevel", "gpu"]


def game(page: Page, url: str, relay: Relay, from_lobby: bool, trace: Path | None = None) -> dict[str, float]:
    """Opens the quick game (`#/quick`, or the lobby and then "Play now"); seconds until its map is drawn, KB on
    the wire, and KB of them down the game's WebSocket (its first state). `trace`: a Chromium trace of it there."""
    before, before_ws = relay.down, relay.ws_down
    browser = page.context.browser
    if trace is not None and browser is not None:
        browser.start_tracing(page=page, path=str(trace), screenshots=True, categories=TRACE_CATEGORIES)
    if from_lobby:
        page.goto(url, wait_until="commit")
        page.wait_for_selector("#quick-play", timeout=120_000)
        page.click("#quick-play")
    else:
        page.goto(f"{url}/#/quick", wait_until="commit")
    page.wait_for_function("document.body.dataset.ready === '1' && window.__am?.ready", timeout=60_000)
    if trace is not None and browser is not None:
        browser.stop_tracing()
        print(f"trace of a cold game: {trace}", file=sys.stderr)
    seconds = page.evaluate("window.__am.readyAt") / 1000
    return {"s": seconds, "kb": (relay.down - before) / 1000, "ws_kb": (relay.ws_down - before_ws) / 1000}


def large_game(browser: Any, url: str, api: str, relay: Relay, seed: int) -> dict[str, float]:
    """Opens a new game on the `large` belt, its seat's token already in the browser (as after creating it in the
    lobby); seconds until its map is drawn, and KB down its WebSocket meanwhile (the first state)."""
    answer = httpx.post(f"{api}/api/games", json={"belt": "large", "seats": 1, "settlers_per_seat": 3, "seed": seed},
                        timeout=120)
    answer.raise_for_status()
    made = answer.json()
    tokens = json.dumps({made["id"]: {"1": made["seats"][0]["token"]}})
    context = new_context(browser)
    context.add_init_script(f"localStorage.setItem('am.tokens', {json.dumps(tokens)});")
    try:
        page = phone(context)
        before = relay.ws_down
        page.goto(f"{url}/#/game/{made['id']}", wait_until="commit")
        page.wait_for_function("document.body.dataset.ready === '1' && window.__am?.ready", timeout=180_000)
        seconds = page.evaluate("window.__am.readyAt") / 1000
        time.sleep(0.5)  # the relay has passed on what the server sent (nothing more comes: nobody acts)
        return {"s": seconds, "ws_kb": (relay.ws_down - before) / 1000}
    finally:
        context.close()


def summary(runs: list[dict[str, float]]) -> dict[str, Any]:
    """Median and range of each figure of the runs."""
    return {key: {"median": statistics.median(r[key] for r in runs), "min": min(r[key] for r in runs),
                  "max": max(r[key] for r in runs)} for key in runs[0]}


def measure(browser: Any, url: str, api: str, relay: Relay, runs: int, worker: bool) -> dict[str, Any]:
    """Every figure, `runs` times each (`worker`: the build has a service worker, waited for before a warm load)."""
    large: list[dict[str, float]] = []
    cold_lobby: list[dict[str, float]] = []
    warm_lobby: list[dict[str, float]] = []
    cold_game: list[dict[str, float]] = []
    lobby_game: list[dict[str, float]] = []
    for run in range(runs):
        large.append(large_game(browser, url, api, relay, 100 + run))
        context = new_context(browser)
        try:
            page = phone(context)
            cold_lobby.append(lobby(page, url, relay))
            # the service worker has kept the shell (a player comes back later, not within the second)
            if worker:
                # (evaluate awaits a promise; wait_for_function would take the promise itself for a true value)
                page.evaluate("navigator.serviceWorker.ready.then(() => true)")
            page.close()
            time.sleep(0.5)  # the connections of the closed page wind down before the count starts
            warm_lobby.append(lobby(phone(context), url, relay))
        finally:
            context.close()
        for from_lobby, into in ((False, cold_game), (True, lobby_game)):
            context = new_context(browser)
            try:
                into.append(game(phone(context), url, relay, from_lobby))
            finally:
                context.close()
    return {"cold_lobby": summary(cold_lobby), "warm_lobby": summary(warm_lobby),
            "cold_game": summary(cold_game), "cold_game_from_lobby": summary(lobby_game), "large": summary(large)}


def report(results: dict[str, Any]) -> None:
    """Prints the figures beside their targets."""
    def line(what: str, figures: dict[str, Any], key: str, unit: str, target: str = "") -> None:
        f = figures[key]
        print(f"  {what:<44} {f['median']:8.2f} {unit:<3} ({f['min']:.2f}–{f['max']:.2f}) {target}")

    print(f"phone 390×844, CPU ×{CPU_SLOWDOWN}, {LATENCY_MS} ms round trip, 1.6 Mbit/s down, 750 kbit/s up; "
          f"medians of {results['runs']} runs (range)")
    line("cold lobby: \"Play now\" shown", results["cold_lobby"], "s", "s", f"target ≤ {TARGETS['cold_lobby_s']}")
    line("cold lobby: on the wire", results["cold_lobby"], "kb", "KB", f"target ≤ {TARGETS['cold_lobby_kb']}")
    line("cold game (#/quick): map drawn", results["cold_game"], "s", "s", f"target ≤ {TARGETS['cold_game_s']}")
    line("cold game (#/quick): on the wire", results["cold_game"], "kb", "KB")
    line("cold game (#/quick): its WebSocket (first state)", results["cold_game"], "ws_kb", "KB")
    line("lobby, then Play now: map drawn", results["cold_game_from_lobby"], "s", "s")
    line("lobby, then Play now: on the wire", results["cold_game_from_lobby"], "kb", "KB")
    line("warm lobby: \"Play now\" shown", results["warm_lobby"], "s", "s")
    line("warm lobby: on the wire", results["warm_lobby"], "kb", "KB", f"target ≤ {TARGETS['warm_lobby_kb']}")
    line("large belt: map drawn", results["large"], "s", "s")
    line("large belt: its WebSocket (first state)", results["large"], "ws_kb", "KB",
         f"target ≤ {TARGETS['large_state_kb']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write the figures here too")
    parser.add_argument("--static", type=Path, help="serve this build of the client instead of the package's")
    parser.add_argument("--trace", type=Path, help="write a Chromium trace of the first cold game here (JSON)")
    args = parser.parse_args()
    static = args.static or ROOT / "src/asteroid_mining/server/static"
    if not (static / "index.html").is_file():
        print(f"no built client in {static}: run `make web` first", file=sys.stderr)
        return 1
    with server(args.static) as port, sync_playwright() as p:
        relay = Relay(port)
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            results: dict[str, Any] = {"runs": args.runs, "load_before": os.getloadavg()[0]}
            url = f"http://127.0.0.1:{relay.port}"
            results.update(measure(browser, url, f"http://127.0.0.1:{port}", relay, args.runs,
                                   (static / "sw.js").is_file()))
            if args.trace:  # one more cold game, traced (not among the figures: tracing slows the page)
                context = new_context(browser)
                try:
                    game(phone(context), url, relay, False, args.trace)
                finally:
                    context.close()
            results["load_after"] = os.getloadavg()[0]
        finally:
            browser.close()
            relay.stop()
    report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
