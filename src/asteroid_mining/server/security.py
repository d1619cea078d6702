"""Seat tokens, the WebSocket Origin check, the per-connection rate limit and the address limits count by."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import math
import secrets
import time
from collections.abc import Callable
from functools import lru_cache
from urllib.parse import urlsplit

IPV6_PREFIX = 64
"""The IPv6 addresses of one network of this prefix length count as one address for every per-address limit."""


@lru_cache(maxsize=4096)
def client_key(host: str) -> str:
    """The address a client's per-address limits count against, for the address it connects from (or its proxy
    says): an IPv4 address as it is (an IPv4-mapped IPv6 one as its IPv4 address), an IPv6 address as its
    `IPV6_PREFIX` network (`2001:db8:1:2::/64`), anything else (a name, a socket path) as it is. An IPv6 host is
    given a /64 network of its own, 2**64 addresses: counted one by one, a client changing its address for each
    connection or request had every quota anew (games, belts' bytes, connections, sockets, reads)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address.packed, IPV6_PREFIX), strict=False))
    return host


def new_token() -> str:
    """A fresh, unguessable seat token (192 random bits, URL-safe)."""
    return secrets.token_urlsafe(24)


def token_digest(token: str) -> str:
    """What the server keeps of a token: its SHA-256 (a stolen database does not give seats away)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token: str, digest: str) -> bool:
    """Whether `token` is the one whose digest is `digest`, compared in constant time."""
    return hmac.compare_digest(token_digest(token), digest)


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """Whether a WebSocket may open from `origin` (its `Origin` header) on a server reached as `host`.

    No Origin (a program, not a browser) is allowed; so is the server's own host, and any origin of the
    allow-list (`*` allows every origin). This stops other web sites from playing with a visitor's browser.
    """
    if origin is None:
        return True
    if "*" in allowed or origin.rstrip("/") in {o.rstrip("/") for o in allowed}:
        return True
    if origin == "null" or not host:
        return False
    try:
        parts = urlsplit(origin)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()


class TokenBucket:
    """A token bucket: `burst` messages at once, refilled at `rate` per second of `clock` (seconds, monotonic)."""

    __slots__ = ("_clock", "_last", "_level", "burst", "rate")

    def __init__(self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = float(burst)
        self._clock = clock
        self._level = float(burst)
        self._last = clock()

    def take(self) -> bool:
        """Use one token; False (and nothing used) when the bucket is empty."""
        now = self._clock()
        self._level = min(self.burst, self._level + (now - self._last) * self.rate)
        self._last = now
        if self._level >= 1.0:
            self._level -= 1.0
            return True
        return False

    def level(self) -> float:
        """The tokens the bucket holds now, taking none (below 0: its debt)."""
        return min(self.burst, self._level + (self._clock() - self._last) * self.rate)

    def owe(self, tokens: float) -> None:
        """Use `tokens` more, going into debt when the bucket holds fewer: it gives none until refilled past it
        (for work whose cost is known only once done)."""
        now = self._clock()
        self._level = min(self.burst, self._level + (now - self._last) * self.rate) - tokens
        self._last = now

    def wait(self) -> float:
        """Seconds until the bucket next holds a token (0 when it holds one now), as of the last `take`; infinite
        for a bucket that is never refilled (`rate` 0)."""
        if self._level >= 1.0:
            return 0.0
        return (1.0 - self._level) / self.rate if self.rate > 0 else math.inf
