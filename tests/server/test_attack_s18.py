"""What the ninth fresh attack found on a single server: uvicorn queued every HTTP/1.1 request pipelined on a
connection and read on after each answer, so one socket sending requests in a loop (and reading the answers) had
thousands parsed and queued for each one answered: 1.8 GB of the server's memory in 10 s, the event loop's core
busy parsing. And a WebSocket client offering compression sent 300-byte frames that each inflated to a message of
250 KB: every message of a read was inflated and queued before the application took one, 212 MB a read on one
connection, 1.3 GB held by six; without compression a read of empty frames was 43,000 messages, 50 MB. And a
file of the client asked for with an `Accept-Encoding` of 10,000 codings cost six times a file's CPU. And every
per-address limit counted an IPv6 client by its whole address, of which its network has 2**64. And the commands of
an address's games grew the store twenty times faster than the bytes of new games it is charged for. And a
lesson's game let go while idle was loaded again, uncharged, for each read of it. And a body of 4 MB sent to any
endpoint of the API was parsed and checked, 2.5 s of CPU for arrays nested thirty deep."""

from __future__ import annotations

import asyncio
import base64
import os
import socket
import struct
import time
import zlib
from pathlib import Path
from typing import Any

import orjson
import pytest
import uvicorn
from fastapi.testclient import TestClient
from uvicorn.server import ServerState

from asteroid_mining.server import Settings, create_app, limits
from asteroid_mining.server.belts import checked_belt
from asteroid_mining.server.security import client_key
from asteroid_mining.server.static import HEADER_CHARS, accepted
from asteroid_mining.server.transport import (
    MAX_PIPELINED,
    MAX_QUERY_PARAMETERS,
    GuardedWebSocket,
    SocketCounter,
    guarded_protocol,
)

from .helpers import in_process, running_server
from .hubs import counted_loads, hub_of, on_loop

REQUEST = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


class Transport(asyncio.Transport):
    """A socket's transport as the protocol sees it: what it wrote, whether it reads, whether it closed."""

    def __init__(self, peer: str = "127.0.0.1") -> None:
        super().__init__()
        self.peer = peer
        self.written = bytearray()
        self.reading = True
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": (self.peer, 40000), "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def get_write_buffer_size(self) -> int:
        return 0


def _protocol(app: Any) -> tuple[Any, Transport]:
    """The server's HTTP protocol serving `app` on a connection of its own (`Transport`)."""
    config = uvicorn.Config(app, log_config=None, lifespan="off")
    config.load()
    kind: Any = guarded_protocol(10.0, SocketCounter(8))  # (typed as asyncio's Protocol, built as uvicorn's)
    protocol = kind(config=config, server_state=ServerState(), app_state={})
    transport = Transport()
    protocol.connection_made(transport)
    return protocol, transport


def test_a_connection_pipelining_past_the_bound_is_closed_and_no_more_is_queued() -> None:
    """Two hundred requests arriving at once behind one the application has not answered yet: at most
    `MAX_PIPELINED` are queued, and the connection is closed without an answer out of turn (uvicorn queued all
    199, and as many as every read brought after)."""

    async def scenario() -> None:
        answer = asyncio.Event()

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await answer.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        protocol, transport = _protocol(app)
        protocol.data_received(REQUEST * 200)
        assert transport.closed
        assert len(protocol.pipeline) == MAX_PIPELINED
        assert transport.written == b""  # nothing answered ahead of the requests queued
        protocol.connection_lost(None)
        answer.set()

    asyncio.run(scenario())


def test_reading_stays_paused_while_pipelined_requests_wait() -> None:
    """Five requests pipelined at once are answered one after another, in order, and the connection reads nothing
    more while any of them waits (uvicorn resumed reading after each answer: each read then queued all it
    brought); it reads again once the last is answered."""

    async def scenario() -> None:
        seen: list[tuple[str, bool, int]] = []
        done = asyncio.Event()
        protocol: Any = None

        async def app(scope: Any, receive: Any, send: Any) -> None:
            seen.append((scope["path"], transport.reading, len(protocol.pipeline)))
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": scope["path"].encode()})
            if len(seen) == 5:
                done.set()

        protocol, transport = _protocol(app)
        protocol.data_received(b"".join(b"GET /%d HTTP/1.1\r\nHost: x\r\n\r\n" % i for i in range(5)))
        await done.wait()
        for _ in range(3):  # the last answer's completion runs after the application returns
            await asyncio.sleep(0)
        assert [path for path, _, _ in seen] == [f"/{i}" for i in range(5)]
        assert all(not reading for _, reading, waiting in seen if waiting), seen
        assert transport.reading and not transport.closed
        assert transport.written.count(b"HTTP/1.1 200 OK") == 5
        protocol.connection_lost(None)

    asyncio.run(scenario())


def test_a_short_pipeline_is_answered_in_full(tmp_path: Path) -> None:
    """A client that pipelines a few requests (as some HTTP libraries may) gets every answer, in order, on a real
    server: the bound stops a flood only."""
    with running_server(tmp_path / "data") as server, socket.create_connection(("127.0.0.1", server.port)) as sock:
        sock.sendall(REQUEST * 8)
        sock.settimeout(30)
        answers = b""
        while answers.count(b'{"status":"ok"}') < 8:
            chunk = sock.recv(65536)
            assert chunk, answers
            answers += chunk
        assert answers.count(b"HTTP/1.1 200 OK") == 8


# ----- compressed WebSocket messages -----
WS_MAX_SIZE = 4 * 65536
"""uvicorn's `ws_max_size` as the server sets it (four times the default `max_message_bytes`)."""


def _compressed_frame(text: bytes) -> bytes:
    """A client's text frame of `text`, deflated (permessage-deflate, no context: the trailing 0x0000FFFF left
    off) and masked."""
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    payload = (deflate.compress(text) + deflate.flush(zlib.Z_SYNC_FLUSH))[:-4]
    mask = b"\x01\x02\x03\x04"
    size = len(payload)
    head = bytes([0xC1]) + (bytes([0x80 | size]) if size < 126 else bytes([0x80 | 126]) + struct.pack("!H", size))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def _sync_of(size: int) -> bytes:
    """A `sync` message padded to `size` bytes (it inflates from a few dozen)."""
    head = b'{"type":"sync","after":1,"x":"'
    return head + b" " * (size - len(head) - 2) + b'"}'


async def _accepted_websocket(compressed: bool = True) -> tuple[GuardedWebSocket, Transport, asyncio.Event]:
    """The server's WebSocket protocol on a connection of its own (`Transport`) whose client offered
    compression (unless not `compressed`), accepted by an application that takes no message until the event
    returned is set."""
    accepted, hold = asyncio.Event(), asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert (await receive())["type"] == "websocket.connect"
        await send({"type": "websocket.accept"})
        accepted.set()
        await hold.wait()

    config = uvicorn.Config(app, log_config=None, lifespan="off", ws_max_size=WS_MAX_SIZE,
                            ws_per_message_deflate=False)
    config.load()
    websocket = GuardedWebSocket(config=config, server_state=ServerState(), app_state={})
    transport = Transport()
    websocket.connection_made(transport)
    key = base64.b64encode(os.urandom(16))
    offer = b"Sec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover\r\n" if compressed else b""
    websocket.data_received(b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            b"Sec-WebSocket-Key: " + key + b"\r\nSec-WebSocket-Version: 13\r\n" + offer + b"\r\n")
    await accepted.wait()
    assert transport.written.startswith(b"HTTP/1.1 101"), bytes(transport.written[:100])
    assert (b"permessage-deflate" in transport.written) == compressed
    transport.written.clear()
    return websocket, transport, hold


def _waiting(websocket: GuardedWebSocket) -> list[str]:
    """The texts of the messages waiting for the application."""
    events = []
    while not websocket.queue.empty():
        events.append(websocket.queue.get_nowait())
    for event in events:
        websocket.queue.put_nowait(event)
    return [str(event["text"]) for event in events if event["type"] == "websocket.receive"]


def _closed_with(transport: Transport) -> int:
    """The code of the close frame the server wrote last (unmasked, its length under 126)."""
    at = transport.written.rfind(b"\x88")
    assert at >= 0, bytes(transport.written[:200])
    return int(struct.unpack("!H", transport.written[at + 2:at + 4])[0])


def test_compressed_messages_past_the_largest_waiting_close_the_connection() -> None:
    """Eight compressed messages of 60 KB each (110 bytes each on the wire) arrive in one read while the
    application takes none: once more than `ws_max_size` of them wait, what waits is dropped and the connection
    closed with 4429 (all eight were inflated and queued, 480 KB; one read of 256 KB was 850 messages of 250 KB,
    212 MB on one connection)."""

    async def scenario() -> None:
        websocket, transport, hold = await _accepted_websocket()
        websocket.data_received(_compressed_frame(_sync_of(60_000)) * 8)
        assert transport.closed
        assert _closed_with(transport) == 4429
        assert _waiting(websocket) == []
        assert websocket.waiting == 0
        websocket.connection_lost(None)
        hold.set()

    asyncio.run(scenario())


def test_compressed_messages_taken_as_they_come_are_all_served() -> None:
    """Compressed messages of 60 KB each, one at a time, each taken by the application before the next comes,
    are all delivered, the connection open: only what waits counts, not what has come."""

    async def scenario() -> None:
        websocket, transport, hold = await _accepted_websocket()
        for i in range(10):
            text = _sync_of(60_000 + i)
            websocket.data_received(_compressed_frame(text))
            message = await websocket.receive()
            assert message == {"type": "websocket.receive", "text": text.decode()}
        assert not transport.closed
        assert websocket.waiting == 0
        websocket.connection_lost(None)
        hold.set()

    asyncio.run(scenario())


def _masked(text: bytes) -> bytes:
    """A client's uncompressed text frame of `text` (under 126 bytes), masked."""
    mask = b"\x01\x02\x03\x04"
    return bytes([0x81, 0x80 | len(text)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(text))


def test_many_empty_messages_waiting_close_the_connection() -> None:
    """Two thousand empty messages (6 bytes each on the wire) in one read: each counts what its event costs
    (`WAITING_MESSAGE_BYTES`), so past `ws_max_size` the connection is closed with 4429 and what waits is
    dropped (they counted nothing: a read of 256 KB was 43,000 messages, 50 MB of the server's memory and 0.2 s of
    its CPU before the application took one)."""

    async def scenario() -> None:
        websocket, transport, hold = await _accepted_websocket(compressed=False)
        websocket.data_received(_masked(b"") * 2000)
        assert transport.closed
        assert _closed_with(transport) == 4429
        assert _waiting(websocket) == []
        websocket.connection_lost(None)
        hold.set()

    asyncio.run(scenario())


def test_a_programs_burst_sent_at_once_all_waits_for_the_server() -> None:
    """A program's whole burst (`program_rate_burst`, 400 `act` messages) written at once, compressed or not,
    waits whole for the application: the bound is past any burst a client may send."""
    act = b'{"type":"act","action":"move","settler":"s1","target":"a1","ref":"ref-000000000000000000000"}'

    async def scenario(compressed: bool) -> None:
        websocket, transport, hold = await _accepted_websocket(compressed)
        frame = _compressed_frame(act) if compressed else _masked(act)
        websocket.data_received(frame * 400)
        assert not transport.closed
        assert _waiting(websocket) == [act.decode()] * 400
        websocket.connection_lost(None)
        hold.set()

    asyncio.run(scenario(True))
    asyncio.run(scenario(False))


# ----- the client's files -----
def test_only_the_first_characters_of_accept_encoding_and_if_none_match_are_read(
        settings: Settings, client: TestClient) -> None:
    """A coding or an ETag named past the first `HEADER_CHARS` characters of its header is as if not named: a
    header of 60 KB (10,000 codings) is not read whole for each file asked for (8.3 ms of CPU a request, six times
    a file's cost). A browser's headers are read as they were."""
    filler = ("x;q=1," * 10_000)[:60_000]
    assert accepted("gzip, deflate, br, zstd") == {"gzip", "deflate", "br", "zstd"}
    assert "br" not in accepted(filler + ",br")
    assert len(filler) > HEADER_CHARS
    assets = settings.static_dir / "assets"
    assets.mkdir(parents=True)
    (settings.static_dir / "index.html").write_text("<!doctype html>")
    entry = assets / "main-ABCD1234.js"
    entry.write_text("console.log('the entry');")
    entry.with_name(entry.name + ".br").write_bytes(b"brotli bytes")
    compressed = client.get("/assets/main-ABCD1234.js", headers={"accept-encoding": "gzip, br"})
    assert compressed.headers["content-encoding"] == "br"
    plain = client.get("/assets/main-ABCD1234.js", headers={"accept-encoding": filler + ",br"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    etag = plain.headers["etag"]
    assert client.get("/assets/main-ABCD1234.js", headers={"if-none-match": etag}).status_code == 304
    late = client.get("/assets/main-ABCD1234.js", headers={"if-none-match": "," * 60_000 + etag})
    assert late.status_code == 200


# ----- IPv6 addresses -----
def test_an_ipv6_clients_network_counts_as_one_address() -> None:
    """The per-address limits count an IPv6 client by its /64 network (an IPv6 host has one to itself), an IPv4
    client by its address, an IPv4-mapped IPv6 address (a dual-stack socket's) as its IPv4 address."""
    assert client_key("2001:db8:0:1::1") == client_key("2001:db8:0:1:ffff:ffff:ffff:fffe") == "2001:db8:0:1::/64"
    assert client_key("2001:db8:0:2::1") == "2001:db8:0:2::/64"
    assert client_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert client_key("192.0.2.7") == "192.0.2.7"
    assert client_key("testclient") == "testclient"


def test_the_sockets_of_one_ipv6_network_share_one_cap() -> None:
    """With a cap of one socket an address, a second socket from another address of the same /64 network is
    refused before a byte is read, one from another network admitted (each address had a cap of its own: 2**64
    caps of 320 sockets)."""

    async def scenario() -> None:
        counter = SocketCounter(1)
        kind: Any = guarded_protocol(10.0, counter)
        config = uvicorn.Config(lambda scope, receive, send: None, log_config=None, lifespan="off")
        config.load()
        sockets = [Transport(peer) for peer in ("2001:db8:0:1::1", "2001:db8:0:1::2", "2001:db8:0:2::1")]
        for transport in sockets:
            kind(config=config, server_state=ServerState(), app_state={}).connection_made(transport)
        assert [transport.closed for transport in sockets] == [False, True, False]

    asyncio.run(scenario())


def test_games_and_websockets_of_an_ipv6_client_count_against_its_network(tmp_path: Path) -> None:
    """A game created over REST counts against its creator's /64 network, and so does a WebSocket connection."""
    settings = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static")
    with TestClient(create_app(settings), client=("2001:db8:0:1::7", 50000)) as client:
        answer = client.post("/api/games", json={"seats": 1})
        assert answer.status_code == 201, answer.text
        game = answer.json()
        assert hub_of(client).games[game["id"]].client == "2001:db8:0:1::/64"
        with client.websocket_connect(f"/api/games/{game['id']}/ws") as watching:
            assert watching.receive_json()["type"] == "state"
            assert dict(hub_of(client)._connected) == {"2001:db8:0:1::/64": 1}


# ----- the store's growth -----
def test_the_commands_an_addresss_games_store_are_charged_to_it(tmp_path: Path) -> None:
    """An address's bucket of new games' bytes (never refilled here: a rate of 0) holds its first game's belt and
    500 bytes more: ten commands played in that game (about a hundred bytes each, every one acknowledged) put it
    in debt, and its next game is refused `429 rate_limited`, nothing stored (the commands were charged nothing:
    sixteen games of programs stored 1,350 commands a second, 0.6 MB a second, where the bucket lets an address
    add 32 KB a second)."""
    base = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static")
    belt = len(orjson.dumps(checked_belt("tutorial", 0, base)[1]))
    settings = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static", create_bytes_per_second=0.0,
                        create_bytes_burst=belt + 500)
    body = {"seats": 1, "settlers_per_seat": 1, "belt": "tutorial"}
    with TestClient(create_app(settings)) as client:
        answer = client.post("/api/games", json=body)
        assert answer.status_code == 201, answer.text
        game = answer.json()
        assert hub_of(client).games[game["id"]].belt_bytes == belt
        with client.websocket_connect(f"/api/games/{game['id']}/ws?token={game['seats'][0]['token']}") as session:
            me = in_process(session)
            me.next_of("state")
            for ref in range(10):
                me.act("s1", "wait", ref=ref)
                assert me.next_of("update")["ref"] == ref
        refused = client.post("/api/games", json=body)
        assert refused.status_code == 429, refused.text
        assert refused.json()["error"]["code"] == "rate_limited"
        assert len(hub_of(client).games) == 1


# ----- a lesson's game let go -----
def test_reading_a_lessons_game_let_go_is_charged_as_any(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A lesson's game nobody has been connected to for `idle_game_seconds` is let go; each read of it (its goals,
    its view) loads it from the store and lets it go again after, so each takes a token of the address's history
    bucket as any game let go does: past the burst `429 rate_limited`, nothing loaded (each was a load, uncharged:
    3 ms of CPU on `first-game` at its start, ten times a `/api/health`, at no rate)."""
    settings = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static", history_rate_per_second=0.001,
                        history_rate_burst=5)
    with TestClient(create_app(settings)) as client:
        answer = client.post("/api/lessons/first-game/games")
        assert answer.status_code == 201, answer.text
        game_id = answer.json()["id"]
        hub = hub_of(client)
        hub.clock = lambda: time.time() + settings.idle_game_seconds + 1
        assert on_loop(client, hub.rest_idle) == 1
        loads = counted_loads(hub, monkeypatch)
        answers = [client.get(f"/api/games/{game_id}/goals", params={"lesson": "first-game"}).status_code
                   for _ in range(8)]
        assert answers == [200] * 5 + [429] * 3
        assert loads == [game_id] * 5
        assert game_id in hub.resting  # let go again after each read


# ----- request bodies -----
NESTED = b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[0]]]]]]]]]]]]]]]]]]]]]]]]]]]]],"
"""An item of arrays nested thirty deep (within `limits.MAX_DEPTH`): bodies of them cost the most to parse."""


def parsed_bodies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The lengths of the bodies the server parses from now on (`limits.parse_strict`), as it parses them."""
    parsed: list[int] = []
    parse = limits.parse_strict

    def watched(body: bytes) -> Any:
        parsed.append(len(body))
        return parse(body)

    monkeypatch.setattr(limits, "parse_strict", watched)
    return parsed


def test_a_large_body_is_taken_by_the_new_games_endpoint_only(client: TestClient, monkeypatch: pytest.MonkeyPatch,
                                                              two_seats: dict[str, Any]) -> None:
    """A body past `OTHER_BODY_BYTES` sent anywhere but `POST /api/games` is answered `413 too_large` unparsed,
    whether it declares its length or not (4 MB of arrays nested thirty deep, sent to `…/abandon`, was parsed and
    checked: 2.5 s of CPU, the event loop held up to 0.33 s); a token's body is taken as before, and so is a new
    game's belt of kilobytes."""
    parsed = parsed_bodies(monkeypatch)
    nested = b"[" + NESTED * 200 + b"0]"
    assert len(nested) > limits.OTHER_BODY_BYTES
    game = two_seats["id"]
    for path in (f"/api/games/{game}/abandon", f"/api/games/{game}/hint", "/api/lessons/fly/games", "/api/health"):
        refused = client.post(path, content=nested, headers={"content-type": "application/json"})
        assert refused.status_code == 413, (path, refused.text)
        assert refused.json()["error"]["code"] == "too_large"
        chunked = client.post(path, content=iter([nested[:3000], nested[3000:]]))
        assert chunked.status_code == 413, (path, chunked.text)
    assert parsed == []
    token = two_seats["seats"][0]["token"]
    abandoned = client.post(f"/api/games/{game}/abandon", json={"token": token})
    assert abandoned.status_code == 200, abandoned.text
    belt = checked_belt("standard", 1, Settings(data_dir=Path(".")))[1]
    body = orjson.dumps({"seats": 1, "belt": belt})
    assert len(body) > 6 * limits.OTHER_BODY_BYTES
    created = client.post("/api/games", content=body, headers={"content-type": "application/json"})
    assert created.status_code == 201, created.text


def test_a_large_new_games_body_is_charged_to_its_address_before_it_is_parsed(tmp_path: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A new game's body over `PARSE_INLINE` is charged to its address's bucket of new games' bytes as it is read,
    whatever comes of it: three bodies of 40 KB of arrays nested thirty deep are refused `422` and put the bucket
    (100 KB, never refilled here) in debt, and the fourth is refused `429 rate_limited` unparsed (each was parsed,
    refused and charged nothing: 4 MB of them cost 1.9 s of CPU each, at no rate). A game created from a large
    body is charged its belt's bytes or its body's, not both."""
    settings = Settings(data_dir=tmp_path / "data", static_dir=tmp_path / "static", create_bytes_per_second=0.0,
                        create_bytes_burst=100_000)
    nested = b"[" + NESTED * 650 + b"0]"
    assert limits.PARSE_INLINE < len(nested) < 41_000
    parsed = parsed_bodies(monkeypatch)
    with TestClient(create_app(settings)) as client:
        codes = [client.post("/api/games", content=nested, headers={"content-type": "application/json"}).status_code
                 for _ in range(4)]
        assert codes == [422, 422, 422, 429]
        assert len(parsed) == 3
    belt = checked_belt("standard", 1, settings)[1]
    body = orjson.dumps({"seats": 1, "belt": belt})
    assert len(body) > limits.PARSE_INLINE
    with TestClient(create_app(settings)) as client:
        created = client.post("/api/games", content=body, headers={"content-type": "application/json"})
        assert created.status_code == 201, created.text
        stored = hub_of(client).games[created.json()["id"]].belt_bytes
        level = client.app.state.create_limiter._buckets["testclient"]._level  # type: ignore[attr-defined]
        assert settings.create_bytes_burst - level <= max(len(body), stored) + 2


# ----- query parameters -----
def test_a_query_of_too_many_parameters_is_414_and_closed() -> None:
    """A request whose query has more than `MAX_QUERY_PARAMETERS` parameters is answered `414` and its connection
    closed before the application sees it (4,000 parameters in 8 KB cost 4.3 ms of CPU a request to
    `/api/health`, thirteen times a short one's); one of `MAX_QUERY_PARAMETERS` reaches it."""

    async def scenario() -> None:
        served: list[bytes] = []

        async def app(scope: Any, receive: Any, send: Any) -> None:
            served.append(scope["query_string"])
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        protocol, transport = _protocol(app)
        query = b"&".join([b"a=1"] * MAX_QUERY_PARAMETERS)
        protocol.data_received(b"GET /api/health?" + query + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        for _ in range(3):
            await asyncio.sleep(0)
        assert served == [query] and not transport.closed
        protocol.data_received(b"GET /api/health?" + query + b"&a=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        assert transport.closed
        assert served == [query]
        assert transport.written.count(b"HTTP/1.1 414 URI Too Long") == 1
        protocol.connection_lost(None)

    asyncio.run(scenario())


# ----- names -----
def test_a_belt_name_that_would_disguise_itself_is_refused(client: TestClient) -> None:
    """A new game's belt named `"\\u202e\\u0000evil"` was stored and listed in the lobby, beside other players'
    games: a right-to-left override turns the text after it, so one game's name could pass for another's. Control
    characters and the characters that change the direction of text are refused in a belt's name and description
    (`422 invalid` naming `belt.name` and the character), and nothing is stored."""
    belt = {"format": "asteroid-mining/belt", "version": 1, "name": "\u202e\u0000evil", "start": "A",
            "asteroids": [{"id": "A"}, {"id": "B"}], "links": [["A", "B"]]}
    before = client.get("/api/games").json()["total"]
    answer = client.post("/api/games", json={"seats": 1, "belt": belt})
    assert answer.status_code == 422, answer.text
    error = answer.json()["error"]
    assert error["code"] == "invalid" and error["message"].startswith("belt.name: ") and "U+202E" in error["message"]
    assert client.get("/api/games").json()["total"] == before
    belt["name"] = "Kisbolygóöv"
    assert client.post("/api/games", json={"seats": 1, "belt": belt}).status_code == 201
