"""Forwarded headers against a real server: a client cannot choose the address its quotas count against by
sending `X-Forwarded-For`, unless the server was told to believe the proxy it connects from
(`forwarded_allow_ips`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from asteroid_mining.server.config import Settings, SettingsError

from .helpers import ServerProcess, free_port, running_server, two_loops_belt

BODY = {"seats": 1, "settlers_per_seat": 1, "belt": two_loops_belt()}


def create(server: ServerProcess, claimed: str) -> httpx.Response:
    """POST a new game, the request claiming to come (through a proxy) from `claimed`."""
    return httpx.post(f"{server.url}/api/games", json=BODY, headers={"X-Forwarded-For": claimed}, timeout=10)


def test_serve_believes_no_forwarded_header_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`asteroid-mining serve` as shipped, on 127.0.0.1 (which uvicorn itself would trust), even with uvicorn's
    own FORWARDED_ALLOW_IPS=* in the environment: every request counts as 127.0.0.1."""
    monkeypatch.setenv("ASTEROID_MINING_MAX_GAMES_PER_CLIENT", "1")
    monkeypatch.setenv("ASTEROID_MINING_MAX_CONNECTIONS_PER_CLIENT", "1")
    monkeypatch.setenv("FORWARDED_ALLOW_IPS", "*")
    server = ServerProcess(tmp_path).start(sys.executable, "-m", "asteroid_mining", "serve", "--host", "127.0.0.1")
    try:
        made = create(server, "1.2.3.4")
        assert made.status_code == 201, made.text
        again = create(server, "5.6.7.8")
        assert again.status_code == 429 and again.json()["error"]["code"] == "too_many_games"
        game = made.json()["id"]
        url = f"{server.ws_url}/api/games/{game}/ws"
        with connect(url, open_timeout=10, additional_headers={"X-Forwarded-For": "1.2.3.4"}) as first:
            assert json.loads(first.recv(timeout=20))["type"] == "state"
            with connect(url, open_timeout=10, additional_headers={"X-Forwarded-For": "5.6.7.8"}) as second:
                refusal = json.loads(second.recv(timeout=20))
                assert refusal["code"] == "too_many_client_connections"
                with pytest.raises(ConnectionClosed) as closed:
                    second.recv(timeout=20)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 4409
    finally:
        server.stop()


def test_a_named_proxy_is_believed(tmp_path: Path) -> None:
    """With the proxy named (here the test itself, on 127.0.0.1), the address it forwards is the client's."""
    with running_server(tmp_path, "--max-games-per-client", "1", "--forwarded-allow-ips", "10.9.8.7, 127.0.0.1") \
            as server:
        assert create(server, "1.2.3.4").status_code == 201
        assert create(server, "5.6.7.8").status_code == 201  # another client of the proxy
        again = create(server, "1.2.3.4")
        assert again.status_code == 429 and again.json()["error"]["code"] == "too_many_games"


def test_a_proxy_not_named_is_not_believed(tmp_path: Path) -> None:
    with running_server(tmp_path, "--max-games-per-client", "1", "--forwarded-allow-ips", "10.0.0.0/8") as server:
        assert create(server, "1.2.3.4").status_code == 201
        assert create(server, "5.6.7.8").status_code == 429


@pytest.mark.parametrize("value", ["localhost", "10.0.0.1/8", "1.2.3.4.5", "*.example"])
def test_a_proxy_that_is_not_an_address_is_named(value: str) -> None:
    with pytest.raises(SettingsError, match=r"forwarded_allow_ips: '.*' is not an IP address, a network"):
        Settings(data_dir=Path("."), forwarded_allow_ips=("127.0.0.1", value))


def test_the_proxies_come_from_the_environment() -> None:
    settings = Settings.from_env({"ASTEROID_MINING_FORWARDED_ALLOW_IPS": "10.0.0.5, fd00::/8"})
    assert settings.forwarded_allow_ips == ("10.0.0.5", "fd00::/8")
    assert Settings(data_dir=Path(".")).forwarded_allow_ips == ()


def test_a_bad_proxy_stops_serve_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "asteroid_mining", "serve", "--port", str(free_port()), "--data",
                           str(tmp_path), "--forwarded-allow-ips", "127.0.0.1,proxy.example"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "asteroid-mining serve: error: forwarded_allow_ips: 'proxy.example' is not an IP address, a network "
        "(10.0.0.0/8) or *"]
