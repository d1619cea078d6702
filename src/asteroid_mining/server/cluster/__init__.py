"""Many server nodes serving one set of games: PostgreSQL as the shared log, Redis for ownership and messages.

- `leases`: which node owns each live game (a lease with an epoch and a short TTL in Redis).
- `bus`: messages between nodes over Redis pub/sub (commands relayed to owners, updates to followers).
- `replication`: `ClusterReplication`, a live game's part in the cluster: its node either owns it (plays it) or
  follows it (serves its clients, relays their commands).
- `node`: `ClusterHub`, a node's games: loading, taking over, the lobby, the watchdog.

See docs/deploy.md for how a cluster is run.
"""
