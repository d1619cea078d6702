"""Browser client performance, measured in headless Chromium against a real server on 127.0.0.1.

    .venv/bin/python benchmarks/bench_browser.py [--runs 5] [--frames 240] [--clicks 20] [--json out.json]
        [--phone-only] [--static DIR] [--cpu]

- time to an interactive game screen on a `standard` belt (page load → belt drawn, panels filled; target 1.5 s);
- frame time while panning and zooming a `large` belt, zoomed in to play and with the whole belt in view: the
  work of one frame in the page (camera, culling, labels, issuing the WebGL draw; target: median 16 ms) and the
  interval between frames, which also counts the software rasteriser's drawing in the GPU process;
- click to updated screen: a click on a destination until the screen shows the server's answer (target 100 ms);
- on a phone (390×844, touch, the CPU slowed ×4 by Chromium's `Emulation.setCPUThrottlingRate`): time to an
  interactive `standard` game screen (target 2 s), a tap to the updated screen (target 150 ms), and on `large`
  the page's work to select a destination while standing on a hub of about 290 neighbours (target 50 ms).

A click or a tap is timed by a probe the page loads before the client (so any build of the client is timed the
same way): from the input's own time stamp (the button or the finger released; the time the event waited for the
page counts) to the end of the first frame drawn after the server's answer arrived — the first task after that
frame's animation callbacks, style, layout, paint and commit, in which the map's new picture is handed over to the
screen. Clicks and taps are dispatched as bare input events at the button's centre, one as soon as the previous
answer is on screen. `--static DIR` serves another build of the client (e.g. an older one, to compare).

`--cpu` adds figures that the machine's load hardly moves, to compare two builds on a busy machine: the CPU time
of the page's main thread (its thread time in a Chromium trace, not the clock's) for one tap and its update on the
phone, of which style and layout (and how many layouts a script forced), and for one frame while panning and
zooming `large` zoomed in to play. They are taken in passes of their own after the others (a trace slows the page).

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

# Loaded before the client: times each action from its input to the frame that shows the server's answer.
# (The answer's frame: its animation callbacks run, then style, layout, paint and the commit that hands the map's
# picture to the screen, all in one task; the message posted from a callback is taken in the next task.)
TAP_PROBE = """
(() => {
  const probe = window.__tapProbe = { taps: [] };
  let input = -Infinity, pending = null;
  document.addEventListener("pointerup", (e) => { input = e.timeStamp; }, { capture: true, passive: true });
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      // Added before the client's own handler, so it runs first: the answer's arrival.
      this.addEventListener("message", (e) => {
        if (!pending || typeof e.data !== "string" || !e.data.includes('"ref"')) return;
        const m = JSON.parse(e.data);
        if (m.ref !== pending.ref || (m.type !== "update" && m.type !== "error")) return;
        const tap = { ...pending, received: performance.now(), type: m.type };
        pending = null;
        requestAnimationFrame(() => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => {
            tap.shown = performance.now();
            probe.taps.push(tap);
            channel.port1.close();
          };
          channel.port2.postMessage(null);
        });
      });
    }
    send(data) {
      const sent = performance.now();
      if (typeof data === "string" && data.includes('"act"')) {
        const m = JSON.parse(data);
        if (m.type === "act") pending = { ref: m.ref, sent, input: sent - input < 1000 ? input : sent };
      }
      return super.send(data);
    }
  };
})();
"""

# Calls `hook(start, end)` after each frame of the scene; returns the function that stops it. Clients whose scene
# runs its own frames say so with `onFrame`; older ones drew from PixiJS's ticker.
FRAME_HOOK = """(scene, hook) => {
  if ("onFrame" in scene) {
    scene.onFrame = hook;
    return () => { scene.onFrame = null; };
  }
  let start = 0;
  const begin = () => { start = performance.now(); };
  const end = () => hook(start, performance.now());
  scene.app.ticker.add(begin, null, 50);
  scene.app.ticker.add(end, null, -50);
  return () => { scene.app.ticker.remove(begin); scene.app.ticker.remove(end); };
}"""

FRAME_PROBE = """
async ([frames, whole]) => {
  const frameHook = FRAME_HOOK;
  const scene = window.__am.scene;
  const cam = scene.camera;
  const work = [], gaps = [];
  let last = 0;
  // Each frame of the scene: its work (camera, culling, labels, issuing the draw) and the interval since the last.
  const stop = frameHook(scene, (start, end) => {
    work.push(end - start);
    if (last) gaps.push(start - last);
    last = start;
  });
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
  stop();
  return { work, gaps, zoom: [zoom0, cam.zoom] };
}
""".replace("FRAME_HOOK", FRAME_HOOK)


# What a trace records for --cpu: the page's tasks, scripts, style, layout and paint, with their thread times.
CPU_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "v8.execute", "toplevel"]
# A script's own tasks: a layout or style recalculation inside one of these was forced by the script.
SCRIPT_EVENTS = {"FunctionCall", "EventDispatch", "FireAnimationFrame", "TimerFire", "v8.callFunction"}


def main_thread_cpu(trace: bytes) -> dict[str, float]:
    """The page's main thread in a Chromium trace: the thread time (CPU ms) of its tasks, of style and layout, and
    the number of layouts and style recalculations a script forced (read while it ran)."""
    data = json.loads(trace)
    events = data["traceEvents"] if isinstance(data, dict) else data
    names = {(e["pid"], e["tid"]): e["args"].get("name") for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for e in events:
        if e.get("ph") == "X" and names.get((e.get("pid"), e.get("tid"))) == "CrRendererMain":
            spans.setdefault((e["pid"], e["tid"]), []).append(e)
    # the page's renderer: the main thread that worked most (another renderer may be an idle tab)
    busiest = max(spans.values(), key=lambda es: sum(e.get("tdur", 0) for e in es if e["name"] == "RunTask"))
    busiest.sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
    out = {"tasks_ms": 0.0, "style_layout_ms": 0.0, "forced_layouts": 0.0}
    stack: list[dict[str, Any]] = []
    for e in busiest:
        while stack and stack[-1]["ts"] + stack[-1].get("dur", 0) <= e["ts"]:
            stack.pop()
        cpu = e.get("tdur", 0) / 1000
        if e["name"] == "RunTask" and not any(s["name"] == "RunTask" for s in stack):
            out["tasks_ms"] += cpu  # top-level tasks only: a nested one is inside its parent's time
        elif e["name"] in ("Layout", "UpdateLayoutTree"):
            out["style_layout_ms"] += cpu
            if e["name"] == "Layout" and any(s["name"] in SCRIPT_EVENTS for s in stack):
                out["forced_layouts"] += 1
        stack.append(e)
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def server(static: Path | None = None) -> Any:
    data = tempfile.mkdtemp(prefix="am-bench-")
    port = free_port()
    env = dict(os.environ)
    if static is not None:
        env["ASTEROID_MINING_STATIC_DIR"] = str(static)
    process = subprocess.Popen([sys.executable, "-m", "asteroid_mining.server", "--port", str(port), "--data", data],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=env)
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
  const frameHook = FRAME_HOOK;
  const scene = window.__am.scene;
  let frame = 0;
  const stop = frameHook(scene, (start, end) => { frame = end - start; });
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
  stop();
  return times;
}
""".replace("FRAME_HOOK", FRAME_HOOK)


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


def timed_actions(page: Page, selector: str, n: int, touch: bool) -> list[dict[str, float]]:
    """Presses the first element matching `selector` n times (a tap or a mouse click at its centre, each as soon as
    the previous answer is on screen); the probe's times of each (ms, performance.now())."""
    start = int(page.evaluate("window.__tapProbe.taps.length"))
    for i in range(n):
        box = page.locator(selector).first.bounding_box()
        assert box is not None, f"nothing to press: {selector}"
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        if touch:
            page.touchscreen.tap(x, y)
        else:
            page.mouse.click(x, y)
        page.wait_for_function(f"window.__tapProbe.taps.length > {start + i}", timeout=30_000)
    taps = list(page.evaluate("window.__tapProbe.taps"))[start:]
    refused = [t for t in taps if t["type"] != "update"]
    assert not refused, f"the server refused {len(refused)} of the actions"
    return taps


def action_figures(taps: list[dict[str, float]]) -> dict[str, Any]:
    """Input to screen, and its parts, over a series of actions: median, p90, min, max (ms)."""
    def stats(values: list[float]) -> dict[str, float]:
        return {"median": statistics.median(values), "p90": pct(values, 0.9), "min": min(values), "max": max(values)}

    return {
        "n": len(taps),
        "each": taps,
        "to_screen": stats([t["shown"] - t["input"] for t in taps]),
        "input_to_sent": stats([t["sent"] - t["input"] for t in taps]),
        "sent_to_received": stats([t["received"] - t["sent"] for t in taps]),
        "received_to_shown": stats([t["shown"] - t["received"] for t in taps]),
    }


def quality(page: Page) -> str:
    """How the client draws the belt now (resolution; pulse), when it says."""
    q = page.evaluate("(() => { const s = window.__am && window.__am.scene;"
                      " return s && s.resolution ? [s.resolution, s.pulsing] : null; })()")
    return f"resolution {q[0]}, pulse {'on' if q[1] else 'off'}" if q else "not reported"


def phone(browser: Any, url: str, runs: int, taps: int, cpu: bool = False) -> dict[str, Any]:
    """The phone figures: a touch viewport, the page's CPU slowed four times."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  device_scale_factor=2)
    context.add_init_script(TAP_PROBE)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    out: dict[str, Any] = {}
    open_game(page, url, create(url, "standard"))  # warm the HTTP cache
    loads = [open_game(page, url, create(url, "standard", seed=20 + i)) for i in range(runs)]
    out["interactive_ms"] = {"median": statistics.median(loads), "max": max(loads), "runs": loads}
    out["taps"] = action_figures(timed_actions(page, ".actionbar .action-wait", taps, touch=True))
    out["quality"] = quality(page)
    work = [float(x) for x in page.evaluate("window.__am.updates")]
    out["update_work_ms"] = {"median": statistics.median(work), "p90": pct(work, 0.9)}
    if cpu:
        browser.start_tracing(page=page, categories=CPU_CATEGORIES)
        timed_actions(page, ".actionbar .action-wait", taps, touch=True)
        used = main_thread_cpu(browser.stop_tracing())
        out["tap_cpu"] = {k: v / taps for k, v in used.items()}
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
    parser.add_argument("--static", type=Path, help="serve this build of the client instead of the package's")
    parser.add_argument("--cpu", action="store_true",
                        help="also the page's CPU time (thread time, from a trace) per tap and per frame")
    args = parser.parse_args()
    static = args.static or ROOT / "src/asteroid_mining/server/static"
    if not (static / "index.html").is_file():
        print(f"no built client in {static}: run `make web` first", file=sys.stderr)
        return 2
    results: dict[str, Any] = {"load_before": os.getloadavg()[0]}
    with server(args.static) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        context.add_init_script(TAP_PROBE)
        page = context.new_page()

        results["phone"] = phone(browser, url, args.runs, args.clicks, args.cpu)
        if args.phone_only:
            browser.close()
            return report_phone(results, args)
        standard = create(url, "standard")
        open_game(page, url, standard)  # warm the HTTP cache as a returning player would have it
        loads = [open_game(page, url, create(url, "standard", seed=7 + i)) for i in range(args.runs)]
        results["interactive_ms"] = {"median": statistics.median(loads), "max": max(loads), "runs": loads}

        open_game(page, url, standard)
        results["clicks"] = action_figures(timed_actions(page, ".dest button", args.clicks, touch=False))

        large = create(url, "large")
        results["large_interactive_ms"] = open_game(page, url, large)
        for name, whole in (("play", False), ("whole", True)):
            probe = page.evaluate(FRAME_PROBE, [args.frames, whole])
            work, gaps = probe["work"], probe["gaps"]
            results[f"large_{name}_frame_work_ms"] = {"median": statistics.median(work), "p95": pct(work, 0.95)}
            results[f"large_{name}_frame_interval_ms"] = {"median": statistics.median(gaps), "p95": pct(gaps, 0.95)}
        if args.cpu:
            browser.start_tracing(page=page, categories=CPU_CATEGORIES)
            frames = len(page.evaluate(FRAME_PROBE, [args.frames, False])["work"])
            used = main_thread_cpu(browser.stop_tracing())
            results["large_play_frame_cpu_ms"] = used["tasks_ms"] / max(1, frames)
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
    if "large_play_frame_cpu_ms" in results:
        row("large, zoomed to play: the page's CPU time a frame (trace)", results["large_play_frame_cpu_ms"], "")
    report_actions("click to updated screen", results["clicks"], "target ≤ 100")
    return report_phone(results, args)


def report_actions(what: str, figures: dict[str, Any], target: str) -> None:
    """Prints input-to-screen figures and their parts (median, p90, range)."""
    def line(name: str, f: dict[str, float], note: str = "") -> None:
        print(f"  {name:<52} {f['median']:8.1f} ms   p90 {f['p90']:.1f}, {f['min']:.0f}–{f['max']:.0f}  {note}")

    line(f"{what} (median of {figures['n']})", figures["to_screen"], target)
    line("  the input handled, the action sent", figures["input_to_sent"])
    line("  sent → the answer arrives (server, network, page busy)", figures["sent_to_received"])
    line("  the answer handled and its frame drawn", figures["received_to_shown"])


def report_phone(results: dict[str, Any], args: argparse.Namespace) -> int:
    """Prints the phone figures (and writes every figure to --json)."""
    ph = results["phone"]
    results["load_after"] = os.getloadavg()[0]
    print(f"phone 390×844, touch, CPU slowed ×4 (the belt drawn at {ph['quality']}); load average "
          f"{results['load_before']:.1f} → {results['load_after']:.1f}")
    print(f"  {'time to interactive, standard (median of runs)':<52} {ph['interactive_ms']['median']:8.1f} ms   "
          "target ≤ 2000")
    report_actions("tap (Wait) to updated screen", ph["taps"], "target ≤ 150")
    print(f"  {'the page work of one update (median / p90)':<52} {ph['update_work_ms']['median']:8.1f} ms   "
          f"p90 {ph['update_work_ms']['p90']:.1f}")
    if "tap_cpu" in ph:
        c = ph["tap_cpu"]
        print(f"  {'the page CPU time of a tap and its update (trace)':<52} {c['tasks_ms']:8.1f} ms   "
              f"style and layout {c['style_layout_ms']:.1f} ms, forced layouts {c['forced_layouts']:.1f}")
    what = f"large, select a destination on hub {ph['hub']['id']} ({ph['hub']['degree']} neighbours)"
    print(f"  {what:<52} {ph['hub_select_ms']['median']:8.1f} ms   p95 {ph['hub_select_ms']['p95']:.1f}; target ≤ 50")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
