"""Play a seat of an Asteroid Mining game over the network, from its invite link, to the end of the game.

    python examples/ws_client.py 'http://127.0.0.1:8000/#/game/GAME?seat=1&token=TOKEN'

It uses nothing of the game's own code: only the WebSocket protocol of docs/server.md (JSON text frames), so it
is a model for a client in any language. Its one library is `websockets` (`pip install websockets`). It keeps
the view up to date from the `state` and each `update`'s `diff`, and on the turn of one of its settlers chooses
with a simple strategy (below) and sends an `act`; a refused action is replaced by `wait`. It exits 0 when the
game is over, printing `won` or `lost`, and 1 on a connection or protocol failure.

The strategy, one settler at a time: run to a neighbouring shelter when a storm is forecast for its asteroid;
mine an exposed core the team still needs; drill a needed or unknown core (never the last layer over ice or
uranium near the Sun); when the team carries 3 of everything, walk to the first settler; otherwise walk towards
the nearest asteroid that holds a needed core, or one nobody has surveyed.
"""

from __future__ import annotations

import json
import sys
from collections import deque
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.sync.client import connect

KINDS = ("ice", "iron", "carbon", "uranium")
WIN = 3
CARGO_LIMIT = 10
SECTIONS = ("asteroids", "settlers", "robots", "ufos", "gates")


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


def play(invite: str) -> str:
    """Play the seat of `invite` until the game is over; its status (`won` or `lost`)."""
    client = Client()
    with connect(socket_url(invite), open_timeout=10, max_size=None) as ws:
        sent: int | None = None  # the seq our last act was sent at (one act in flight at a time)
        while True:
            message = json.loads(ws.recv(timeout=120))
            kind = message["type"]
            if kind == "state":
                client.take_state(message)
                sent = None
            elif kind == "update":
                if message["seq"] != client.seq + 1:  # missed something: ask again
                    ws.send(json.dumps({"type": "sync", "after": client.seq}))
                    continue
                client.take_update(message)
                sent = None
            elif kind == "error":
                if message.get("code") in ("not_your_turn", "game_over"):
                    sent = None
                elif sent is not None and client.view.get("turn") in client.mine:  # refused: wait instead
                    ws.send(json.dumps({"type": "act", "settler": client.view["turn"], "action": "wait"}))
                    continue
            status = client.view.get("status")
            if status in ("won", "lost"):
                return str(status)
            turn = client.view.get("turn")
            if turn in client.mine and sent != client.seq:
                ws.send(json.dumps(client.choose(turn)))
                sent = client.seq


def main(argv: list[str]) -> int:
    """`ws_client.py INVITE_LINK`."""
    if len(argv) != 1:
        print("usage: ws_client.py INVITE_LINK", file=sys.stderr)
        return 2
    try:
        result = play(argv[0])
    except (OSError, ValueError, KeyError, TimeoutError) as failed:
        print(f"ws_client: {type(failed).__name__}: {failed}", file=sys.stderr)
        return 1
    print(result)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
