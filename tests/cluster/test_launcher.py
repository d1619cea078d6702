"""The launchers of the throwaway servers on a busy machine: a port chosen free can be taken by another process
before the server binds it. The server must then start on another port, and never be mistaken for whatever
listens on the one it wanted."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest

from tests.services import HAProxy, Redis


@pytest.fixture
def taken() -> Iterator[int]:
    """A port another process listens on (here: the test)."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield int(holder.getsockname()[1])


def test_redis_on_a_taken_port_starts_on_another(taken: int) -> None:
    server = Redis()
    server.port = taken  # as if another process had taken it since it was chosen
    try:
        server.start()
        assert server.port != taken and server.process is not None and server.process.alive
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as conn:
            conn.sendall(b"PING\r\n")
            assert conn.recv(64) == b"+PONG\r\n"
        server.stop()
        server.start()  # a restart keeps the port it has (its URL is known to its clients)
        assert server.port != taken and server.process is not None and server.process.alive
    finally:
        server.close()


def test_haproxy_on_a_taken_port_starts_on_another(taken: int) -> None:
    balancer = HAProxy([taken])
    balancer.port = taken
    try:
        balancer.start()
        assert balancer.port != taken and balancer.process.alive
        assert httpx.get(f"{balancer.url}{balancer.monitor}", timeout=30).status_code == 200
    finally:
        balancer.close()


def test_a_port_asked_for_is_not_changed(taken: int) -> None:
    balancer = HAProxy([taken], port=taken)
    try:
        with pytest.raises(AssertionError, match="haproxy exited"):
            balancer.start()
    finally:
        balancer.close()
