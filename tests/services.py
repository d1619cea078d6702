"""Real servers for tests: a throwaway PostgreSQL, redis-server and HAProxy, each on a free port in a temporary
directory of its own, started and stopped by the tests (never a system service). The launchers are the ones of
`make cluster`."""

from tools.cluster import (
    HAProxy,
    LocalCluster,
    Node,
    Postgres,
    Process,
    Redis,
    free_port,
    haproxy_config,
    postgres_bin,
    wait_until,
)

__all__ = ["HAProxy", "LocalCluster", "Node", "Postgres", "Process", "Redis", "free_port", "haproxy_config",
           "postgres_bin", "wait_until"]
