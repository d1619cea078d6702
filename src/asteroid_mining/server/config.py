"""The server's settings: where games are kept and the limits that protect it.

Every field can also be set from the environment: `ASTEROID_MINING_<FIELD>` in capitals
(`ASTEROID_MINING_BOT_DELAY=0.2`, `ASTEROID_MINING_ALLOWED_ORIGINS=https://a.example,https://b.example`).
"""

from __future__ import annotations

import ipaddress
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

import platformdirs

ENV_PREFIX = "ASTEROID_MINING_"
"""The prefix of the environment variables that override settings."""
STATIC_DIR = Path(__file__).with_name("static")
"""Where the browser client's build puts its files."""


def default_data_dir() -> Path:
    """The user's data directory for the game (platformdirs), e.g. `~/.local/share/asteroid-mining`."""
    return Path(platformdirs.user_data_dir("asteroid-mining", appauthor=False))


class SettingsError(ValueError):
    """A setting that cannot be used; the message names it."""


@dataclass(frozen=True)
class Settings:
    """Everything the server can be told. The defaults suit one machine serving a few friends."""

    data_dir: Path = field(default_factory=default_data_dir)
    """The directory of the SQLite database."""
    host: str = "127.0.0.1"
    port: int = 8000
    synchronous: Literal["FULL", "NORMAL"] = "FULL"
    """SQLite's `synchronous` (see `storage.sqlite`): FULL survives power cuts, NORMAL only crashes."""
    bot_delay: float = 0.6
    """Seconds a bot waits before it acts, so that people can follow."""
    allowed_origins: tuple[str, ...] = ()
    """Web origins allowed to open WebSockets besides the server's own (`*`: any)."""
    forwarded_allow_ips: tuple[str, ...] = ()
    """The proxies trusted to say who their client is (`X-Forwarded-For`, `X-Forwarded-Proto`): IP addresses and
    networks (`10.0.0.0/8`), or `*` for any peer. Empty (the default): nobody, so that a client cannot choose the
    address its per-address quotas count against. Name the load balancer here when there is one."""
    max_message_bytes: int = 64 * 1024
    """The largest WebSocket message answered (larger: an error); the transport closes at 4 times this."""
    max_request_bytes: int = 4 * 1024 * 1024
    """The largest REST request body (a belt document)."""
    rate_per_second: float = 20.0
    """Messages a connection may send per second, on average (token bucket)."""
    rate_burst: int = 40
    """Messages a connection may send at once (the bucket's size)."""
    rate_violations: int = 200
    """Messages refused for the rate limit before the connection is closed (each message served takes one off)."""
    program_rate_per_second: float = 200.0
    """Messages a connection of a program's seat (`CreateGame.programs`) may send per second, on average: a
    program acts as soon as its turn comes, and answers `sync` and refusals at once."""
    program_rate_burst: int = 400
    """Messages a connection of a program's seat may send at once."""
    program_connections_per_client: int = 16
    """Connections of programs' seats one address may have open with the program's budget at once; more have a
    person's: each connection's own budget times the connections one address may open (256 × 200) let one address
    hold the event loop's core whole."""
    program_turn_seconds: float = 60.0
    """The turn timer of a game whose every seat is played by a program or by the server (`CreateGame.programs`,
    `bots`), when its creator sets none (`turn_seconds`, `stand_in`): a program that has gone away does not hold
    the game for ever."""
    max_connections_per_game: int = 64
    """WebSocket connections one game takes (players and spectators together)."""
    max_connections_per_client: int = 256
    """WebSocket connections one address may have open at once, all games together."""
    connect_rate_per_second: float = 10.0
    """New WebSocket connections one address may open per second, on average (token bucket): each is sent the
    game's whole state (half a megabyte on a `large` belt) and may load the game. Past it the handshake is
    answered `429 rate_limited` with `Retry-After`, before anything is built."""
    connect_rate_burst: int = 60
    """New WebSocket connections one address may open at once (the bucket's size): page reloads, hot-seat tabs,
    every client behind one address reconnecting after a node of a cluster died."""
    follower_keep_seconds: float = 15.0
    """Seconds a cluster node keeps a game it follows (another node plays it) after its last client here left, so
    that a client reconnecting meanwhile does not load it from the store again."""
    max_games_per_client: int = 20
    """Running games one address may have created, held in memory or let go while idle (`idle_game_seconds`);
    finished games and expired open games do not count."""
    open_game_ttl: float = 3_600.0
    """Seconds after which a game nobody has played in (no action yet) expires: it leaves the lobby, no longer
    counts for its creator's quota and is no longer loaded when the server starts (its link still opens it)."""
    idle_game_seconds: float = 600.0
    """Seconds a running game nobody is connected to is held in memory after its last command, connection or
    read: then it is let go. It stays in the store and in the lobby, counts no more toward `max_live_games`,
    `max_live_bytes` and `max_live_bytes_per_client` (it still counts toward its creator's
    `max_games_per_client`), is not loaded when the server starts, and is loaded again (counted again, `503
    server_full` when there is no room) when a seat or a spectator connects or a request needs its state."""
    min_turn_seconds: float = 1.0
    """The shortest turn timer a game may be created with (`turn_seconds`)."""
    max_sockets_per_client: int = 320
    """Sockets one address may have open at once, of any kind (HTTP, keep-alive, WebSocket); never fewer than
    `max_connections_per_client` + 32, so that an address at its WebSocket limit can still use the REST API.
    Past it a new connection is closed before a byte is read."""
    max_connections: int = 8_192
    """Connections and requests the server takes at once in all (uvicorn's `limit_concurrency`): past it, a new
    request is answered 503."""
    header_timeout: float = 10.0
    """Seconds a connection has to send a request's headers, from when it opened (or answered its last request)."""
    body_timeout: float = 30.0
    """Seconds a request's body has to arrive in full, from when its headers did: past it, `408 request_timeout`
    and the connection is closed (a body sent a byte at a time would hold a connection for as long as it liked)."""
    keep_alive_seconds: int = 5
    """Seconds an idle keep-alive HTTP connection is kept open (uvicorn's `timeout_keep_alive`)."""
    replay_cache_bytes: int = 64 * 1024 * 1024
    """Bytes of games' histories (the JSON text of `GET /api/games/{id}/replay` and `…/events`) kept, by game and
    seq, so that asking again costs nothing; the least recently asked for is dropped first."""
    history_rate_per_second: float = 2.0
    """Replays, events and logs (`GET /api/games/{id}/replay`, `…/events`, `…/log`) one address may ask for per
    second, on average (token bucket): each may replay a whole game."""
    history_rate_burst: int = 20
    """Replays, events and logs one address may ask for at once (the bucket's size)."""
    lobby_rate_per_second: float = 5.0
    """Lobby listings (`GET /api/games`) one address may ask for per second, on average (token bucket): the
    browser's lobby asks every 5 seconds."""
    lobby_rate_burst: int = 50
    """Lobby listings one address may ask for at once (the bucket's size)."""
    create_bytes_per_second: float = 32_768.0
    """Bytes of new games' belts (as stored) one address may create per second, on average (token bucket): each
    game stays in the store for good, finished or not (a `large` belt's game is 280 KB). The commands its games
    store are charged to the same bucket, as they are stored (`live.stored_bytes`): they are never refused, but
    while the bucket is in debt the address creates no game."""
    create_bytes_burst: int = 16 * 1024 * 1024
    """Bytes of new games' belts (and of their commands) one address may add at once (the bucket's size)."""
    lobby_cache_seconds: float = 1.0
    """Seconds the lobby's answer is kept at most (it is built again sooner when what it lists changes)."""
    lobby_page_size: int = 50
    """Games one page of the lobby (`GET /api/games`) lists when its `limit` is not given."""
    lobby_max_page_size: int = 200
    """The largest `limit` a lobby page may ask for (`422 invalid` naming `limit` past it): a page of 200 games is
    about 65 KB of JSON, where the whole listing of 5,000 games was 1.6 MB."""
    finished_cache_bytes: int = 16 * 1024 * 1024
    """Bytes of finished games' summaries, views and logs (`GET /api/games/{id}/summary`, `GET /api/games/{id}`,
    `GET /api/games/{id}/log`) kept as JSON text, so that asking again loads nothing; the least recently asked for
    is dropped first."""
    max_live_games: int = 5_000
    """Running games the server holds at most."""
    max_live_bytes: int = 4 * 1024**3
    """Estimated bytes of memory the running games the server holds may take in all (`live.belt_memory`: about 0.7
    MB for a `standard` game, 5.7 MB for a `large` one, about 30 MB on the largest accepted belt): past it, no game is
    created (`503 server_full`)."""
    max_live_bytes_per_client: int = 128 * 1024**2
    """Estimated bytes of memory the running games one address has created may take in all (as `max_live_bytes`):
    past it, that address creates no game (`429 too_many_games`)."""
    max_game_rounds: int = 1_000
    """Rounds a game is played at most: once its round `max_game_rounds` is over, the server ends it as
    `abandoned` (a game of bots and programs only has nobody to abandon it)."""
    max_belt_asteroids: int = 2_500
    """The largest belt a game may be created on (asteroids)."""
    max_belt_links: int = 50_000
    """The largest belt a game may be created on (links)."""
    max_belt_gates: int = 1_000
    """The largest belt a game may be created on (gate pairs)."""
    snapshot_every: int = 200
    """A snapshot of a game is stored every this many commands."""
    sync_buffer: int = 128
    """Recent updates kept per game to answer `sync` without sending the whole state."""
    send_queue: int = 1_024
    """Messages waiting for a slow client before it is disconnected."""
    send_buffer_bytes: int = 4 * 1024 * 1024
    """Bytes waiting for one slow client (the messages queued for it and its socket's write buffer) before it is
    disconnected."""
    send_buffer_total_bytes: int = 256 * 1024 * 1024
    """Bytes waiting for every client of the process together: past it, the client with the most waiting is
    disconnected."""
    sync_per_second: float = 1.0
    """`sync` messages a connection may send per second, on average (a bucket of its own, besides `rate_per_second`):
    an answer may be the whole state."""
    inbox: int = 64
    """Commands waiting for a game's owner before more are refused as `busy`."""
    static_dir: Path = STATIC_DIR
    """The built browser client (`index.html` and its assets)."""
    database: str = ""
    """A PostgreSQL URL (`postgresql://user:password@host:5432/games`) to keep games in instead of SQLite in
    `data_dir`; with `redis`, this server is one node of a cluster (docs/deploy.md)."""
    redis: str = ""
    """A Redis URL (`redis://host:6379/0`): ownership of games and messages between the nodes of a cluster."""
    node_id: str = ""
    """This node's name in a cluster (default: the host's name and the process id)."""
    lease_seconds: float = 3.0
    """How long a node's ownership of a game lasts unless renewed (a third of it apart): how soon a dead node's
    games are taken over."""
    store_read_seconds: float = 5.0
    """The deadline of one read of a PostgreSQL store (`database`): a database that does not answer by then (paused,
    cut off) gets its request a `503 storage_failed` instead of a wait for as long as it lasts."""
    store_write_seconds: float = 10.0
    """The deadline of one write of a PostgreSQL store (a group of commands in one transaction, its commit included):
    past it the write's outcome is unknown, and the server goes by what the store holds once it answers again."""

    def __post_init__(self) -> None:
        problems = []
        if not 0 <= self.port <= 65_535:
            problems.append(f"port must be between 0 and 65535, not {self.port}")
        if self.synchronous not in ("FULL", "NORMAL"):
            problems.append(f"synchronous must be FULL or NORMAL, not {self.synchronous!r}")
        if self.database and not self.database.startswith(("postgresql://", "postgres://")):
            problems.append(f"database must be a postgresql:// URL, not {self.database.split(':', 1)[0]!r}")
        if self.redis and not self.redis.startswith(("redis://", "rediss://", "unix://")):
            problems.append(f"redis must be a redis:// URL, not {self.redis.split(':', 1)[0]!r}")
        if self.redis and not self.database:
            problems.append("redis (a cluster) needs a shared database: give database a postgresql:// URL too")
        problems.extend(_bad_proxies(self.forwarded_allow_ips))
        if not (math.isfinite(self.history_rate_per_second) and self.history_rate_per_second > 0):
            problems.append("history_rate_per_second must be a finite number above 0")
        if not (math.isfinite(self.connect_rate_per_second) and self.connect_rate_per_second > 0):
            problems.append("connect_rate_per_second must be a finite number above 0")
        if not (math.isfinite(self.follower_keep_seconds) and 0 <= self.follower_keep_seconds <= 3_600):
            problems.append("follower_keep_seconds must be a finite number from 0 to 3600")
        if not (math.isfinite(self.program_turn_seconds) and 0 < self.program_turn_seconds <= 86_400):
            problems.append("program_turn_seconds must be a finite number above 0, at most 86400")
        if not 0.5 <= self.lease_seconds <= 60:
            problems.append(f"lease_seconds must be between 0.5 and 60, not {self.lease_seconds:g}")
        for name in ("bot_delay", "rate_per_second", "open_game_ttl", "idle_game_seconds", "min_turn_seconds",
                     "sync_per_second", "program_rate_per_second", "lobby_rate_per_second",
                     "create_bytes_per_second"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                problems.append(f"{name} must be a finite number, not negative")
        for name in ("header_timeout", "body_timeout", "keep_alive_seconds", "lobby_cache_seconds",
                     "store_read_seconds", "store_write_seconds"):
            value = getattr(self, name)
            if not math.isfinite(value) or value <= 0:
                problems.append(f"{name} must be a finite number above 0")
        for name in ("max_message_bytes", "max_request_bytes", "rate_burst", "rate_violations", "snapshot_every",
                     "sync_buffer", "send_queue", "send_buffer_bytes", "send_buffer_total_bytes", "inbox",
                     "max_connections_per_game", "max_connections_per_client",
                     "max_games_per_client", "max_sockets_per_client", "max_connections",
                     "max_live_games", "max_live_bytes", "max_live_bytes_per_client", "max_game_rounds",
                     "max_belt_asteroids", "max_belt_links", "max_belt_gates", "replay_cache_bytes",
                     "history_rate_burst", "connect_rate_burst", "program_rate_burst", "lobby_rate_burst",
                     "program_connections_per_client",
                     "finished_cache_bytes",
                     "create_bytes_burst", "lobby_page_size", "lobby_max_page_size"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be at least 1")
        if self.lobby_page_size > self.lobby_max_page_size:
            problems.append("lobby_page_size must be at most lobby_max_page_size")
        if problems:
            raise SettingsError("; ".join(problems))

    @property
    def socket_cap(self) -> int:
        """The sockets one address may have open at once (see `max_sockets_per_client`)."""
        return max(self.max_sockets_per_client, self.max_connections_per_client + 32)

    def with_changes(self, **changes: Any) -> Settings:
        """A copy with some settings replaced (None values are ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **changes: Any) -> Settings:
        """Defaults, overridden by `ASTEROID_MINING_*` variables, overridden by `changes` (None ignored)."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            text = env.get(ENV_PREFIX + f.name.upper())
            if text is not None:
                values[f.name] = _parse(f.name, text, type(getattr(_DEFAULTS, f.name)))
        return cls(**values).with_changes(**changes)


def _bad_proxies(proxies: tuple[str, ...]) -> list[str]:
    """A sentence for each entry of `forwarded_allow_ips` that is not an address, a network or `*` (uvicorn would
    take it as a name no peer ever has, and silently trust nobody)."""
    problems = []
    for entry in proxies:
        if entry == "*":
            continue
        try:
            if "/" in entry:
                ipaddress.ip_network(entry)
            else:
                ipaddress.ip_address(entry)
        except ValueError:
            problems.append(f"forwarded_allow_ips: {entry!r} is not an IP address, a network (10.0.0.0/8) or *")
    return problems


def _parse(name: str, text: str, kind: type) -> Any:
    try:
        if kind is tuple:
            return tuple(part.strip() for part in text.split(",") if part.strip())
        if issubclass(kind, Path):
            return Path(text).expanduser()
        if kind is int:
            return int(text)
        if kind is float:
            return float(text)
    except ValueError:
        raise SettingsError(f"{ENV_PREFIX}{name.upper()}: {text!r} is not a valid {kind.__name__}") from None
    return text


_DEFAULTS = Settings(data_dir=Path("."))
