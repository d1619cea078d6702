"""Connection limits below the application: a per-address cap on open sockets and a deadline for headers.

uvicorn times out idle keep-alive connections (`timeout_keep_alive`) and answers 503 past a total
(`limit_concurrency`), but a connection that sends *part* of its headers, a byte now and then, is never timed
out, and nothing limits how many sockets one address holds: some thousands of such connections take every file
descriptor of the process. `guarded_protocol` makes uvicorn's HTTP protocol (httptools) also

- close a connection whose request headers are not complete `header_timeout` seconds after it opened (or after
  its previous response), however slowly they trickle in;
- refuse (close at once, before reading a byte) a connection from an address that already has
  `max_sockets` open — HTTP, keep-alive and WebSocket connections alike, counted by their transports, which stay
  the same when a connection is upgraded to a WebSocket.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

log = logging.getLogger(__name__)


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


def guarded_protocol(header_timeout: float, counter: SocketCounter) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol with the header deadline and the per-address cap (see the module)."""

    class GuardedProtocol(HttpToolsProtocol):
        """`HttpToolsProtocol` with a deadline for each request's headers and a per-address socket cap."""

        _refused = False
        _deadline: asyncio.TimerHandle | None = None
        _address = ""

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer: Any = transport.get_extra_info("peername")
            self._address = str(peer[0]) if isinstance(peer, tuple) and peer else str(peer)
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
            super().on_headers_complete()

        def on_response_complete(self) -> None:
            super().on_response_complete()
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
