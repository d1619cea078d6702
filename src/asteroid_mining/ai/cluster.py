"""Self-play on a Ray cluster: `simulate --ray [ADDRESS]` (the optional extra `cluster`).

The games are cut into the same batches as with `--jobs` (`simulate.batches`), each a Ray task; the work (the
configuration and the checked belt source) is put in the object store once and shared by every task. At most
`IN_FLIGHT_PER_CPU` tasks per CPU of the cluster are submitted at a time, so that a run of a million games
holds a bounded number of futures. Ray gives the games of a worker that dies (a killed process, a lost node)
to another worker, `RETRIES` times at most; a game that raises is an `error` result from inside the task
(`Work.play`), so it never fails a task.

Without an address (`local`), a cluster already running for this machine is joined (`running_cluster`:
`RAY_ADDRESS`, or the one the last `ray start` here wrote down), and only when there is none is a single-machine
cluster started for the run, with `jobs` CPUs, no dashboard, a temporary folder and token authentication, and
shut down at the end. Results are the same as with `--jobs` for the same seed.

Joining a cluster, the driver sends the user's Ray token when there is one (`has_token`): Ray 2.60 sends it only
in token mode, which a driver joining a `ray start` cluster is not in unless told (it was refused with
`InvalidAuthToken`).

**What a local cluster exposes.** Ray 2.60's servers (the GCS, the raylet, the workers' and agents' gRPC) listen
on every interface of the machine, whatever `--node-ip-address` or `_node_ip_address` says: `ray.init` replaces a
loopback address by the machine's reachable one (`resolve_ip_for_localhost`), and the servers bind `*` / `::`
(seen with `ss -ltnp`; docs/ai.md). Ray has no option that keeps them on the loopback interface, so the cluster
started here is made as closed as Ray allows: token authentication on (`RAY_AUTH_MODE=token`, unless the
environment chose a mode: a request without the user's token, `~/.ray/auth_token`, is refused), no dashboard
(which would listen on 127.0.0.1 only anyway), no Ray Client server. On a machine other people's machines can
reach, `--jobs` opens no socket at all and plays the same games.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .simulate import RETRIES, Batch, GameResult, SimulationError, Work, batches

log = logging.getLogger(__name__)

LOCAL = "local"
"""The address meaning "start a cluster on this machine for the run"."""
IN_FLIGHT_PER_CPU = 4
"""Tasks submitted ahead per CPU of the cluster."""
CONNECT_SECONDS = 5
"""How long to wait for a cluster's head to answer at all."""
START_ATTEMPTS = 3
"""How many times a local cluster is started: Ray gives its node a fixed 30 s to register with its own control
server, which a machine busy with other work can miss; the next start usually makes it."""
SLOW_START = "timed out during startup"
"""Ray's words for that miss (its message, not a type of its own)."""
INSTALL = "--ray needs Ray: pip install 'asteroid-mining[cluster]'"
"""The one line said when Ray is not installed."""
AUTH_MODE = "RAY_AUTH_MODE"
"""Ray's switch for token authentication (`token` or `disabled`), read from the environment by each of its
processes."""


def import_ray() -> Any:
    """The `ray` module; SimulationError with the one line saying how to install it when it is missing."""
    try:
        import ray
    except ImportError:
        raise SimulationError(INSTALL) from None
    return ray


def ray_results(work: Work, address: str, jobs: int = 2) -> Iterator[GameResult]:
    """Play every game of `work` on the Ray cluster at `address` (`local`: one started for the run).

    Connects (or starts the cluster) at the call, so that a missing Ray or an unreachable address is raised
    before the first result.
    """
    ray = import_ray()
    started, temp = _connect(ray, address, jobs)
    return _results(ray, work, started, temp)


def running_cluster(ray: Any) -> str | None:
    """The address of a Ray cluster already running for this machine, when one answers there: `RAY_ADDRESS`, or
    what the last `ray start` on this machine wrote down (Ray's own file, in its temporary folder); None when
    there is none. `--ray` without an address joins it rather than start a cluster of its own (seconds saved)."""
    address = os.environ.get("RAY_ADDRESS", "").strip()
    if not address:
        try:
            address = ray._private.services.find_bootstrap_address(None) or ""  # Ray's own lookup of `ray start`
        except Exception:  # a private function of Ray's: gone or changed, there is simply nothing to join
            address = ""
    if not address or address == LOCAL:
        return None
    return address if _unreachable(address) is None else None


def _connect(ray: Any, address: str, jobs: int) -> tuple[bool, str | None]:
    if address == LOCAL and not ray.is_initialized():
        address = running_cluster(ray) or LOCAL
    if address != LOCAL:
        problem = _unreachable(address)
        if problem:
            raise SimulationError(f"cannot reach the Ray cluster at {address}: {problem}")
    if ray.is_initialized():  # this process is already connected (a library caller's own ray.init): use it
        return False, None
    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR,
             "configure_logging": False}
    if address == LOCAL:
        _token_auth(ray)  # its servers listen on every interface: only the user's token opens them
        for attempt in range(1, START_ATTEMPTS + 1):
            temp = tempfile.mkdtemp(prefix="am-ray-")
            try:
                ray.init(num_cpus=jobs, _temp_dir=temp, **quiet)
            except Exception as failed:
                with contextlib.suppress(Exception):
                    ray.shutdown()  # what the failed start left running
                shutil.rmtree(temp, ignore_errors=True)
                if attempt < START_ATTEMPTS and SLOW_START in str(failed):
                    log.warning("Ray's node did not register in time on a busy machine: starting it again")
                    continue
                raise SimulationError(f"cannot start a local Ray cluster: {failed}") from None
            return True, temp
    if has_token():  # a cluster `ray start` began asks for it, and Ray 2.60's driver sends it only in token mode
        _token_auth(ray)
    try:
        ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR, configure_logging=False)
    except Exception as failed:  # ConnectionError, a bad address: one line, no traceback
        raise SimulationError(f"cannot reach the Ray cluster at {address}: {failed}") from None
    return True, None


def has_token() -> bool:
    """Whether this user has a Ray token: `RAY_AUTH_TOKEN`, the file `RAY_AUTH_TOKEN_PATH` names, or Ray's own
    `~/.ray/auth_token` (which Ray writes when it starts a cluster with token authentication)."""
    if os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH"):
        return True
    return (Path.home() / ".ray" / "auth_token").is_file()


def _token_auth(ray: Any) -> None:
    """Token authentication for the cluster about to be started, unless the environment chose a mode: the mode
    is read from the environment by every Ray process, this one's included once its configuration is read again
    (Ray 2.60 does the same for a new local cluster, with a warning on every run)."""
    if AUTH_MODE in os.environ:
        return
    os.environ[AUTH_MODE] = "token"
    try:
        ray._raylet.Config.initialize("")  # this process's copy of Ray's configuration, read afresh
    except Exception:  # another Ray: it reads the mode when it starts the cluster, or has no such mode
        log.debug("Ray's configuration could not be read again", exc_info=True)


def _unreachable(address: str) -> str | None:
    """Why nothing answers at `host:port` (or `ray://host:port`), or None when something does.

    Checked first because Ray itself waits minutes for a head that is not there.
    """
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit():
        return None if address == "auto" else "not an address of the form host:port"
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_SECONDS):
            return None
    except OSError as failed:
        return failed.strerror or str(failed) or type(failed).__name__


def _play_batch(work: Work, batch: Batch) -> list[GameResult]:
    return work.play_batch(batch)


def _results(ray: Any, work: Work, started: bool, temp: str | None) -> Iterator[GameResult]:
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        remote = ray.remote(max_retries=RETRIES, num_cpus=1)(_play_batch)
        shared = ray.put(work)
        todo = batches(work.config, cpus)
        todo.reverse()  # popped from the end: submitted in game order
        running: list[Any] = []
        while todo or running:
            while todo and len(running) < IN_FLIGHT_PER_CPU * cpus:
                running.append(remote.remote(shared, todo.pop()))
            done, running = ray.wait(running, num_returns=1)
            for ref in done:
                try:
                    results = ray.get(ref)
                except Exception as failed:  # retries exhausted (a worker died every time)
                    raise SimulationError(f"a Ray task failed {RETRIES + 1} times: {failed}") from None
                yield from results
    finally:
        if started:
            ray.shutdown()
        if temp is not None:
            shutil.rmtree(temp, ignore_errors=True)


__all__ = ["INSTALL", "LOCAL", "import_ray", "ray_results", "running_cluster"]
