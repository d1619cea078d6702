"""Play a seat of an Asteroid Mining game over the network, from its invite link, to the end of the game.

    python examples/ws_client.py 'http://127.0.0.1:8000/#/game/GAME?seat=1&token=TOKEN'

It uses nothing of the game's own code: only the WebSocket protocol of docs/server.md (JSON text frames), so it
is a model for a client in any language. Its one library is `websockets` (`pip install websockets`). It keeps
the view up to date from the `state` and each `update`'s `diff`, and on the turn of one of its settlers chooses
with a simple strategy (below) and sends an `act` with a `ref`; a refused action is replaced by `wait`. It exits
0 when the game is over, printing `won` or `lost` (`abandoned` when a player ended it), and 1 with one line on
standard error on any failure, never a traceback.

It survives real use:

- `rate_limited`: the message was dropped, and the error's `retry_after` says in how many seconds the server takes
  the next one; the client waits that long and sends the message again.
- A dropped connection (the network, a server restart, a cluster's node moving the game, `4408` too slow): it
  connects again, up to `RECONNECTS` times in a row, waiting longer each time. The server's first message is the
  whole `state`, which brings it up to date; an `act` left unanswered is sent again with its `ref`, which the
  server plays at most once (an `ack` when it was played already). Within a connection, an `update` whose `seq`
  is not the next one is answered with a `sync`.
- Too many new connections from its address: the handshake is answered `429` with `Retry-After`; the client
  waits that long (at least its own back-off) and connects again, counted as a try.
- A close that another try cannot mend (a wrong token, no such game, a damaged game) ends it with the server's
  own sentence.

The strategy, one settler at a time: run to a neighbouring shelter when a storm is forecast for its asteroid;
mine an exposed core the team still needs; drill a needed or unknown core (never the last layer over ice or
uranium near the Sun); when the team carries 3 of everything, walk to the first settler; otherwise walk towards
the nearest asteroid that holds a needed core, or one nobody has surveyed.
"""

from __future__ import annotations

import json
import secrets
import sys
import time
from collections import deque
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, InvalidURI
from websockets.sync.client import ClientConnection, connect

KINDS = ("ice", "iron", "carbon", "uranium")
WIN = 3
CARGO_LIMIT = 10
SECTIONS = ("asteroids", "settlers", "robots", "ufos", "gates")
RECONNECTS = 6
"""Connections tried in a row after one drops (0.5 s, 1 s, 2 s … apart) before the client gives up."""
FINAL_CLOSES = {4400: "a bad request", 4401: "a wrong token", 4403: "an origin that may not connect",
                4404: "no such game", 4409: "too many connections", 4410: "a damaged game", 4429: "flooding"}
"""Close codes (docs/server.md) after which connecting again cannot help."""
RETRY_LATER = ("busy", "storage_failed", "not_owner")
"""Error codes of a command the server did not play for a passing reason: sent again a moment later."""


class Failure(Exception):
    """Why the client stops: one line for the user."""


def socket_url(invite: str) -> str:
    """`ws://HOST/api/games/GAME/ws?token=TOKEN` from `http://HOST/#/game/GAME?seat=N&token=TOKEN`."""
    parts = urlsplit(invite)
    route, _, query = parts.fragment.partition("?")
    pieces = route.strip("/").split("/")
    token = parse_qs(query).get("token", [""])[0]
    if len(pieces) != 2 or pieces[0] != "game" or not token:
        raise ValueError(f"not an invite link (…/#/game/GAME?seat=N&token=TOKEN): {invite}")
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}/api/games/{pieces[1]}/ws?token={token}"


def near(asteroid: dict[str, Any], round_no: int) -> bool:
    """Whether the asteroid is near the Sun in round `round_no` (docs/server.md, "The Sun")."""
    orbit = asteroid.get("orbit")
    if not orbit:
        return asteroid.get("pinned") == "near"
    period, window, phase = (int(x) for x in orbit.split("/"))
    return (round_no - 1 + phase) % period < window


class Client:
    """The view of one seat, and its choices."""

    def __init__(self) -> None:
        self.view: dict[str, Any] = {}
        self.mine: list[str] = []
        self.seq = 0

    # ----- keeping the view -----
    def take_state(self, message: dict[str, Any]) -> None:
        """Start again from a whole `state` message."""
        self.view = message["state"]
        self.seq = message["seq"]
        self.mine = list((message.get("you") or {}).get("settlers", []))

    def take_update(self, message: dict[str, Any]) -> None:
        """Apply an `update`'s diff: plain fields set, records replaced or appended by id."""
        for key, value in message["diff"].items():
            if key not in SECTIONS:
                self.view[key] = value
                continue
            index = {record["id"]: i for i, record in enumerate(self.view[key])}
            for record in value:
                if record["id"] in index:
                    self.view[key][index[record["id"]]] = record
                else:
                    self.view[key].append(record)
        self.seq = message["seq"]

    # ----- choosing -----
    def asteroids(self) -> dict[str, dict[str, Any]]:
        """The asteroids that still exist, by id."""
        return {a["id"]: a for a in self.view["asteroids"] if a.get("exists", True)}

    def settlers(self) -> dict[str, dict[str, Any]]:
        """Every settler, by id."""
        return {s["id"]: s for s in self.view["settlers"]}

    def needs(self) -> dict[str, int]:
        """Units of each kind the living settlers still lack between them."""
        carried = dict.fromkeys(KINDS, 0)
        for s in self.settlers().values():
            if s["alive"]:
                for kind in KINDS:
                    carried[kind] += s["cargo"].get(kind, 0)
        return {kind: max(0, WIN - carried[kind]) for kind in KINDS}

    def storm_hits(self, aid: str) -> bool:
        """Whether a forecast storm covers asteroid `aid`."""
        return any(aid in f.get("asteroids", ()) for f in self.view.get("forecasts", ()))

    def exits(self, aid: str) -> list[tuple[str, str]]:
        """(move target, where it leads) for each neighbour and each active gate orbiting `aid`."""
        asteroids = self.asteroids()
        out = [(n, n) for n in asteroids[aid]["neighbours"] if n in asteroids]
        gates = {g["id"]: g for g in self.view.get("gates", ())}
        for gate in gates.values():  # an active gate leads to where its partner orbits
            partner = gates.get(gate.get("partner") or "")
            if gate.get("at") == aid and gate.get("active") and partner and partner.get("at") in asteroids:
                out.append((gate["id"], partner["at"]))
        return out

    def first_step(self, start: str, wanted: Any) -> str | None:
        """The first move of a shortest way from `start` to an asteroid for which `wanted(asteroid)` holds."""
        asteroids = self.asteroids()
        first: dict[str, str] = {}
        queue = deque([start])
        seen = {start}
        while queue:
            node = queue.popleft()
            for target, destination in self.exits(node):
                if destination in seen:
                    continue
                seen.add(destination)
                first[destination] = first.get(node, target)
                if wanted(asteroids[destination]):
                    return first[destination]
                queue.append(destination)
        return None

    def choose(self, settler: str) -> dict[str, Any]:
        """The `act` message for `settler`, whose turn it is."""
        me = self.settlers()[settler]
        here = self.asteroids()[me["at"]]
        needs = self.needs()
        act: dict[str, Any] = {"type": "act", "settler": settler}
        if self.storm_hits(here["id"]) and not here["shelter"]:
            step = self.first_step(here["id"], lambda a: a["shelter"])
            if step:
                return {**act, "action": "move", "target": step}
        room = CARGO_LIMIT - sum(me["cargo"].values())
        if here["mantle"] == 0 and needs.get(here["core"], 0) > 0 and room > 0:
            return {**act, "action": "mine"}
        wanted = needs.get(here["core"], 0) > 0 or here["core"] == "unknown"
        last_layer_risky = here["mantle"] == 1 and here["core"] in ("ice", "uranium", "unknown") and (
            near(here, self.view["round"]) or near(here, self.view["round"] + 1))
        if here["mantle"] > 0 and wanted and not last_layer_risky:
            return {**act, "action": "drill"}
        if not any(needs.values()):
            leader = min(s for s, v in self.settlers().items() if v["alive"])
            goal = self.settlers()[leader]["at"]
            step = None if goal == here["id"] else self.first_step(here["id"], lambda a: a["id"] == goal)
            return {**act, "action": "move", "target": step} if step else {**act, "action": "wait"}
        step = self.first_step(here["id"], lambda a: needs.get(a["core"], 0) > 0 or a["core"] == "unknown")
        if step:
            return {**act, "action": "move", "target": step}
        return {**act, "action": "wait"}


class Seat:
    """One seat's connection to its game: keeps it open, and the view and the last command through drops."""

    def __init__(self, invite: str) -> None:
        self.url = socket_url(invite)
        self.client = Client()
        self.ref = secrets.randbelow(2**48)  # refs are unique for the seat over the game, across restarts too
        self.pending: dict[str, Any] | None = None  # the act sent and not answered yet
        self.sent_at = -1  # the seq it was sent at
        self.last: dict[str, Any] | None = None  # the last message sent (sent again after `rate_limited`)
        self.error: dict[str, Any] | None = None  # the server's last error (why it closes, when it does)
        self.fresh = False  # whether the current connection got its state

    def send(self, ws: ClientConnection, message: dict[str, Any]) -> None:
        """Send a message (and remember it: `rate_limited` drops it, and it is sent again)."""
        self.last = message
        ws.send(json.dumps(message))

    def act(self, ws: ClientConnection, message: dict[str, Any]) -> None:
        """Send an act with a fresh ref."""
        self.ref += 1
        self.pending = {**message, "ref": self.ref}
        self.sent_at = self.client.seq
        self.send(ws, self.pending)

    def play(self) -> str:
        """Play until the game is over; its status. Connects again when a connection drops (`RECONNECTS`)."""
        tries = 0
        while True:
            self.fresh = False
            later: float | None = None
            try:
                with connect(self.url, open_timeout=10, max_size=None) as ws:
                    status = self.attend(ws)
                    if status is not None:
                        return status
            except ConnectionClosed as closed:
                code = closed.rcvd.code if closed.rcvd else None
                if code in FINAL_CLOSES:
                    said = (self.error or {}).get("message") or (closed.rcvd.reason if closed.rcvd else "")
                    raise Failure(f"the server closed the connection ({code}, {FINAL_CLOSES[code]}): {said}") from None
                why = f"closed ({code})" if code else "dropped"
            except (OSError, TimeoutError, InvalidHandshake) as failed:
                later = retry_after(failed)
                if later is None and self.client.seq == 0 and not self.client.view:  # nothing to resume
                    raise Failure(f"cannot connect to {self.url.split('?')[0]}: {failed}") from None
                why = str(failed) or type(failed).__name__
            tries = 1 if self.fresh else tries + 1  # counted from the last connection that got a state
            if tries > RECONNECTS:
                raise Failure(f"lost the connection and could not connect again ({RECONNECTS} tries): {why}")
            time.sleep(max(later or 0.0, min(10.0, 0.5 * 2 ** (tries - 1))))

    def attend(self, ws: ClientConnection) -> str | None:
        """One connection: play on it until the game is over (its status) or it closes (raises)."""
        client = self.client
        while True:
            message = json.loads(ws.recv())
            kind = message["type"]
            if kind == "state":
                client.take_state(message)
                self.fresh = True
                if self.pending is not None and client.seq == self.sent_at:  # unanswered: again, with its ref
                    self.send(ws, self.pending)
                    continue
                self.pending = None
            elif kind == "update":
                if message["seq"] != client.seq + 1:  # missed something: ask again
                    if message["seq"] > client.seq + 1:
                        self.send(ws, {"type": "sync", "after": client.seq})
                    continue
                client.take_update(message)
                self.pending = None
            elif kind == "ack":  # an act sent again after a drop had been played already (its update came)
                self.pending = None
            elif kind == "ended":
                return str(message["status"])
            elif kind == "error":
                self.error = message
                code = message.get("code")
                if code == "rate_limited":  # dropped: wait as long as the server says, and send it again
                    time.sleep(float(message.get("retry_after") or 1.0))
                    if self.last is not None:
                        self.send(ws, self.last)
                    continue
                if self.pending is None or message.get("ref") != self.pending["ref"]:
                    continue  # not about our act (the connection may be closed after it: see `play`)
                if code in RETRY_LATER:
                    time.sleep(0.5)
                    self.send(ws, self.pending)
                    continue
                refused, self.pending = self.pending, None
                if code not in ("not_your_turn", "game_over") and client.view.get("turn") == refused["settler"]:
                    self.act(ws, {"type": "act", "settler": refused["settler"], "action": "wait"})  # refused
                    continue
            status = client.view.get("status")
            if status in ("won", "lost"):
                return str(status)
            turn = client.view.get("turn")
            if turn in client.mine and self.pending is None and self.sent_at != client.seq:
                self.act(ws, client.choose(turn))


def retry_after(failed: Exception) -> float | None:
    """Seconds to wait before connecting again when the server refused the handshake as too many new connections
    from this address (`429`, with `Retry-After`); None for any other failure."""
    if not isinstance(failed, InvalidStatus) or failed.response.status_code != 429:
        return None
    try:
        return min(60.0, max(0.0, float(failed.response.headers.get("Retry-After", "1"))))
    except ValueError:
        return 1.0


def play(invite: str) -> str:
    """Play the seat of `invite` until the game is over; its status (`won`, `lost` or `abandoned`)."""
    return Seat(invite).play()


def main(argv: list[str]) -> int:
    """`ws_client.py INVITE_LINK`."""
    if len(argv) != 1:
        print("usage: ws_client.py INVITE_LINK", file=sys.stderr)
        return 2
    try:
        result = play(argv[0])
    except KeyboardInterrupt:
        print("ws_client: interrupted", file=sys.stderr)
        return 130
    except Failure as failed:
        print(f"ws_client: {failed}", file=sys.stderr)
        return 1
    except (ValueError, InvalidURI) as bad:  # the invite link (or a message that is not JSON)
        print(f"ws_client: {type(bad).__name__}: {bad}", file=sys.stderr)
        return 1
    except Exception as failed:  # a protocol the client does not understand: still one line, never a traceback
        print(f"ws_client: {type(failed).__name__}: {failed}", file=sys.stderr)
        return 1
    print(result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
