"""Connection limits below the application: a per-address cap on open sockets and a deadline for headers.

uvicorn times out idle keep-alive connections (`timeout_keep_alive`) and answers 503 past a total
(`limit_concurrency`), but a connection that sends *part* of its headers, a byte now and then, is never timed
out, and nothing limits how many sockets one address holds: some thousands of such connections take every file
descriptor of the process. `guarded_protocol` makes uvicorn's HTTP protocol (httptools) also

- close a connection whose request headers are not complete `header_timeout` seconds after it opened (or after
  its previous response), however slowly they trickle in;
- answer `431` and close a connection whose request's target and headers pass `MAX_HEADER_BYTES` (httptools
  itself keeps all it is sent), and `414` one whose target alone passes `MAX_TARGET_BYTES`;
- answer `431` and close a connection whose request has more than `MAX_HEADER_COUNT` header lines, or whose
  request's head takes more than `MAX_HEAD_WIRE_BYTES` on the wire (httptools skips whitespace unseen);
- answer `400` and close a connection whose request's chunked body has more framing (chunk-size lines, their
  leading zeros and extensions) than `MAX_BODY_FRAMING_BYTES` beyond a share of its data;
- close a connection whose request's body goes on after the request was answered (uvicorn parsed it to drop it,
  for as long as it came: a `GET` with an endless body of one-byte chunks kept the event loop's core busy);
- close a connection with more than `MAX_PIPELINED` requests waiting behind the one being answered (HTTP/1.1
  pipelining), and read no more of one while any wait (uvicorn read on after each answer, queueing all it read);
- answer `431` and close a connection whose WebSocket handshake offers more than `MAX_NEGOTIATION_BYTES` of
  extensions and subprotocols (`websockets` parses each, a few microseconds apiece);
- refuse (close at once, before reading a byte) a connection from an address that already has
  `max_sockets` open — HTTP, keep-alive and WebSocket connections alike, counted by their transports, which stay
  the same when a connection is upgraded to a WebSocket.

A connection upgraded to a WebSocket is served by `GuardedWebSocket`, uvicorn's `websockets` sans-I/O protocol
with two defects of its own mended: it answered every ping with a pong written to the socket whether or not the
client read anything (a client that sends pings and never reads grew the server's memory without bound), and it
logged a traceback for a text message that is not UTF-8 before closing the connection with 1007. It also closes
with 4429 (a flood, as the application does) a connection whose messages waiting for the application pass
`ws_max_size` (every message of a read
was made and queued at once: 43,000 empty frames, or 850 compressed messages of 250 KB each), and one sending
pings or pongs past `CONTROL_BURST` at once and `CONTROL_PER_SECOND` after (`ControlLimitedProtocol`: they never
reach the application's rate limit, and each ping was answered).

It also offers compression for large messages only (`LargeMessageDeflate`): a client that offers
permessage-deflate (RFC 7692; every browser does) gets a message of `DEFLATE_MIN_BYTES` or more compressed, and
every shorter one as it is (RSV1 unset: RFC 7692 lets each message be compressed or not). A game's first `state`
on a large belt is half a megabyte of JSON and a tenth of it deflated; an update is a kilobyte or two, which
compressing would cost the server more than it saves the network. uvicorn's own switch
(`ws_per_message_deflate`) compresses every message or none.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, NoReturn

import orjson
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState, ProtocolError
from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory
from websockets.frames import Frame, Opcode
from websockets.server import ServerProtocol
from websockets.typing import ExtensionParameter

from .errors import ServerError
from .replay_cache import ReadLimiter
from .security import TokenBucket, client_key

log = logging.getLogger(__name__)


CLOSE_INVALID_TEXT = 1007
"""RFC 6455's close code for a text message that is not UTF-8."""
CLOSE_TOO_BIG = 1009
"""RFC 6455's close code for a message too big to process."""
CLOSE_FLOOD = 4429
"""The close code of a client sending more than the server takes (the application's, `play.CLOSE_FLOOD`)."""
MAX_FRAGMENTS = 64
"""The most frames (fragments) one WebSocket message may come in: past it the connection is closed with 1009.
Each frame costs the server about 5 µs however short it is, and the rate limits count whole messages: a 60 KB
message sent a byte a frame cost 290 ms of CPU, twenty of them a second within the rate limit, and a message
never finished was never counted. Browsers send a message in one frame."""
CLOSE_POLICY = 1008
"""RFC 6455's close code for a message that breaks the server's rules (here: one whose fragments come too slowly)."""
MESSAGE_SECONDS = 20.0
"""Seconds a WebSocket message sent in fragments may take from its first fragment to its last: past them the
connection is closed with 1008 (`GuardedWebSocket`). The rate limits count whole messages, and between fragments
a client may answer the server's pings: 40 connections each holding a message of 63 fragments (252 KB) never
finished, answering every ping, were kept for as long as they were open (75 s measured, 7 MB of the server's
memory), `max_connections_per_client` of them a quarter of a gigabyte-second each minute. A message in one frame
cannot outlast the pings' deadline (no pong can come in the middle of a frame); browsers send each in one."""
CLOSING_GRACE = 5.0
"""Seconds a closing connection's client may take nothing of what it has not read before its socket is aborted."""
SHUT_OUT_CODES = frozenset({4400, 4401, 4403, 4429})
"""The close codes the application closes a connection with for what its client did (a bad request, a bad token, a
refused origin, a flood: `play.CLOSE_*`): the client's frames are no longer read (`GuardedWebSocket.shut_out`)."""
SHUT_OUT_SECONDS = 1.0
"""Seconds a connection closed for what its client did stays open after its close frame (its frames dropped
unparsed, the server's side shut): then its socket is aborted. uvicorn waits 10 s for the client's close frame,
reading and parsing every frame that comes meanwhile: a flooding client's, hundreds of thousands a second."""
MAX_HEADER_BYTES = 65536
"""The most bytes a request's target and headers may have together (a WebSocket's handshake included): past it
the request is answered `431` and its connection closed. uvicorn's httptools protocol sets no bound: 50 MB of
headers sent within the header deadline were held whole, 50 MB of the server's memory for one socket."""
HEADERS_TOO_LARGE = (b'{"error":{"code":"headers_too_large","message":"the request\'s target and headers may be at '
                     b'most %d bytes"}}')
MAX_HEAD_WIRE_BYTES = 2 * MAX_HEADER_BYTES
"""The most bytes a request's head may take on the wire (its request line and header lines whole, whitespace
included): past it the request is answered `431` and its connection closed. `MAX_HEADER_BYTES` counts the target
and the headers' names and values, and httptools skips the spaces around them unseen: a request line of endless
spaces (`GET` then spaces) was read until the header deadline, 2 GB in 5 s on one socket, 2 s of CPU (spaces
before a header's value: 1 GB, 1.3 s), at no rate."""
HEAD_TOO_LARGE = (b'{"error":{"code":"headers_too_large","message":"the request\'s head (its request line and header '
                  b'lines, whitespace included) may be at most %d bytes"}}')
MAX_TARGET_BYTES = 8192
"""The most bytes a request's target (path and query) may have: past it the request is answered `414` and its
connection closed, before it reaches the application or the log. A 60 KB query of 15,000 parameters cost 27 ms of
CPU a request (parsed for the endpoint, read again for tokens by the log's filter: 50 times a short request's) and
wrote 31 KB to the log; the longest target the game uses is a WebSocket's, under 200 bytes."""
TARGET_TOO_LONG = (b'{"error":{"code":"uri_too_long","message":"the request\'s target (path and query) may be at '
                   b'most %d bytes"}}')
MAX_PIPELINED = 32
"""The most requests one connection may have waiting behind the one being answered (HTTP/1.1 pipelining): past
it the connection is closed, nothing more of it read. uvicorn queued every pipelined request it parsed and read
on after each answer: one socket sending `GET /api/health` in a loop, reading the answers, had 7,000 requests
parsed and queued for each one answered, and grew the server by 170 MB a second (1.8 GB in 10 s, never given
back), the event loop's core busy parsing. Browsers do not pipeline; a client that does waits for its answers."""
FEED_BYTES = 512
"""The most bytes of a WebSocket connection's input handed to the parser at once (`GuardedWebSocket`): the parser
makes every message of what it is handed before the application takes one, and 512 bytes are 85 empty frames, or
two compressed messages of `ws_max_size` (one deflates to a quarter of a kilobyte)."""
WAITING_MESSAGE_BYTES = 256
"""What a message waiting for the application counts besides its text (`GuardedWebSocket.waiting`): its event
and frame cost about a kilobyte, and a read of 256 KB of empty frames was 43,000 messages, 50 MB."""
MAX_QUERY_PARAMETERS = 32
"""The most parameters (`&`-separated) a request's query may have: past it the request is answered `414` and its
connection closed, as a target too long is. Every query is parsed for its endpoint and read again for tokens by the
log's filter, two microseconds a parameter: 4,000 of them (`?a&a&…`, 8 KB) cost 4.3 ms of CPU a request to
`/api/health`, thirteen times a short one's, at no rate. The game's requests have three at most."""
TOO_MANY_PARAMETERS = (b'{"error":{"code":"uri_too_long","message":"the request\'s query may have at most %d '
                       b'parameters"}}')
MAX_HEADER_COUNT = 128
"""The most header lines a request may have (`websockets` takes as many in a handshake): past it the request is
answered `431` and its connection closed, as headers too large are. Each header costs the server a few hundred
nanoseconds however short it is (parsed, listed, read again by the framework): 16,000 empty ones (`a:`, 64 KB)
cost 15.4 ms of CPU a request to `/api/health`, 26 times a short one's, at no rate. Browsers send about twenty."""
HEADERS_TOO_MANY = (b'{"error":{"code":"headers_too_large","message":"a request may have at most %d header '
                    b'lines"}}')
MAX_BODY_FRAMING_BYTES = 65536
"""The most bytes of a request's body on the wire besides its data (chunk-size lines, their extensions, line ends)
beyond an eighth of its data (`MAX_BODY_FRAMING_SHARE`): past it the request is answered `400` (unless answered
already) and its connection closed, nothing more of it read. A chunk-size line may have any number of leading
zeros and any extension, which reach no bound counting a body's data: one socket sent `POST /api/games` a chunk
whose extension went on for 1.5 GB in 5 s (or a size of 460 MB of zeros), 1.5 s of CPU, read until the body's
deadline (`body_timeout`, 30 s) at no rate. A client's chunks of 100 bytes or more have far less framing."""
MAX_BODY_FRAMING_SHARE = 8
"""A body's framing may pass `MAX_BODY_FRAMING_BYTES` by one byte for each `MAX_BODY_FRAMING_SHARE` of its data."""
BODY_FRAMING = (b'{"error":{"code":"invalid","message":"a chunked body\'s framing (chunk-size lines and their '
                b'extensions) may be at most %d bytes and one byte in %d of its data"}}')
CONTROL_BURST = 64
"""The most pings and pongs a WebSocket connection may send at once (`ControlLimitedProtocol`), refilled at
`CONTROL_PER_SECOND`: past them the connection is closed with 4429, as a flood of messages is. Control frames never
reach the application, whose rate limit counts messages: one socket sending empty pings as fast as it could had
1.9 million answered in 10 s, 13 s of the server's CPU, `/api/health` answered in 7.3 s (median; 1.3 ms without),
and was never closed. Browsers send none; a client library pings every 20 s or so, and answers the server's."""
CONTROL_PER_SECOND = 2.0
"""The rate at which a connection's allowance of pings and pongs (`CONTROL_BURST`) is refilled."""
MAX_NEGOTIATION_BYTES = 1024
"""The most bytes a WebSocket handshake's `Sec-WebSocket-Extensions` and `Sec-WebSocket-Protocol` values may have
together: past it the handshake is answered `431` and its connection closed, before `websockets` or the
application sees it. `websockets` parses every offer of an extension and every subprotocol named (and uvicorn
splits the subprotocols again for the application), a few microseconds each, within the bounds of any header (8
KB a line, 128 lines): seven lines of 2,600 extension names cost 30 ms of CPU a handshake, 4,000 subprotocols a
line 31.5 ms, 35 times a plain handshake's (0.9 ms), sixty at once within the rate of new connections. A browser
offers one extension in about forty bytes; the game names no subprotocol."""
NEGOTIATION_TOO_LARGE = (b'{"error":{"code":"headers_too_large","message":"a WebSocket handshake\'s '
                         b'Sec-WebSocket-Extensions and Sec-WebSocket-Protocol may have at most %d bytes"}}')
NEGOTIATION_HEADERS = frozenset({b"sec-websocket-extensions", b"sec-websocket-protocol"})
"""The headers `MAX_NEGOTIATION_BYTES` counts (lower case, as uvicorn gives them)."""
DEFLATE_MIN_BYTES = 16384
"""A message this long (its UTF-8 bytes) or longer is compressed for a client that offers permessage-deflate; a
shorter one is sent as it is. Updates are far shorter; a game's first `state` on a standard belt or larger is
longer."""
DEFLATE_LEVEL = 1
"""zlib's level for a large message: a `large` belt's first state (570 KB) deflates to 70 KB in about 4 ms of the
server's time at level 1, to 54 KB in about 25 ms at level 6 (docs/server.md, Performance)."""


DEFLATED_KEPT_BYTES = 8 * 1024 * 1024
"""The most bytes of large messages and their compressed forms kept (`Deflated`)."""


class Deflated:
    """The compressed forms of the last large messages sent, by their bytes and window: the same message (a
    game's first `state`, shared by every spectator who joins at one seq) is compressed once, not once for each
    connection (4 ms on a `large` belt). With no context takeover a message compresses to the same bytes
    whichever connection sends it. At most `limit` bytes are kept, messages and compressed forms together, the
    least recently sent dropped first."""

    def __init__(self, limit: int = DEFLATED_KEPT_BYTES) -> None:
        self.limit = limit
        self.size = 0
        self.made = 0
        """How many messages have been compressed (the others were found here)."""
        self._kept: OrderedDict[tuple[int, bytes], bytes] = OrderedDict()

    def get(self, window: int, data: bytes) -> bytes | None:
        """The compressed form of `data` sent with `window` bits, when kept."""
        found = self._kept.get((window, data))
        if found is not None:
            self._kept.move_to_end((window, data))
        return found

    def keep(self, window: int, data: bytes, deflated: bytes) -> None:
        """Keep `deflated`, the compressed form of `data`; the least recently sent go past the limit."""
        size = len(data) + len(deflated)
        if size > self.limit // 4 or (window, data) in self._kept:
            return
        self._kept[(window, data)] = deflated
        self.size += size
        while self.size > self.limit:
            (_, old), gone = self._kept.popitem(last=False)
            self.size -= len(old) + len(gone)


DEFLATED = Deflated()
"""The compressed large messages of the process (the event loop's: one thread sends)."""


class LargeMessageDeflate(PerMessageDeflate):
    """permessage-deflate that compresses only messages of `DEFLATE_MIN_BYTES` or more (the server sends each
    message in one frame); shorter ones go as they are, RSV1 unset, which a client reads as uncompressed. A large
    message sent before is not compressed again (`Deflated`)."""

    def encode(self, frame: Frame) -> Frame:
        """The frame compressed when it is a whole data message of `DEFLATE_MIN_BYTES` or more; else as it is."""
        whole = frame.fin and frame.opcode in (Opcode.TEXT, Opcode.BINARY)
        if whole and len(frame.data) < DEFLATE_MIN_BYTES:
            return frame
        if not (whole and self.local_no_context_takeover and isinstance(frame.data, bytes)):
            return super().encode(frame)
        window = self.local_max_window_bits
        kept = DEFLATED.get(window, frame.data)
        if kept is None:
            encoded = super().encode(frame)
            DEFLATED.made += 1
            DEFLATED.keep(window, frame.data, bytes(encoded.data))
            return encoded
        return Frame(frame.opcode, kept, True, True, frame.rsv2, frame.rsv3)


class LargeMessageDeflateFactory(ServerPerMessageDeflateFactory):
    """Accepts a client's permessage-deflate offer as `LargeMessageDeflate`, with no context takeover either way:
    each message is compressed and decompressed on its own, so a connection keeps no zlib state between messages
    (a kept compressor is about 256 KiB, a kept decompressor 40 KiB, for each of thousands of connections)."""

    def __init__(self) -> None:
        super().__init__(server_no_context_takeover=True, client_no_context_takeover=True,
                         compress_settings={"level": DEFLATE_LEVEL})

    def process_request_params(self, params: Sequence[ExtensionParameter],
                               accepted_extensions: Sequence[Extension]) -> tuple[list[ExtensionParameter],
                                                                                   PerMessageDeflate]:
        """websockets' negotiation, with the extension that leaves small messages uncompressed."""
        response, agreed = super().process_request_params(params, accepted_extensions)
        return response, LargeMessageDeflate(agreed.remote_no_context_takeover, agreed.local_no_context_takeover,
                                             agreed.remote_max_window_bits, agreed.local_max_window_bits,
                                             agreed.compress_settings)


LARGE_MESSAGE_DEFLATE = LargeMessageDeflateFactory()
"""The one factory every connection offers (it keeps no state of its own)."""


class ControlFlood(ProtocolError):
    """A client sent pings and pongs past `CONTROL_BURST` (`ControlLimitedProtocol`)."""


class ControlLimitedProtocol(ServerProtocol):
    """`websockets`' server protocol that fails a connection whose client sends pings and pongs faster than
    `CONTROL_BURST` at once and `CONTROL_PER_SECOND` after, with 4429: websockets answers every ping as it parses
    it, before the application or uvicorn sees a frame."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.controls = TokenBucket(CONTROL_PER_SECOND, CONTROL_BURST)
        self.peer = "a client"
        """The client, as the log names it."""

    def recv_frame(self, frame: Frame) -> None:
        """Count a ping or a pong; past the allowance the connection fails with 4429, the frame unanswered."""
        if frame.opcode in (Opcode.PING, Opcode.PONG) and not self.controls.take():
            self.logger.info("%s - WebSocket pings and pongs sent past %d at once and %g a second: closed with %d",
                             self.peer, CONTROL_BURST, CONTROL_PER_SECOND, CLOSE_FLOOD)
            self.fail(CLOSE_FLOOD, "pings sent faster than the server takes them")
            raise ControlFlood("pings and pongs past the allowance")  # (the parser stops: nothing more is read)
        super().recv_frame(frame)


class GuardedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's `websockets` sans-I/O protocol that buffers no pong for a client that does not read, closes a
    connection sending text that is not UTF-8 with 1007 and one line in the log, no traceback, closes one sending
    a message in more than `MAX_FRAGMENTS` fragments with 1009, aborts the
    socket of a closing connection whose client takes nothing (uvicorn closes it the polite way, which waits until
    the socket's buffer has been written: for ever, when the client reads nothing), and compresses large messages
    only (`LargeMessageDeflate`) for a client that offers permessage-deflate, and closes one whose message's
    fragments take over `MESSAGE_SECONDS` with 1008. A connection the application
    closes for what its client did (`SHUT_OUT_CODES`: a flood told `4429`) is shut out: nothing more of it is
    parsed, and its socket is aborted `SHUT_OUT_SECONDS` later."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # the parser of uvicorn's choices, that closes a client sending pings or pongs past `CONTROL_BURST` (with
        # compression, ours, when uvicorn's is off: the server's configuration)
        self.conn = ControlLimitedProtocol(extensions=self.conn.available_extensions or [LARGE_MESSAGE_DEFLATE],
                                           max_size=self.config.ws_max_size, logger=self.conn.logger)
        self.shut = False
        """The connection is shut out (`shut_out`): what its client sends is dropped unparsed."""
        self.message_timer: asyncio.TimerHandle | None = None
        """The deadline of the message whose fragments are arriving (`MESSAGE_SECONDS`)."""
        self.waiting = 0
        """The messages received and not yet taken by the application, as their characters (bytes of a binary
        message) and `WAITING_MESSAGE_BYTES` each: past `ws_max_size` and one message's `WAITING_MESSAGE_BYTES`
        the connection is closed (`swamped`), so that one message of the largest frame waits alone (it was closed
        as a flood, 4429, rather than answered `too_large`)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """uvicorn's, and the parser told the client's address for its log."""
        super().connection_made(transport)
        if isinstance(self.conn, ControlLimitedProtocol):
            self.conn.peer = _peer(self.client)

    def data_received(self, data: bytes) -> None:
        """Read the client's bytes; a handshake `websockets` refuses is answered and closed.

        `websockets` refuses a handshake with a header line over 8 KiB or more than 128 headers (the HTTP layer
        took them: `MAX_HEADER_BYTES`) by writing a `431` where uvicorn never looks, and then waits: the client
        heard nothing and the socket stayed open for as long as the client kept it (a browser's Cookie header
        can pass 8 KiB).

        The messages the parser makes of the bytes read wait for the application, which takes one at a time: a
        connection with more than `ws_max_size` of them waiting (`waiting`) is closed with 4429 (`swamped`). Once
        the handshake is read the parser is handed `FEED_BYTES` at a time, so that it stops soon: with compression
        300 bytes inflate to a message of 250 KB, and one read of 256 KB was 850 such messages, 212 MB of text
        waiting on one connection; without, 43,000 empty messages (50 MB, 0.2 s of CPU)."""
        if self.shut:  # dropped as it comes: read (so that the close frame is not lost to a reset), not parsed
            return
        if self.handshake_initiated and len(data) > FEED_BYTES:
            for start in range(0, len(data), FEED_BYTES):
                super().data_received(data[start:start + FEED_BYTES])
                if self.waiting > self.config.ws_max_size + WAITING_MESSAGE_BYTES:
                    self.swamped()
                    return
                if self.shut or self.transport.is_closing():
                    return
            return
        super().data_received(data)
        if self.waiting > self.config.ws_max_size + WAITING_MESSAGE_BYTES:
            self.swamped()
            return
        if self.conn.handshake_exc is not None and not self.handshake_complete and not self.transport.is_closing():
            self.logger.info("%s - a WebSocket handshake refused (%s): answered and closed", _peer(self.client),
                             self.conn.handshake_exc)
            self.handshake_complete = True  # (as once the connection is lost: nothing more is sent or read)
            self.close_sent = True
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.transport.close()

    async def send(self, message: Any) -> None:
        """uvicorn's `send`; a handshake refused with an HTTP answer (`send_denial_response`) counts as answered,
        which uvicorn logged as an error ("returned without completing handshake") for every refused origin."""
        await super().send(message)
        if message["type"] == "websocket.http.response.body" and not message.get("more_body", False):
            self.handshake_complete = True  # (as once the connection is lost, which this answer's close brings)
        elif message["type"] == "websocket.close" and message.get("code") in SHUT_OUT_CODES:
            self.shut_out()

    def shut_out(self) -> None:
        """Once the close frame is written: parse nothing more of the client (uvicorn read and parsed every frame
        for 10 s waiting for the client's close frame, a flood's included), shut the server's side of the socket
        (the client reads the close frame, then the end), and abort the socket `SHUT_OUT_SECONDS` later unless it
        has closed by then."""
        if self.shut or self.transport is None:
            return
        self.shut = True
        self.frames = []
        if self.close_timer is not None:
            self.close_timer.cancel()
            self.close_timer = None
        transport = self.transport
        if not transport.is_closing() and transport.can_write_eof():
            transport.write_eof()  # once what is buffered (the close frame last) is written

        def abort() -> None:
            if not self.disconnected:
                transport.abort()

        self.loop.call_later(SHUT_OUT_SECONDS, abort)

    def keepalive_timeout(self) -> None:
        """The client did not answer a ping in time: uvicorn closes the connection; abort it if it is stuck."""
        super().keepalive_timeout()
        self.abort_when_stuck(CLOSING_GRACE)

    async def run_asgi(self) -> None:
        """The application, then: abort the socket if the client takes nothing of what is left to write."""
        await super().run_asgi()
        self.abort_when_stuck(CLOSING_GRACE)

    def abort_when_stuck(self, grace: float) -> None:
        """Abort the socket once it has had bytes to write and the client has taken none for `grace` seconds,
        unless it has closed by then."""
        # a method that the timer calls again, not a closure naming itself: that closure and its cell were a cycle
        # holding the connection, freed only by a full collection (rare in the server: `main.GC_THRESHOLDS`)
        self.loop.call_later(grace, self._abort_if_stuck, grace, 1 << 62)

    def _abort_if_stuck(self, grace: float, before: int) -> None:
        """`abort_when_stuck`'s look at the socket, every `grace` seconds: `before` bytes were waiting last time."""
        if self.disconnected or self.transport is None:
            return
        now = self.transport.get_write_buffer_size()
        if now and now >= before:
            self.logger.info("%s - a WebSocket client took nothing for %gs: its socket is aborted",
                             _peer(self.client), grace)
            self.transport.abort()
        else:
            self.loop.call_later(grace, self._abort_if_stuck, grace, now or 1 << 62)

    def handle_ping(self) -> None:
        """Answer a ping, unless the socket's write buffer is over its high-water mark (uvicorn then waits before
        it writes anything else): the client is not reading, and its pongs would pile up in the server's memory.
        RFC 6455 (5.5.3) lets an endpoint answer only the latest of several pings; one that reads again gets the
        pongs of the pings it sends from then on."""
        output = self.conn.data_to_send()  # the pongs websockets made (nothing else waits there: see `send`)
        if self.writable.is_set() and not self.transport.is_closing():
            self.transport.write(b"".join(output))

    def _refuse(self, code: int, reason: str) -> None:
        """Close the connection for what its client sent: the close frame with `code` and `reason` written, and
        nothing more of it parsed (`handle_parser_exception`); a connection closing already is just closed."""
        self._untime_message()
        try:
            self.conn.send_close(code, reason)
        except InvalidState:  # closing already
            self.transport.close()
            return
        self.handle_parser_exception()

    def swamped(self) -> None:
        """More of the client's messages wait than the largest one may be: what waits is dropped, and the
        connection closed with 4429, as the application closes a flood, its socket closed once the close frame is
        written: the client sends faster than the server takes its messages."""
        self.logger.info("%s - WebSocket messages of over %d bytes waiting for the server: closed with %d",
                         _peer(self.client), self.config.ws_max_size, CLOSE_FLOOD)
        kept = []
        while not self.queue.empty():
            event = self.queue.get_nowait()
            if event["type"] != "websocket.receive":
                kept.append(event)
        for event in kept:
            self.queue.put_nowait(event)
        self.waiting = 0
        self.frames = []
        self._refuse(CLOSE_FLOOD, "messages sent faster than the server takes them")

    async def receive(self) -> Any:
        """The application takes the next message: it waits no more (`waiting`)."""
        message = await super().receive()
        if message["type"] == "websocket.receive":
            self.waiting -= len(message.get("text") or message.get("bytes") or "") + WAITING_MESSAGE_BYTES
        return message

    def handle_text(self, event: Frame) -> None:
        """uvicorn's; the first fragment of a message in several starts its deadline (`MESSAGE_SECONDS`)."""
        super().handle_text(event)
        self._time_message(event)

    def handle_bytes(self, event: Frame) -> None:
        """uvicorn's; the first fragment of a message in several starts its deadline (`MESSAGE_SECONDS`)."""
        super().handle_bytes(event)
        self._time_message(event)

    def _time_message(self, first: Frame) -> None:
        if not first.fin and self.message_timer is None and not self.close_sent:
            self.message_timer = self.loop.call_later(MESSAGE_SECONDS, self._message_late)

    def _untime_message(self) -> None:
        # (the handle holds this object's method: cancelled, it lets it go)
        if self.message_timer is not None:
            self.message_timer.cancel()
            self.message_timer = None

    def _message_late(self) -> None:
        """A message's fragments took over `MESSAGE_SECONDS`: the connection is closed with 1008."""
        self.message_timer = None
        if not self.frames or self.close_sent or self.shut or self.disconnected:
            return
        self.logger.info("%s - a WebSocket message's fragments took over %gs: closed with %d", _peer(self.client),
                         MESSAGE_SECONDS, CLOSE_POLICY)
        self.frames = []
        self._refuse(CLOSE_POLICY, f"a message's fragments must arrive within {MESSAGE_SECONDS:g} seconds")

    def connection_lost(self, exc: Exception | None) -> None:
        """uvicorn's; a message's deadline goes with the connection."""
        self._untime_message()
        super().connection_lost(exc)

    def handle_cont(self, event: Frame) -> None:
        """Add a fragment to the message being received; past `MAX_FRAGMENTS` close the connection with 1009."""
        if self.close_sent:  # closing: what follows is dropped
            return
        if len(self.frames) >= MAX_FRAGMENTS:
            self.logger.info("%s - a WebSocket message in more than %d fragments: closed with %d",
                             _peer(self.client), MAX_FRAGMENTS, CLOSE_TOO_BIG)
            self.frames = []
            self._refuse(CLOSE_TOO_BIG, f"a message may come in at most {MAX_FRAGMENTS} fragments")
            return
        super().handle_cont(event)

    def send_receive_event_to_app(self) -> None:
        """Hand a whole message to the application; a text message that is not UTF-8 closes the connection with
        1007 instead (uvicorn logged a traceback for it)."""
        self._untime_message()
        if self.curr_msg_data_type != "text":
            size = sum(map(len, self.frames))
            if not self.close_sent:
                self.waiting += size + WAITING_MESSAGE_BYTES
            super().send_receive_event_to_app()
            return
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:  # past the application's close: dropped, as uvicorn does
            return
        try:
            text = data.decode()
        except UnicodeDecodeError as bad:
            self.logger.info("%s - a WebSocket text message that is not UTF-8 (%s): closed with 1007",
                             _peer(self.client), bad.reason)
            self._refuse(CLOSE_INVALID_TEXT, "invalid UTF-8")
            return
        self.queue.put_nowait({"type": "websocket.receive", "text": text})
        self.waiting += len(text) + WAITING_MESSAGE_BYTES
        if not self.read_paused:
            self.read_paused = True
            self.transport.pause_reading()


def _peer(client: tuple[str, int] | None) -> str:
    return f"{client[0]}:{client[1]}" if client else "a client"


class SocketCounter:
    """The open sockets of each address (their transports; closed ones are dropped when next looked at)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: dict[str, set[asyncio.BaseTransport]] = {}
        self.refused = 0

    def admit(self, address: str, transport: asyncio.BaseTransport) -> bool:
        """Count `transport` for `address`; False (not counted) when the address has as many open as it may."""
        mine = self._open.setdefault(address, set())
        if len(mine) >= self.limit:
            mine.difference_update([t for t in mine if t.is_closing()])
        if len(mine) >= self.limit:
            self.refused += 1
            return False
        mine.add(transport)
        return True

    def release(self, address: str, transport: asyncio.BaseTransport) -> None:
        """`transport` has closed."""
        mine = self._open.get(address)
        if mine is not None:
            mine.discard(transport)
            if not mine:
                del self._open[address]

    def open(self, address: str) -> int:
        """How many sockets `address` has open now."""
        mine = self._open.get(address, set())
        mine.difference_update([t for t in mine if t.is_closing()])
        return len(mine)


class _HeadersTooLarge(Exception):
    """Raised in a parser's callback: httptools stops and uvicorn answers the request as malformed."""


def guarded_protocol(header_timeout: float, counter: SocketCounter, max_header_bytes: int = MAX_HEADER_BYTES,
                     max_target_bytes: int = MAX_TARGET_BYTES,
                     connect_limiter: ReadLimiter | None = None,
                     max_pipelined: int = MAX_PIPELINED) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol with the header deadline, the bound on their size and the per-address cap (see
    the module); with `connect_limiter`, a WebSocket handshake from an address past its rate of new connections
    is answered `429` here, before the WebSocket's protocol or the application sees it (a refusal that reached
    the application cost 1.1 ms of CPU: a client that does not wait cost as much refused as served)."""

    class GuardedProtocol(HttpToolsProtocol):
        """`HttpToolsProtocol` with a deadline for each request's headers, a bound on their bytes and a per-address
        socket cap."""

        _refused = False
        _deadline: asyncio.TimerHandle | None = None
        _address = ""
        _header_bytes = 0
        _target_bytes = 0
        _parameters = 0
        _header_count = 0
        _refusal: tuple[str, bytes | None, bytes] | None = None
        """Why the parser was stopped (`_stop`): what the log says, the status answered (None: closed unanswered)
        and its body; `send_400_response` answers it."""
        _in_body = False
        _in_head = True
        _upgraded = False
        _upgrade_waiting = False
        """A WebSocket handshake waits for the answers of the requests sent before it (`handle_websocket_upgrade`)."""
        """The connection was handed to a WebSocket (`handle_websocket_upgrade`): no longer this protocol's."""
        _head_wire = 0
        """The bytes read of the request's head being read (the reads after the one it began in)."""
        _framing = 0
        """The bytes read of the body being read, less its data and an eighth of its data: past
        `MAX_BODY_FRAMING_BYTES` the connection is closed."""

        def on_message_begin(self) -> None:
            if len(self.pipeline) >= max_pipelined:
                # (no answer: it would come before those of the requests queued)
                self._stop(f"more than {max_pipelined} requests pipelined", None)
            self._header_bytes = self._target_bytes = self._parameters = self._header_count = 0
            super().on_message_begin()

        def on_url(self, url: bytes) -> None:  # (a long target may come in several parts)
            self._target_bytes += len(url)
            self._parameters += url.count(b"&")
            if self._target_bytes > max_target_bytes:
                self._stop(f"its request's target is over {max_target_bytes} bytes", b"414 URI Too Long",
                           TARGET_TOO_LONG % max_target_bytes)
            if self._parameters >= MAX_QUERY_PARAMETERS:  # (n `&` separate n + 1 parameters)
                self._stop(f"its request's query has over {MAX_QUERY_PARAMETERS} parameters", b"414 URI Too Long",
                           TOO_MANY_PARAMETERS % MAX_QUERY_PARAMETERS)
            self._count(len(url))
            super().on_url(url)

        def on_body(self, body: bytes) -> None:
            if self.cycle is not None and self.cycle.response_complete and not self.parser.should_upgrade():
                # answered, and uvicorn parsed the rest of the body only to drop it, for as long as it came (a
                # `GET` with an endless body of one-byte chunks held the event loop's core whole)
                self._stop("its request's body went on after its answer", None)  # (answered already)
            self._framing -= len(body) + len(body) // MAX_BODY_FRAMING_SHARE
            super().on_body(body)

        def on_message_complete(self) -> None:
            self._in_body = False
            self._in_head, self._head_wire = True, 0
            super().on_message_complete()

        def data_received(self, data: bytes) -> None:
            if self._in_body:  # (a read that begins the body is not counted: one read more at most)
                self._framing += len(data)
            if self._in_head:  # (nor one that begins a head)
                self._head_wire += len(data)
            super().data_received(data)
            if self._in_head and self._head_wire > MAX_HEAD_WIRE_BYTES and not self.transport.is_closing():
                log.info("closing a connection from %s: its request's head is over %d bytes on the wire",
                         self._address, MAX_HEAD_WIRE_BYTES)
                self._refuse_and_close(b"431 Request Header Fields Too Large", HEAD_TOO_LARGE % MAX_HEAD_WIRE_BYTES)
                return
            if self._in_body and self._framing > MAX_BODY_FRAMING_BYTES and not self.transport.is_closing():
                log.info("closing a connection from %s: its request's chunked body has over %d bytes of framing",
                         self._address, MAX_BODY_FRAMING_BYTES)
                if self.cycle is not None and self.cycle.response_started:
                    self.transport.close()
                else:
                    self._refuse_and_close(b"400 Bad Request",
                                           BODY_FRAMING % (MAX_BODY_FRAMING_BYTES, MAX_BODY_FRAMING_SHARE))

        def on_header(self, name: bytes, value: bytes) -> None:
            self._header_count += 1
            if self._header_count > MAX_HEADER_COUNT:
                self._stop(f"its request has over {MAX_HEADER_COUNT} header lines",
                           b"431 Request Header Fields Too Large", HEADERS_TOO_MANY % MAX_HEADER_COUNT)
            self._count(len(name) + len(value))
            super().on_header(name, value)

        def _count(self, size: int) -> None:
            self._header_bytes += size
            if self._header_bytes > max_header_bytes:
                self._stop(f"its request's headers are over {max_header_bytes} bytes",
                           b"431 Request Header Fields Too Large", HEADERS_TOO_LARGE % max_header_bytes)

        def _stop(self, why: str, status: bytes | None, body: bytes = b"") -> NoReturn:
            """Stop the parser here, nothing more of the connection read: `send_400_response`, which the parser's
            error leads to, answers `status` with `body` (or none) and closes the connection."""
            self._refusal = (why, status, body)
            raise _HeadersTooLarge

        def send_400_response(self, msg: str) -> None:
            if self._refusal is None:  # malformed: uvicorn's own answer
                super().send_400_response(msg)
                return
            why, status, body = self._refusal
            log.info("closing a connection from %s: %s", self._address, why)
            if status is None:
                self.transport.close()
            else:
                self._refuse_and_close(status, body)

        def _refuse_and_close(self, status: bytes, body: bytes, headers: dict[str, str] | None = None) -> None:
            """Answers `status` with a JSON `body` (and `headers`) and closes the connection (the request is not
            read further)."""
            more = b"".join(b"%s: %s\r\n" % (name.encode(), value.encode()) for name, value in (headers or {}).items())
            self.transport.write(b"HTTP/1.1 %s\r\ncontent-type: application/json\r\n%s"
                                 b"content-length: %d\r\nconnection: close\r\n\r\n%s"
                                 % (status, more, len(body), body))
            self.transport.close()

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            if self.ws_protocol_class is WebSocketsSansIOProtocol:  # uvicorn's choice ("auto"): ours instead
                self.ws_protocol_class = GuardedWebSocket

        def handle_websocket_upgrade(self) -> None:
            offered = sum(len(value) for name, value in self.scope["headers"] if name in NEGOTIATION_HEADERS)
            if offered > MAX_NEGOTIATION_BYTES:
                log.info("closing a connection from %s: its WebSocket handshake offers over %d bytes of extensions "
                         "and subprotocols", self._address, MAX_NEGOTIATION_BYTES)
                self._refuse_and_close(b"431 Request Header Fields Too Large",
                                       NEGOTIATION_TOO_LARGE % MAX_NEGOTIATION_BYTES)
                return
            if connect_limiter is not None:
                try:
                    connect_limiter.check(self._address)
                except ServerError as refused:
                    self._refuse_and_close(b"429 Too Many Requests", orjson.dumps(refused.body()),
                                           refused.headers or {})
                    return
            if self.cycle is not None and not self.cycle.response_complete:
                # a request sent before the handshake is being answered: the upgrade waits for its answer (and
                # those queued after it), nothing more read meanwhile; upgraded at once, the 101 and the
                # WebSocket's messages went out before that answer, which then came inside the WebSocket's stream
                self._upgrade_waiting = True
                self.flow.pause_reading()
                return
            self._upgrade()

        def _upgrade(self) -> None:
            super().handle_websocket_upgrade()
            self._upgraded = True

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer: Any = transport.get_extra_info("peername")
            self._address = client_key(str(peer[0]) if isinstance(peer, tuple) and peer else str(peer))
            if not counter.admit(self._address, transport):
                self._refused = True
                transport.abort()  # no answer: answering would cost what the cap is there to save
                return
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._refused:
                return
            self._disarm()
            counter.release(self._address, self.transport)
            super().connection_lost(exc)

        def on_headers_complete(self) -> None:
            self._disarm()
            self._in_body, self._framing = True, 0
            self._in_head = False
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._upgrade_waiting and not self.transport.is_closing() and self.cycle is not None \
                    and self.cycle.response_complete:
                self._upgrade_waiting = False
                self._upgrade()
            if self._upgraded:
                # the connection was upgraded to a WebSocket once this answer was complete (a request sent before
                # the handshake in the same read): it is the WebSocket's now, not an idle HTTP connection to time
                # out (uvicorn's keep-alive timer, armed above, closed it `keep_alive_seconds` after the 101)
                self._unset_keepalive_if_required()
                return
            if self.pipeline and not self.transport.is_closing():
                # uvicorn reads on after each answer, queued requests or not: read no more until they are answered
                self.flow.pause_reading()
            if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
                self._arm()  # the next request's headers have the same time to arrive

        def _arm(self) -> None:
            self._disarm()
            self._deadline = self.loop.call_later(header_timeout, self._headers_late)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _headers_late(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                log.info("closing a connection from %s: its request headers took over %gs", self._address,
                         header_timeout)
                self.transport.close()

    return GuardedProtocol
