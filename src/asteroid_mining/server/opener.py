"""`asteroid-mining serve --open`: once the server answers, open the browser on a new game ready to play.

The address `/#/quick` makes the client create the quick game (standard belt, classic rules, two players
hot-seat) and show its first hand-over screen: one click and the game is on. Where no graphical browser can be
started (no display, as on a server or in CI), the address is printed instead.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import urllib.request
import webbrowser

QUICK_GAME = "/#/quick"
"""The client's route that creates and opens the quick game."""


def play_url(host: str, port: int) -> str:
    """The address of the quick game on a server listening on host:port."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if ":" in shown:
        shown = f"[{shown}]"
    return f"http://{shown}:{port}{QUICK_GAME}"


def has_display() -> bool:
    """Whether a graphical browser can be opened here (a desktop session, or a system that always has one)."""
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _wait_then_open(url: str, health: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(health, timeout=1) as answer:
                if answer.status == 200:
                    break
        except OSError:
            time.sleep(0.2)
    else:
        return
    if not (has_display() and webbrowser.open(url)):
        print(f"\nAsteroid Mining is ready: open {url} in your browser to play.\n", flush=True)
    else:
        print(f"\nAsteroid Mining opened in your browser: {url}\n", flush=True)


def open_when_ready(host: str, port: int, timeout: float = 60.0) -> threading.Thread:
    """Start a thread that waits for the server, then opens (or prints) the quick game's address."""
    base = play_url(host, port).removesuffix(QUICK_GAME)
    thread = threading.Thread(target=_wait_then_open, args=(play_url(host, port), f"{base}/api/health", timeout),
                              name="open-browser", daemon=True)
    thread.start()
    return thread
