"""Browser client performance, measured in headless Chromium against a real server on 127.0.0.1.

    .venv/bin/python benchmarks/bench_browser.py [--runs 5] [--frames 240] [--json out.json]

- time to an interactive game screen on a `standard` belt (page load → belt drawn, panels filled; target 1.5 s);
- frame time while panning and zooming a `large` belt, zoomed in to play and with the whole belt in view: the
  work of one frame in the page (camera, culling, labels, issuing the WebGL draw; target: median 16 ms) and the
  interval between frames, which also counts the software rasteriser's drawing in the GPU process;
- click to updated screen: a click on a destination until the screen shows the server's answer (target 100 ms);
- on a phone (390×844, touch, the CPU slowed ×4 by Chromium's `Emulation.setCPUThrottlingRate`): time to an
  interactive `standard` game screen (target 2 s), a tap to the updated screen (target 150 ms), and on `large`
  the page's work to select a destination while standing on a hub of about 290 neighbours (target 50 ms).

Needs the built client (`make web`) and Chromium at /usr/bin/chromium (or ASTEROID_MINING_CHROMIUM).
Headless Chromium draws WebGL in software (SwiftShader): a real GPU only makes the figures better.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("ASTEROID_MINING_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"]

FRAME_PROBE = """
async ([frames, whole]) => {
  const scene = window.__am.scene;
  const cam = scene.camera;
  const work = [], gaps = [];
  let last = 0;
  // Each frame of the scene: its work (camera, culling, labels, issuing the draw) and the interval since the last.
  scene.onFrame = (start, end) => { work.push(end - start); if (last) gaps.push(start - last); last = start; };
  if (whole) scene.fitAll(false); else cam.lookAt(cam.x, cam.y, 0.8);
  const zoom0 = cam.zoom;
  await new Promise((done) => {
    let i = 0;
    const step = () => {
      if (i++ >= frames) return done();
      const phase = i / frames * Math.PI * 4;
      cam.panBy(Math.cos(phase) * 14, Math.sin(phase) * 9);
      cam.zoomAt(i < frames / 2 ? 1.006 : 1 / 1.006);
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
  scene.onFrame = null;
  return { work, gaps, zoom: [zoom0, cam.zoom] };
}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def server() -> Any:
    data = tempfile.mkdtemp(prefix="am-bench-")
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "asteroid_mining.server", "--port", str(port), "--data", data],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/api/health", timeout=1).status_code == 200:
                    break
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(10)


def create(url: str, belt: str, seed: int = 7) -> dict[str, Any]:
    answer = httpx.post(f"{url}/api/games", json={"seats": 1, "settlers_per_seat": 2, "belt": belt, "seed": seed},
                        timeout=60)
    answer.raise_for_status()
    return dict(answer.json())


def open_game(page: Page, url: str, game: dict[str, Any]) -> float:
    """Loads the game screen from scratch; the time from navigation to the interactive screen (ms)."""
    tokens = {str(s["seat"]): s["token"] for s in game["seats"]}
    page.goto(f"{url}/favicon.svg")
    page.evaluate("([id, t]) => { localStorage.setItem('am.tokens', JSON.stringify({[id]: t})); "
                  "localStorage.setItem('am.lang', 'en'); }", [game["id"], tokens])
    page.goto(f"{url}/#/game/{game['id']}")
    page.wait_for_function("window.__am && window.__am.ready", timeout=60_000)
    # The first frame with the belt on it has been drawn once the next animation frame comes.
    return float(page.evaluate("new Promise(r => requestAnimationFrame(() => r(performance.now())))"))


# Selecting the next destination (the key N, as a tap on a row of the list does): the page's work is the handler's
# own time plus the work of the next frame (camera, labels, issuing the draw), without the wait for that frame.
SELECT_PROBE = """
async (n) => {
  const scene = window.__am.scene;
  let frame = 0;
  scene.onFrame = (start, end) => { frame = end - start; };
  const times = [];
  for (let i = 0; i < n; i++) {
    await new Promise((r) => requestAnimationFrame(() => r()));
    const t0 = performance.now();
    document.dispatchEvent(new KeyboardEvent("keydown", { key: "n", bubbles: true }));
    const handler = performance.now() - t0;
    frame = -1;
    while (frame < 0) await new Promise((r) => requestAnimationFrame(() => r()));
    times.push(handler + frame);
  }
  scene.onFrame = null;
  return times;
}
"""


def hub_belt(seed: int = 7) -> tuple[dict[str, Any], str, int]:
    """The `large` belt of `seed` starting on its hub whose degree is the smallest of at least 290."""
    from asteroid_mining.server.belts import checked_belt
    from asteroid_mining.server.config import Settings

    _, doc = checked_belt("large", seed, Settings())
    degree: dict[str, int] = {}
    for a, b in doc["links"]:
        degree[a] = degree.get(a, 0) + 1
        degree[b] = degree.get(b, 0) + 1
    hub = min((d, aid) for aid, d in degree.items() if d >= 290)[1]
    return {**doc, "start": hub}, hub, degree[hub]


def phone(browser: Any, url: str, runs: int, taps: int) -> dict[str, Any]:
    """The phone figures: a touch viewport, the page's CPU slowed four times."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  device_scale_factor=2)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    out: dict[str, Any] = {}
    open_game(page, url, create(url, "standard"))  # warm the HTTP cache
    loads = [open_game(page, url, create(url, "standard", seed=20 + i)) for i in range(runs)]
    out["interactive_ms"] = {"median": statistics.median(loads), "max": max(loads), "runs": loads}
    for i in range(taps):
        before = int(page.evaluate("window.__am.seq"))
        page.locator(".actionbar .action-wait").tap()
        page.wait_for_function(f"window.__am.seq > {before} && window.__am.acts.length > {i}")
    acts = [float(x) for x in page.evaluate("window.__am.acts")]
    out["tap_to_screen_ms"] = {"median": statistics.median(acts), "p95": pct(acts, 0.95)}
    rtts = [float(x) for x in page.evaluate("window.__am.rtts")]
    out["tap_server_ms"] = {"median": statistics.median(rtts), "p95": pct(rtts, 0.95)}
    work = [float(x) for x in page.evaluate("window.__am.updates")]
    out["update_work_ms"] = {"median": statistics.median(work), "p95": pct(work, 0.95)}
    belt, hub, degree = hub_belt()
    answer = httpx.post(f"{url}/api/games", json={"seats": 1, "settlers_per_seat": 2, "belt": belt, "seed": 7},
                        timeout=60)
    answer.raise_for_status()
    open_game(page, url, dict(answer.json()))
    select = [float(x) for x in page.evaluate(SELECT_PROBE, 20)]
    out["hub"] = {"id": hub, "degree": degree}
    out["hub_select_ms"] = {"median": statistics.median(select), "p95": pct(select, 0.95)}
    context.close()
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--frames", type=int, default=240)
    parser.add_argument("--clicks", type=int, default=20)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--phone-only", action="store_true", help="only the phone figures")
    args = parser.parse_args()
    if not (ROOT / "src/asteroid_mining/server/static/app.js").is_file():
        print("the browser client is not built: run `make web` first", file=sys.stderr)
        return 2
    results: dict[str, Any] = {}
    with server() as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        page = context.new_page()

        results["phone"] = phone(browser, url, args.runs, args.clicks)
        if args.phone_only:
            browser.close()
            return report_phone(results, args)
        standard = create(url, "standard")
        open_game(page, url, standard)  # warm the HTTP cache as a returning player would have it
        loads = [open_game(page, url, create(url, "standard", seed=7 + i)) for i in range(args.runs)]
        results["interactive_ms"] = {"median": statistics.median(loads), "max": max(loads), "runs": loads}

        clicks: list[float] = []
        open_game(page, url, standard)
        for i in range(args.clicks):
            before = int(page.evaluate("window.__am.seq"))
            page.locator(".dest button").first.click()
            page.wait_for_function(f"window.__am.seq > {before} && window.__am.acts.length > {i}")
        clicks = [float(x) for x in page.evaluate("window.__am.acts")]
        results["click_to_screen_ms"] = {"median": statistics.median(clicks), "p95": pct(clicks, 0.95)}

        large = create(url, "large")
        results["large_interactive_ms"] = open_game(page, url, large)
        for name, whole in (("play", False), ("whole", True)):
            probe = page.evaluate(FRAME_PROBE, [args.frames, whole])
            work, gaps = probe["work"], probe["gaps"]
            results[f"large_{name}_frame_work_ms"] = {"median": statistics.median(work), "p95": pct(work, 0.95)}
            results[f"large_{name}_frame_interval_ms"] = {"median": statistics.median(gaps), "p95": pct(gaps, 0.95)}
        results["renderer"] = page.evaluate(
            "(() => { const gl = document.createElement('canvas').getContext('webgl2');"
            " const i = gl && gl.getExtension('WEBGL_debug_renderer_info');"
            " return i ? gl.getParameter(i.UNMASKED_RENDERER_WEBGL) : 'unknown'; })()")
        browser.close()

    def row(name: str, value: float, target: str) -> None:
        print(f"  {name:<52} {value:8.1f} ms   {target}")

    print(f"browser client, headless Chromium ({results['renderer']}), 1280×720")
    row("time to interactive, standard (median of runs)", results["interactive_ms"]["median"], "target ≤ 1500")
    row("time to interactive, large", results["large_interactive_ms"], "")
    for name, what in (("play", "zoomed to play (0.8×)"), ("whole", "the whole belt in view")):
        work, gaps = results[f"large_{name}_frame_work_ms"], results[f"large_{name}_frame_interval_ms"]
        row(f"large, {what}: frame work median / p95", work["median"], f"p95 {work['p95']:.1f}; target ≤ 16")
        row(f"large, {what}: frame interval median / p95", gaps["median"], f"p95 {gaps['p95']:.1f}")
    row("click to updated screen (median)", results["click_to_screen_ms"]["median"], "target ≤ 100")
    row("click to updated screen (p95)", results["click_to_screen_ms"]["p95"], "")
    return report_phone(results, args)


def report_phone(results: dict[str, Any], args: argparse.Namespace) -> int:
    """Prints the phone figures (and writes every figure to --json)."""
    ph = results["phone"]
    print("phone 390×844, touch, CPU slowed ×4")
    print(f"  {'time to interactive, standard (median of runs)':<52} {ph['interactive_ms']['median']:8.1f} ms   "
          "target ≤ 2000")
    print(f"  {'tap to updated screen (median / p95)':<52} {ph['tap_to_screen_ms']['median']:8.1f} ms   "
          f"p95 {ph['tap_to_screen_ms']['p95']:.1f}; target ≤ 150")
    print(f"  {'  of which the server and the network (median / p95)':<52} {ph['tap_server_ms']['median']:8.1f} ms   "
          f"p95 {ph['tap_server_ms']['p95']:.1f}")
    print(f"  {'the page work of one update (median / p95)':<52} {ph['update_work_ms']['median']:8.1f} ms   "
          f"p95 {ph['update_work_ms']['p95']:.1f}")
    what = f"large, select a destination on hub {ph['hub']['id']} ({ph['hub']['degree']} neighbours)"
    print(f"  {what:<52} {ph['hub_select_ms']['median']:8.1f} ms   p95 {ph['hub_select_ms']['p95']:.1f}; target ≤ 50")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
