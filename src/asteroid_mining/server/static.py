"""The browser client's files at `/`, or, until it is built, a page that says how to build it."""

from __future__ import annotations

from html import escape
from pathlib import Path

from starlette.responses import HTMLResponse, JSONResponse
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from .errors import error_body

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
        self._files = StaticFiles(directory=directory, html=True, check_dir=False)

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
            await self._files(scope, receive, send)
            return
        if scope["path"] in ("/", "/index.html"):
            page = NOT_BUILT.format(static_dir=escape(str(self.directory)))
            await HTMLResponse(page)(scope, receive, send)
            return
        await JSONResponse(error_body("not_found", "not found"), status_code=404)(scope, receive, send)
