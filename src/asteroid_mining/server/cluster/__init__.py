"""Many server nodes serving one set of games: PostgreSQL as the shared log, Redis for ownership and messages.

- `leases`: which node owns each live game (a lease with an epoch and a short TTL in Redis).
- `bus`: messages between nodes over Redis pub/sub (commands relayed to owners, updates to followers).
- `game`: `ClusterGame`, a live game that a node either owns (plays it) or follows (serves its clients).
- `node`: `ClusterHub`, a node's games: loading, taking over, the lobby, the watchdog.

See docs/deploy.md for how a cluster is run.
"""
