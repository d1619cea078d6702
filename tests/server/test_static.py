"""The browser client's files over HTTP: hashed files kept for good, the page revalidated (ETag, 304), the
precompressed forms chosen by Accept-Encoding, nothing outside the folder, the not-built page; and the API's
larger answers gzipped (WebSockets untouched)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from asteroid_mining.server import Settings
from asteroid_mining.server.static import IMMUTABLE, accepted

if TYPE_CHECKING:
    from fastapi.testclient import TestClient

PAGE = b"<!doctype html><title>Asteroid Mining</title><script type=module src=assets/main-ABCD1234.js></script>"
ENTRY = b"console.log('the entry');" * 40
BR = b"brotli bytes of the entry"  # the server sends the file as it is: any bytes stand for brotli's


@pytest.fixture
def built(settings: Settings) -> Path:
    """A built client as web/build.mjs lays it out: the page and the worker at the top, hashed files in assets/,
    each text file with its .br and .gz beside it (the font without)."""
    static = settings.static_dir
    (static / "assets").mkdir(parents=True)
    (static / "index.html").write_bytes(PAGE)
    (static / "index.html.gz").write_bytes(gzip.compress(PAGE))
    (static / "sw.js").write_bytes(b"self.addEventListener('fetch', () => {});")
    (static / "manifest.webmanifest").write_text(json.dumps({"name": "Asteroid Mining"}))
    entry = static / "assets" / "main-ABCD1234.js"
    entry.write_bytes(ENTRY)
    entry.with_name(entry.name + ".gz").write_bytes(gzip.compress(ENTRY))
    entry.with_name(entry.name + ".br").write_bytes(BR)
    (static / "assets" / "inter-latin-0123456789.woff2").write_bytes(b"wOF2 font bytes")
    (static / ".built").write_text("")
    return static


def raw(client: TestClient, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and the body as sent (not decoded)."""
    with client.stream("GET", path, headers=headers) as answer:
        return answer.status_code, dict(answer.headers), b"".join(answer.iter_raw())


def test_a_hashed_file_is_kept_for_good_in_the_best_encoding_asked_for(client: TestClient, built: Path) -> None:
    status, headers, body = raw(client, "/assets/main-ABCD1234.js", **{"accept-encoding": "gzip, deflate, br"})
    assert status == 200 and body == BR
    assert headers["content-encoding"] == "br" and headers["vary"] == "Accept-Encoding"
    assert headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
    assert headers["content-type"] == "text/javascript; charset=utf-8"
    assert headers["content-length"] == str(len(BR))

    status, headers, body = raw(client, "/assets/main-ABCD1234.js", **{"accept-encoding": "gzip"})
    assert headers["content-encoding"] == "gzip" and gzip.decompress(body) == ENTRY

    status, headers, body = raw(client, "/assets/main-ABCD1234.js", **{"accept-encoding": "identity"})
    assert "content-encoding" not in headers and body == ENTRY and headers["vary"] == "Accept-Encoding"


def test_each_encoding_has_its_own_etag(client: TestClient, built: Path) -> None:
    tags = {coding: raw(client, "/assets/main-ABCD1234.js", **{"accept-encoding": coding})[1]["etag"]
            for coding in ("br", "gzip", "identity")}
    assert len(set(tags.values())) == 3
    assert all(tag.startswith('"') and tag.endswith('"') for tag in tags.values())  # strong


def test_a_font_is_sent_as_it_is(client: TestClient, built: Path) -> None:
    status, headers, body = raw(client, "/assets/inter-latin-0123456789.woff2", **{"accept-encoding": "br, gzip"})
    assert status == 200 and body == b"wOF2 font bytes" and headers["content-type"] == "font/woff2"
    assert "content-encoding" not in headers and "vary" not in headers
    assert headers["cache-control"] == IMMUTABLE


@pytest.mark.parametrize("path", ["/", "/index.html", "/sw.js", "/manifest.webmanifest"])
def test_the_page_the_worker_and_the_manifest_are_revalidated(client: TestClient, built: Path, path: str) -> None:
    first = client.get(path)
    assert first.status_code == 200 and first.headers["cache-control"] == "no-cache"
    etag = first.headers["etag"]
    again = client.get(path, headers={"if-none-match": etag})
    assert again.status_code == 304 and again.content == b""
    assert again.headers["etag"] == etag and again.headers["cache-control"] == "no-cache"
    assert client.get(path, headers={"if-none-match": '"another"'}).status_code == 200


def test_the_manifest_and_the_worker_have_their_media_types(client: TestClient, built: Path) -> None:
    assert client.get("/manifest.webmanifest").headers["content-type"] == "application/manifest+json"
    assert client.get("/sw.js").headers["content-type"] == "text/javascript; charset=utf-8"


def test_a_changed_page_gets_a_new_etag(client: TestClient, built: Path) -> None:
    etag = client.get("/", headers={"accept-encoding": "identity"}).headers["etag"]
    (built / "index.html").write_bytes(PAGE.replace(b"ABCD1234", b"EFGH5678"))
    answer = client.get("/", headers={"accept-encoding": "identity", "if-none-match": etag})
    assert answer.status_code == 200 and b"EFGH5678" in answer.content and answer.headers["etag"] != etag


def test_head_sends_the_headers_alone(client: TestClient, built: Path) -> None:
    answer = client.head("/assets/main-ABCD1234.js", headers={"accept-encoding": "br"})
    assert answer.status_code == 200 and answer.content == b""
    assert answer.headers["content-encoding"] == "br" and answer.headers["content-length"] == str(len(BR))


@pytest.mark.parametrize("path", ["/index.html.gz", "/assets/main-ABCD1234.js.br", "/.built", "/missing.js",
                                  "/assets/", "/%2e%2e/data", "/assets/../../data", "/api/nothing"])
def test_what_is_not_a_file_of_the_client_is_not_found(client: TestClient, built: Path, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_found"


def test_the_page_before_the_client_is_built_is_revalidated_by_nobody(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "not been built" in page.text
    assert client.get("/assets/main-ABCD1234.js").status_code == 404


@pytest.mark.parametrize(("header", "codings"), [
    ("", set()),
    ("gzip, deflate, br, zstd", {"gzip", "deflate", "br", "zstd"}),
    ("br;q=0, gzip;q=0.5", {"gzip"}),
    ("BR ; Q=1", {"br"}),
    ("*", {"br", "gzip", "*"}),
    ("*;q=0.1, br;q=0", {"gzip", "*"}),
    ("gzip;q=oops", {"gzip"}),
])
def test_accept_encoding(header: str, codings: set[str]) -> None:
    assert accepted(header) == codings


def test_a_refused_encoding_is_not_sent(client: TestClient, built: Path) -> None:
    headers = raw(client, "/assets/main-ABCD1234.js", **{"accept-encoding": "br;q=0, gzip"})[1]
    assert headers["content-encoding"] == "gzip"


def test_large_api_answers_are_gzipped_small_ones_not(client: TestClient) -> None:
    status, headers, body = raw(client, "/api/belts", **{"accept-encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip" and headers["vary"] == "Accept-Encoding"
    assert json.loads(gzip.decompress(body))["belts"]
    status, headers, body = raw(client, "/api/health", **{"accept-encoding": "gzip"})
    assert "content-encoding" not in headers and json.loads(body) == {"status": "ok"}
    status, headers, body = raw(client, "/api/belts", **{"accept-encoding": "identity"})
    assert "content-encoding" not in headers and json.loads(body)["belts"]


def test_websockets_pass_the_compression_by(client: TestClient, two_seats: dict[str, object]) -> None:
    seats = two_seats["seats"]
    assert isinstance(seats, list)
    path = f"/api/games/{two_seats['id']}/ws?token={seats[0]['token']}"
    with client.websocket_connect(path, headers={"accept-encoding": "gzip"}) as session:
        first = session.receive_json()
    assert first["type"] == "state" and first["game"] == two_seats["id"]
