"""Running the server: `asteroid-mining serve` and `python -m asteroid_mining.server` (every setting).

    serve(host="127.0.0.1", port=8000, data=None)   # blocks until interrupted; returns an exit status
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import re
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

import uvicorn

from ..storage import SqliteStore, StorageError
from .app import create_app
from .config import Settings, SettingsError
from .direct import UvicornMismatch, check_uvicorn
from .stores import describe, make_store
from .transport import SocketCounter, guarded_protocol

log = logging.getLogger("asteroid_mining.server")

GC_THRESHOLDS = (20_000, 50, 1_000)
"""The cyclic collector's thresholds in a server process. Live games keep many long-lived objects and the hot
path makes almost no cycles: collecting young objects every 700 allocations (Python's default) cost about a
quarter of the server's CPU in the benchmark, and these thresholds about a twentieth."""


class RedactTokens(logging.Filter):
    """Hides seat tokens in log lines: uvicorn logs each WebSocket's path, query string (`?token=…`) included.

    Every `name=value` of a query string is looked at with its name *decoded* as the server decodes it
    (`?tok%65n=…` and `?%74oken=…` are the `token` parameter too), and the value of each one named `token` is
    replaced by `…`. Tokens stay in the URL (browsers cannot set headers on a WebSocket), so this is where they
    are kept out of the log.
    """

    _PARAM = re.compile(r"([?&])([^=&\s\"'?#]+)=([^&\s\"'#]*)")

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite the record's message without tokens; never drops a record."""
        message = record.getMessage()
        if "=" in message:
            redacted = self._PARAM.sub(self._hide, message)
            if redacted != message:
                record.msg, record.args = redacted, None
        return True

    @staticmethod
    def _hide(match: re.Match[str]) -> str:
        lead, name, value = match.groups()
        if unquote_plus(name).strip() == "token":
            value = "…"
        return f"{lead}{name}={value}"


def _configure_logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactTokens())


def uvicorn_config(settings: Settings, **extra: Any) -> uvicorn.Config:
    """uvicorn's configuration for `settings`: the WebSocket frame limit, uvicorn's compression off (`transport`
    compresses large messages only), no server header, the connection limits (`transport`: a deadline for
    headers, a cap on each address's sockets), and forwarded headers believed only from the proxies of
    `forwarded_allow_ips` (uvicorn's default believes any client on 127.0.0.1, which could then pick the address
    its quotas count against)."""
    app = create_app(settings)
    # new WebSocket connections are counted below the application, where a refusal costs least, when the peer is
    # the client; behind a proxy, the application counts them by the address the proxy says (`play`)
    limiter = None if settings.forwarded_allow_ips else app.state.connect_limiter
    app.state.connect_checked_below = limiter is not None
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        proxy_headers=bool(settings.forwarded_allow_ips),
        forwarded_allow_ips=list(settings.forwarded_allow_ips),  # never uvicorn's FORWARDED_ALLOW_IPS variable
        http=guarded_protocol(settings.header_timeout, SocketCounter(settings.socket_cap),
                              connect_limiter=limiter),
        limit_concurrency=settings.max_connections,
        timeout_keep_alive=settings.keep_alive_seconds,
        h11_max_incomplete_event_size=16 * 1024,  # only if uvicorn's h11 parser is chosen: headers up to 16 KiB
        ws_max_size=4 * settings.max_message_bytes,  # larger messages are answered with an error; far larger: closed
        ws_per_message_deflate=False,  # uvicorn compresses every message or none: `transport` compresses large ones
        server_header=False,
        timeout_graceful_shutdown=5,
        log_config=None,
        **extra,
    )


def serve(host: str = "127.0.0.1", port: int = 8000, data: str | Path | None = None, **changes: Any) -> int:
    """Serve games on `host:port`, keeping them in `data` (default: the user's data directory).

    Other settings come from `ASTEROID_MINING_*` environment variables or `changes`. Returns the exit status.
    """
    _configure_logging()
    try:
        settings = Settings.from_env(host=host, port=port, data_dir=Path(data).expanduser() if data else None,
                                     **changes)
    except SettingsError as bad:
        print(f"asteroid-mining serve: error: {bad}", file=sys.stderr)
        return 2
    try:  # the uvicorn internals the server's sending relies on (direct.py, transport.py)
        check_uvicorn()
    except UvicornMismatch as bad:
        print(f"asteroid-mining serve: error: {bad}", file=sys.stderr)
        return 2
    try:  # the store's own checks (a newer schema, another server on the directory) as one line, not a traceback
        asyncio.run(_check_store(settings))
    except StorageError as bad:
        print(f"asteroid-mining serve: error: {bad}", file=sys.stderr)
        return 2
    log.info("Asteroid Mining server on http://%s:%d (games kept in %s)", settings.host, settings.port,
             describe(settings))
    gc.set_threshold(*GC_THRESHOLDS)
    server = uvicorn.Server(uvicorn_config(settings))
    server.run()
    return 0 if server.started else 1


async def _check_store(settings: Settings) -> None:
    """Open the games' store once, check it and close it: creates or brings up to date its schema (SQLite: and
    checks its pages); StorageError when the server could not use it (damaged pages included)."""
    store = make_store(settings)
    await store.open()
    try:
        if isinstance(store, SqliteStore):
            await store.verify()
    finally:
        await store.close()
    if settings.redis:
        from .cluster.node import connect_redis

        redis = connect_redis(settings.redis)
        try:
            await redis.ping()
        except Exception as failure:
            from ..storage.postgres import redact_url  # (a cluster node has PostgreSQL's driver)

            raise StorageError(f"cannot reach Redis at {redact_url(settings.redis)}: {failure}") from None
        finally:
            await redis.aclose()


def main(argv: list[str] | None = None) -> int:
    """`python -m asteroid_mining.server [--host H] [--port P] [--data DIR] [--SETTING VALUE …]`."""
    parser = argparse.ArgumentParser(prog="python -m asteroid_mining.server", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--data", default=None, help="the directory of the games database")
    lists = {"allowed_origins": "comma-separated web origins",
             "forwarded_allow_ips": "comma-separated addresses or networks of the proxies trusted for "
                                    "X-Forwarded-For (default: none)"}
    for f in fields(Settings):
        if f.name in ("host", "port", "data_dir", "static_dir", *lists):
            continue
        kind = type(getattr(Settings(data_dir=Path(".")), f.name))
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=kind if kind in (int, float) else str)
    for name, text in lists.items():
        parser.add_argument(f"--{name.replace('_', '-')}", default=None, help=text)
    args = vars(parser.parse_args(argv))
    for name in lists:
        args[name] = comma_list(args.pop(name))
    return serve(**args)


def comma_list(text: str | None) -> tuple[str, ...] | None:
    """`a, b,c` as `("a", "b", "c")`; None stays None (the setting keeps its value)."""
    if text is None:
        return None
    return tuple(part.strip() for part in text.split(",") if part.strip())
