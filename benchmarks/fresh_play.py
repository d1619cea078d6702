"""How long `make play` takes on a fresh clone until the game can be played.

    python3 benchmarks/fresh_play.py [--repo .] [--runs 3] [--playable-only] [--keep-log]

Each run clones the repository's committed `HEAD` into a temporary directory (no `.venv`, no `node_modules`, no
compiled engine, no built client: what a fresh checkout has), starts `make play` there on a free port with its
games in a throwaway data directory, and waits until the server answers `GET /api/health` and serves the browser
client. That moment is the figure: the game is playable. The run goes on until the background compile `make
play` started has finished too (its second figure; `--playable-only` does not wait), then the server is stopped
and the clone removed. The package caches (pip's, npm's) are whatever this machine has: warm after one install.

Standard library only, so that it runs before anything is set up (`python3`). Not a `bench_*.py`: each run
installs a virtualenv, so `make bench` leaves it out.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A port nothing listens on now, below Linux's ephemeral range (32768-60999): the servers other work starts
    on port 0 never get it meanwhile, and answer in our server's stead."""
    while True:
        port = random.randint(20000, 30000)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


def answers(url: str) -> bool:
    """Whether `url` answers 200."""
    try:
        with urllib.request.urlopen(url, timeout=2) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def load() -> str:
    """The load averages (1, 5, 15 minutes)."""
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def one_run(repo: Path, deadline: float, keep_log: bool, wait_compile: bool) -> tuple[float | None, float | None]:
    """Seconds until playable and until the compiled build was made (None: not within `deadline` seconds, or
    not waited for)."""
    work = Path(tempfile.mkdtemp(prefix="fresh-play-"))
    clone, data = work / "clone", work / "data"
    subprocess.run(["git", "clone", "--quiet", str(repo), str(clone)], check=True)
    port = free_port()
    env = dict(os.environ, XDG_DATA_HOME=str(data), DISPLAY="", WAYLAND_DISPLAY="")
    lines: list[tuple[float, str]] = []
    start = time.monotonic()
    process = subprocess.Popen(["make", "play", f"PORT={port}"], cwd=clone, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append((time.monotonic() - start, line.rstrip()))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    playable = compiled = None
    base = f"http://127.0.0.1:{port}"
    try:
        while time.monotonic() - start < deadline and process.poll() is None:
            started = any("asteroid-mining serve" in text or "starting the game server" in text for _, text in lines)
            if playable is None and started and answers(f"{base}/api/health") and answers(f"{base}/"):
                playable = time.monotonic() - start
            if compiled is None and (any("nothing compiled" in text for _, text in lines) or all(
                    (clone / "src" / "asteroid_mining" / package / "_compiled.json").exists()
                    for package in ("rules", "ai", "maps"))):
                compiled = time.monotonic() - start
            if playable is not None and (compiled is not None or not wait_compile):
                break
            time.sleep(0.25)
        if process.poll() is not None and playable is None:
            print(f"  make play ended ({process.returncode}) before the game was up", file=sys.stderr)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        reader.join(timeout=5)
        if keep_log or playable is None:
            for at, text in lines:
                print(f"  {at:7.1f} s | {text}")
        shutil.rmtree(work, ignore_errors=True)
    return playable, compiled


def main() -> None:
    """Measure, print each run and the spread."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, default=ROOT, help="the repository to clone (its HEAD)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--deadline", type=float, default=900.0, help="give up a run after this many seconds")
    parser.add_argument("--playable-only", action="store_true", help="stop once playable (not waiting for the "
                        "compile)")
    parser.add_argument("--keep-log", action="store_true", help="print make's output with the time of each line")
    args = parser.parse_args()
    playable_times: list[float] = []
    for run in range(1, args.runs + 1):
        before = load()
        playable, compiled = one_run(args.repo.resolve(), args.deadline, args.keep_log, not args.playable_only)
        shown = "not playable" if playable is None else f"playable after {playable:.0f} s"
        built = "" if compiled is None else f", compiled build made after {compiled:.0f} s"
        print(f"run {run}: {shown}{built} (load average {before} before, {load()} after)", flush=True)
        if playable is not None:
            playable_times.append(playable)
    if playable_times:
        print(f"playable after {min(playable_times):.0f}–{max(playable_times):.0f} s "
              f"(median {sorted(playable_times)[len(playable_times) // 2]:.0f} s, {len(playable_times)} runs)")


if __name__ == "__main__":
    main()
