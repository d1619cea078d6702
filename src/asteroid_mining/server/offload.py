"""`BodyChecker`: a large `POST /api/games` body is read first in another process, so that one too large to be
played never costs this process (and its event loop) its parse.

A body is parsed here in a worker thread (`limits.BodyLimit`), but orjson holds the interpreter's lock for the
whole parse: 4 MB of gate pairs held every game's event loop for as long (0.1–0.3 s). Such a body is refused
anyway, for the size of its belt, so its parse need not happen here at all: a body over `PARSE_APART` bytes sent
to create a game is parsed and measured in a process of a small pool (`bodies.precheck`), which answers with

- the reason it is not JSON (or nested too deep), exactly as the parse here would say it (422 `invalid`);
- or, for a belt with more asteroids, links or gate pairs than the server allows, the same document with those
  sections' items left out (each list keeps its length): the request goes through every check in the usual order
  and is refused by the belt's size as it would be with the whole document (422 `belt_too_large`, field `belt`),
  or earlier by whatever is wrong before (a quota, an option); the answer is the same, without the parse;
- or nothing, for a body the server may well play: it is then parsed here as any other. (A belt that is played
  must be built in this process: the engine's objects cannot be handed across, and the parsed document costs as
  much to receive from another process as to parse; see docs/server.md, Limits.)

The pool has one process, started at the first large body (`forkserver`, or `spawn` where there is none: never
a fork of this threaded process), at most `QUEUED` bodies wait for it (others are parsed here as before), and it
is shut down with the application. Should it fail (the process killed), the body is parsed here and the pool
made anew at the next one. As with any `spawn`ed process, the program's main module is imported there (not when
run as `python -m …`, which `asteroid-mining serve` and the cluster's nodes are not either way): a script that
serves the application keeps its start under `if __name__ == "__main__":`.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from ..bodies import precheck
from .config import Settings

log = logging.getLogger(__name__)

PARSE_APART = 2 * 1024 * 1024
"""`POST /api/games` bodies over this many bytes are read first in the pool: about twice the largest belt the
default limits accept (1.1 MB with short ids), so that a belt the server plays is seldom read twice, and a body
near `max_request_bytes` (4 MB), which only a belt far over the limits fills, is never parsed here."""
QUEUED = 4
"""The most bodies in the pool's hands at once; more are parsed here, as smaller ones are."""


class BodyChecker:
    """The pool that reads large create-game bodies first (see the module's documentation)."""

    def __init__(self, settings: Settings) -> None:
        self.limits = (settings.max_belt_asteroids, settings.max_belt_links, settings.max_belt_gates)
        self._pool: ProcessPoolExecutor | None = None
        self._held = 0

    def wants(self, scope: Mapping[str, Any], size: int) -> bool:
        """Whether a request's body of `size` bytes goes to the pool first."""
        return (size > PARSE_APART and scope.get("method") == "POST" and scope.get("path") == "/api/games"
                and self._held < QUEUED)

    async def check(self, body: bytes) -> tuple[str | None, Any] | None:
        """What `bodies.precheck` says of `body` (None: parse it here; also when the pool has failed)."""
        self._held += 1
        try:
            if self._pool is None:  # started in a thread: starting a process is no work for the event loop
                started = await asyncio.to_thread(_start)
                if self._pool is None:
                    self._pool = started
                else:  # another body started one meanwhile
                    started.shutdown(wait=False)
            return await asyncio.get_running_loop().run_in_executor(self._pool, precheck, body, self.limits)
        except Exception as failure:  # the process died (BrokenProcessPool), or the pool was shut down
            log.warning("the body pre-check failed (%s); the body is parsed here", failure)
            broken, self._pool = self._pool, None
            if broken is not None:
                broken.shutdown(wait=False, cancel_futures=True)
            return None
        finally:
            self._held -= 1

    def close(self) -> None:
        """Stop the pool's process (with the application)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def _start() -> ProcessPoolExecutor:
    """A pool of one process, started (its modules imported) before it is handed out."""
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context(method))
    pool.submit(precheck, b"{}", (0, 0, 0)).result()
    return pool
