"""`simulate --ray` in real deployments, as far as one machine can show it: `--ray` alone joins a cluster already
running here (`RAY_ADDRESS`, or `ray start`'s) instead of starting one; the cluster it starts asks for the user's
token, since Ray's servers listen on every interface (docs/ai.md, "On a Ray cluster"); `--ray-address` joins a
named cluster; every failure is one line."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from asteroid_mining.ai import cluster
from asteroid_mining.ai.cluster import AUTH_MODE, LOCAL, running_cluster
from asteroid_mining.ai.simulate import SimConfig, SimulationError, iter_results
from asteroid_mining.cli import app


class FakeRay:
    """What `cluster._connect` asks of Ray, recorded; `ray start`'s address as Ray's own lookup finds it."""

    def __init__(self, written: str | None = None) -> None:
        self.calls: list[dict[str, Any]] = []
        self.initialized = False
        lookup = (lambda temp_dir: written) if written != "raises" else self._raise
        self._private = type("P", (), {"services": type("S", (), {"find_bootstrap_address": staticmethod(lookup)})})

    @staticmethod
    def _raise(temp_dir: Any) -> str:
        raise AttributeError("no such function in this Ray")

    def is_initialized(self) -> bool:
        return self.initialized

    def init(self, **options: Any) -> None:
        self.calls.append({**options, AUTH_MODE: os.environ.get(AUTH_MODE)})
        self.initialized = True


@pytest.fixture
def listening() -> Iterator[str]:
    """An address something answers at (as a cluster's head would)."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield f"127.0.0.1:{server.getsockname()[1]}"


@pytest.fixture
def silent() -> str:
    """An address nothing answers at any more."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        return f"127.0.0.1:{server.getsockname()[1]}"


@pytest.fixture(autouse=True)
def no_cluster_around(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.delenv(AUTH_MODE, raising=False)


def test_a_cluster_running_here_is_found(monkeypatch: pytest.MonkeyPatch, listening: str, silent: str) -> None:
    assert running_cluster(FakeRay(listening)) == listening  # written down by `ray start`
    assert running_cluster(FakeRay(silent)) is None  # written down, but gone since
    assert running_cluster(FakeRay(None)) is None
    assert running_cluster(FakeRay("raises")) is None  # Ray's private lookup changed: nothing to join
    monkeypatch.setenv("RAY_ADDRESS", listening)
    assert running_cluster(FakeRay(silent)) == listening  # RAY_ADDRESS first, as Ray itself reads it


def test_ray_alone_joins_the_running_cluster_rather_than_start_one(listening: str) -> None:
    ray = FakeRay(listening)
    started, temp = cluster._connect(ray, LOCAL, 2)
    assert (started, temp) == (True, None)  # connected: ray.shutdown at the end only disconnects
    [call] = ray.calls
    assert call["address"] == listening and "num_cpus" not in call


def test_joining_a_cluster_sends_the_users_token_when_there_is_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Any,
                                                                    listening: str) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("RAY_AUTH_TOKEN", raising=False)
    monkeypatch.delenv("RAY_AUTH_TOKEN_PATH", raising=False)
    without = FakeRay()
    cluster._connect(without, listening, 1)
    assert without.calls[0][AUTH_MODE] is None  # no token: a cluster without authentication is joined as before
    (tmp_path / ".ray").mkdir()
    (tmp_path / ".ray" / "auth_token").write_text("the-users-token")
    monkeypatch.delenv(AUTH_MODE, raising=False)
    joined = FakeRay()
    cluster._connect(joined, listening, 1)
    assert joined.calls[0]["address"] == listening and joined.calls[0][AUTH_MODE] == "token"


def test_the_cluster_started_here_asks_for_the_token(silent: str) -> None:
    ray = FakeRay(silent)
    started, temp = cluster._connect(ray, LOCAL, 2)
    try:
        [call] = ray.calls
        assert started and temp is not None and call["num_cpus"] == 2 and "address" not in call
        assert call[AUTH_MODE] == "token" and call["include_dashboard"] is False
    finally:
        os.rmdir(temp) if temp else None


class SlowRay(FakeRay):
    """A Ray whose node misses its registration the first `slow` times it is started (a busy machine)."""

    def __init__(self, slow: int, message: str = "The current node timed out during startup. This could happen "
                 "because some of the raylet failed to startup or the GCS has become overloaded.") -> None:
        super().__init__(None)
        self.slow, self.message, self.shutdowns = slow, message, 0

    def init(self, **options: Any) -> None:
        self.calls.append(options)
        if len(self.calls) <= self.slow:
            raise Exception(self.message)
        self.initialized = True

    def shutdown(self) -> None:
        self.shutdowns += 1


def test_a_local_cluster_that_misses_its_start_on_a_busy_machine_is_started_again() -> None:
    ray = SlowRay(slow=2)
    started, temp = cluster._connect(ray, LOCAL, 1)
    try:
        assert started and temp is not None and os.path.isdir(temp)
        assert len(ray.calls) == 3 and ray.shutdowns == 2  # each failed start's leftovers stopped
        assert all(not os.path.exists(call["_temp_dir"]) for call in ray.calls[:2])  # and its folder removed
        assert ray.calls[2]["_temp_dir"] == temp
    finally:
        os.rmdir(temp) if temp else None


def test_a_local_cluster_that_never_starts_is_one_clear_error() -> None:
    ray = SlowRay(slow=cluster.START_ATTEMPTS)
    with pytest.raises(SimulationError, match=r"^cannot start a local Ray cluster: The current node timed out"):
        cluster._connect(ray, LOCAL, 1)
    assert len(ray.calls) == cluster.START_ATTEMPTS
    assert not any(os.path.exists(call["_temp_dir"]) for call in ray.calls)
    other = SlowRay(slow=1, message="no space left on device")  # another failure is not tried again
    with pytest.raises(SimulationError, match="no space left on device"):
        cluster._connect(other, LOCAL, 1)
    assert len(other.calls) == 1


def test_an_auth_mode_chosen_in_the_environment_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(AUTH_MODE, "disabled")
    ray = FakeRay(None)
    _, temp = cluster._connect(ray, LOCAL, 1)
    if temp:
        os.rmdir(temp)
    assert ray.calls[0][AUTH_MODE] == "disabled"


def test_ray_address_joins_a_named_cluster_in_one_line(silent: str) -> None:
    runner = CliRunner()
    done = runner.invoke(app, ["simulate", "--games", "1", "--ray-address", silent])
    assert done.exit_code == 2
    assert done.output.startswith(f"asteroid-mining simulate: error: cannot reach the Ray cluster at {silent}: ")
    assert len(done.output.strip().splitlines()) == 1
    both = runner.invoke(app, ["simulate", "--games", "1", "--ray", "10.0.0.1:6379", "--ray-address", silent])
    assert both.exit_code == 2 and "give the cluster's address once" in both.output
    local = runner.invoke(app, ["simulate", "--games", "1", "--ray-address", "local"])
    assert local.exit_code == 2 and "--ray-address needs a cluster's address" in local.output
    with pytest.raises(SimulationError, match=f"^cannot reach the Ray cluster at {silent}"):
        iter_results(SimConfig(games=1), ray=silent)


def test_a_driver_without_the_token_is_refused_by_the_local_cluster(tmp_path: Any,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The one test that starts Ray: the cluster `--ray` starts is reached at the machine's own address (its
    servers listen on every interface), and a driver that has not the user's token is turned away there."""
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("this process is connected to a cluster already")
    logging.getLogger("ray").setLevel(logging.ERROR)
    # a cluster of its own, always: `--ray` would join one another program left running on this machine (its
    # `ray start` file), whose authentication is not the one under test
    monkeypatch.setattr(cluster, "running_cluster", lambda ray: None)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    started, temp = cluster._connect(ray, LOCAL, 1)
    try:
        address = ray.get_runtime_context().gcs_address
        assert not address.startswith("127."), address  # Ray's own choice: the machine's reachable address
        stranger = subprocess.run(
            [sys.executable, "-c", f"import ray; ray.init(address={address!r}, logging_level='ERROR')"],
            env={**os.environ, AUTH_MODE: "token", "RAY_AUTH_TOKEN": "not-the-users-token", "RAY_ADDRESS": "",
                 "RAY_gcs_rpc_server_connect_timeout_s": "60", "RAY_gcs_rpc_server_reconnect_timeout_s": "60"},
            capture_output=True, text=True, timeout=300)
        assert stranger.returncode != 0
        assert "InvalidAuthToken" in stranger.stderr + stranger.stdout  # refused for its token, not unreachable
    finally:
        if started:
            ray.shutdown()
        if temp:
            import shutil

            shutil.rmtree(temp, ignore_errors=True)
