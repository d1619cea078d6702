"""The browser client's files at `/`, or, until it is built, a page that says how to build it.

The client is built (web/build.mjs) for a first load on a phone network: every built file but the few that name
the others lives under `assets/` with a hash of its content in its name, and is sent to be kept for a year
(`immutable`: a second visit asks for none of them); the page (`index.html`), the service worker (`sw.js`) and
the web app manifests are revalidated at each use (`no-cache` with a strong ETag, answered 304 when unchanged).
Text files are compressed once, at build time: brotli (`x.br`) and gzip (`x.gz`) beside each, one of which is
sent (`Content-Encoding`, `Vary: Accept-Encoding`) as the request's `Accept-Encoding` allows.
"""

from __future__ import annotations

import hashlib
import mimetypes
import os
from html import escape
from pathlib import Path

from starlette.datastructures import Headers
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.types import Receive, Scope, Send

from .errors import error_body

IMMUTABLE = "public, max-age=31536000, immutable"
"""Cache-Control of a hashed file (under `assets/`): its name changes with its content."""

REVALIDATE = "no-cache"
"""Cache-Control of every other file: kept, but asked for again (a 304 when unchanged) at each use."""

ENCODINGS = (("br", ".br"), ("gzip", ".gz"))
"""The precompressed forms the build writes beside a file, in the order they are preferred."""

MEDIA_TYPES = {
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".woff2": "font/woff2",
    ".txt": "text/plain; charset=utf-8",
}
"""Media types by extension (the platform's own table is used for any other; it lacks some of these)."""

HEADER_CHARS = 1024
"""The most characters of a request's `Accept-Encoding` and `If-None-Match` looked at: a browser's are a few dozen,
and one of 60 KB (the headers may have 64 KB) of 10,000 codings cost 8.3 ms of CPU a request for a file, six times
a file's cost, where files are asked for at no rate limit. A coding or tag past them is as if not named."""


MAX_RANGES = 1
"""The most ranges of a file of the client sent for a `Range` header (`206`): one naming more is answered with the
whole file (`200`), as RFC 9110 (14.2) lets a server do. Starlette sent up to 100 ranges as as many parts, each
read from the file in a thread of its own: 100 one-byte ranges of a 73 KB file cost 26.8 ms of CPU a request,
fourteen times the whole file's (1.85 ms), where files are asked for at no rate limit. Browsers ask for one range
at most (media); the client's files are asked for whole."""


class ClientFile(FileResponse):
    """A file of the client, sent in `MAX_RANGES` range at most."""

    max_ranges = MAX_RANGES


def accepted(header: str) -> set[str]:
    """The content codings an `Accept-Encoding` header allows (RFC 9110, 12.5.3): those named with a non-zero
    quality; `*` allows every one not named. A malformed quality counts as 1 (the header is advice). Only its first
    `HEADER_CHARS` characters are read."""
    named: dict[str, float] = {}
    for part in header[:HEADER_CHARS].split(","):
        name, _, params = part.strip().partition(";")
        name = name.strip().lower()
        if not name:
            continue
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = 1.0
        named[name] = quality
    allowed = {name for name, q in named.items() if q > 0}
    if named.get("*", 0) > 0:
        allowed |= {coding for coding, _ in ENCODINGS if coding not in named}
    return allowed


def _matches(if_none_match: str, etag: str) -> bool:
    """Whether an `If-None-Match` header names `etag` (weak comparison, RFC 9110, 13.1.2) in its first
    `HEADER_CHARS` characters."""
    if_none_match = if_none_match[:HEADER_CHARS]
    if if_none_match.strip() == "*":
        return True
    bare = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == bare for tag in if_none_match.split(","))


NOT_BUILT = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Asteroid Mining — server</title>
<style>
  body {{ font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem;
         color: #e8e8f0; background: #0b0d1a; }}
  code, pre {{ background: #1c2033; padding: 0.1rem 0.3rem; border-radius: 4px; }}
  pre {{ padding: 0.8rem; overflow-x: auto; }}
  a {{ color: #8fb4ff; }}
</style>
</head>
<body>
<h1>Asteroid Mining</h1>
<p>The game server is running, but the browser client has not been built yet, so there is nothing to play here
in a browser.</p>
<p>Build it (and start playing) from the project's directory with:</p>
<pre>make play</pre>
<p>The client is built into <code>{static_dir}</code>; this server serves it from there as soon as it exists.</p>
<p>Meanwhile the server works: <a href="/docs">the API documentation</a>,
<a href="/api/games">the lobby</a>, <a href="/api/health">its health</a>.</p>
</body>
</html>
"""


class ClientFiles:
    """Serves the built client from `directory` (with `index.html` at `/`), looked for at each request."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        # ETags by (path, modification time, size): a file's content is hashed once, not at every request
        self._etags: dict[tuple[str, int, int], str] = {}

    def built(self) -> bool:
        """Whether the client has been built."""
        return (self.directory / "index.html").is_file()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a file of the client, or the not-built page at `/`; refuse a WebSocket to any other path."""
        if scope["type"] == "websocket":  # no WebSocket lives here: refuse the handshake (HTTP 403), not a 500
            message = await receive()
            if message["type"] == "websocket.connect":
                await send({"type": "websocket.close", "code": 4404, "reason": "no such WebSocket"})
            return
        if scope["type"] != "http":
            return
        if scope["method"] not in ("GET", "HEAD"):
            body = error_body("method_not_allowed", "method not allowed")
            await JSONResponse(body, status_code=405, headers={"allow": "GET, HEAD"})(scope, receive, send)
            return
        if self.built() and not scope["path"].startswith("/api/"):
            await self._serve(scope, receive, send)
            return
        if scope["path"] in ("/", "/index.html"):
            page = NOT_BUILT.format(static_dir=escape(str(self.directory)))
            await HTMLResponse(page)(scope, receive, send)
            return
        await JSONResponse(error_body("not_found", "not found"), status_code=404)(scope, receive, send)

    def _find(self, path: str) -> Path | None:
        """The file at a request's path, or None: only a file inside the folder, never a precompressed form."""
        if path.endswith("/"):
            path += "index.html"
        parts = path.split("/")[1:]
        if any(part in ("", ".", "..") or part.startswith(".") or "\\" in part or "\0" in part for part in parts):
            return None
        if parts[-1].endswith((".br", ".gz")):
            return None
        root = self.directory.resolve()
        try:  # a name too long for the file system (ENAMETOOLONG) is no file either: `is_file` raises it
            found = root.joinpath(*parts).resolve()
            return found if found.is_relative_to(root) and found.is_file() else None
        except (OSError, ValueError):
            return None

    def _etag(self, file: Path, stat: os.stat_result) -> str:
        """A strong ETag of the file's content (each precompressed form has its own: it is another content)."""
        key = (str(file), stat.st_mtime_ns, stat.st_size)
        etag = self._etags.get(key)
        if etag is None:
            digest = hashlib.blake2b(file.read_bytes(), digest_size=12).hexdigest()
            etag = f'"{digest}"'
            if len(self._etags) > 4096:  # rebuilds leave stale keys behind: forget them all now and then
                self._etags.clear()
            self._etags[key] = etag
        return etag

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Send a file in the best form the client accepts, with its caching headers, or a 304 or a 404."""
        file = self._find(scope["path"])
        if file is None:
            await JSONResponse(error_body("not_found", "not found"), status_code=404)(scope, receive, send)
            return
        request = Headers(scope=scope)
        variants = [(coding, file.with_name(file.name + suffix)) for coding, suffix in ENCODINGS]
        variants = [(coding, path) for coding, path in variants if path.is_file()]
        allowed = accepted(request.get("accept-encoding", ""))
        coding, sent = next(((c, p) for c, p in variants if c in allowed), (None, file))
        try:
            stat = sent.stat()
        except OSError:  # replaced by a new build meanwhile
            await JSONResponse(error_body("not_found", "not found"), status_code=404)(scope, receive, send)
            return
        relative = file.relative_to(self.directory.resolve()).as_posix()
        headers = {
            "cache-control": IMMUTABLE if relative.startswith("assets/") else REVALIDATE,
            "etag": self._etag(sent, stat),
            "x-content-type-options": "nosniff",
        }
        if variants:
            headers["vary"] = "Accept-Encoding"
        if coding:
            headers["content-encoding"] = coding
        if _matches(request.get("if-none-match", ""), headers["etag"]):
            await Response(status_code=304, headers=headers)(scope, receive, send)
            return
        media = MEDIA_TYPES.get(file.suffix) or mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        response = ClientFile(sent, headers=headers, media_type=media, stat_result=stat)
        await response(scope, receive, send)
