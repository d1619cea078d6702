"""Self-play on a Ray cluster: `simulate --ray [ADDRESS]` (the optional extra `cluster`).

The games are cut into the same batches as with `--jobs` (`simulate.batches`), each a Ray task; the work (the
configuration and the checked belt source) is put in the object store once and shared by every task. At most
`IN_FLIGHT_PER_CPU` tasks per CPU of the cluster are submitted at a time, so that a run of a million games
holds a bounded number of futures. Ray gives the games of a worker that dies (a killed process, a lost node)
to another worker, `RETRIES` times at most; a game that raises is an `error` result from inside the task
(`Work.play`), so it never fails a task.

Without an address (`local`), a single-machine cluster is started for the run with `jobs` CPUs, no dashboard
and a temporary folder, and shut down at the end. Results are the same as with `--jobs` for the same seed.
"""

from __future__ import annotations

import logging
import shutil
import socket
import tempfile
from collections.abc import Iterator
from typing import Any

from .simulate import RETRIES, Batch, GameResult, SimulationError, Work, batches

LOCAL = "local"
"""The address meaning "start a cluster on this machine for the run"."""
IN_FLIGHT_PER_CPU = 4
"""Tasks submitted ahead per CPU of the cluster."""
CONNECT_SECONDS = 5
"""How long to wait for a cluster's head to answer at all."""
INSTALL = "--ray needs Ray: pip install 'asteroid-mining[cluster]'"
"""The one line said when Ray is not installed."""


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


def _connect(ray: Any, address: str, jobs: int) -> tuple[bool, str | None]:
    if address != LOCAL:
        problem = _unreachable(address)
        if problem:
            raise SimulationError(f"cannot reach the Ray cluster at {address}: {problem}")
    if ray.is_initialized():  # this process is already connected (a library caller's own ray.init): use it
        return False, None
    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR,
             "configure_logging": False}
    if address == LOCAL:
        temp = tempfile.mkdtemp(prefix="am-ray-")
        try:
            ray.init(num_cpus=jobs, _temp_dir=temp, **quiet)
        except Exception as failed:
            shutil.rmtree(temp, ignore_errors=True)
            raise SimulationError(f"cannot start a local Ray cluster: {failed}") from None
        return True, temp
    try:
        ray.init(address=address, log_to_driver=False, logging_level=logging.ERROR, configure_logging=False)
    except Exception as failed:  # ConnectionError, a bad address: one line, no traceback
        raise SimulationError(f"cannot reach the Ray cluster at {address}: {failed}") from None
    return True, None


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


__all__ = ["INSTALL", "LOCAL", "import_ray", "ray_results"]
