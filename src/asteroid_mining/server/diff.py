"""What changed in the public view (R17) after an action: the diff sent to clients with its events.

The server sends the view as the engine gives it (`Game.view()`) but for two fields of each asteroid: `near`
and `next_change` follow from the asteroid's `orbit`, its `pinned` state and the round (R5), so they are left
out of every message and each client derives them (`with_sun`; the browser does the same). A new round then
changes no asteroid record by itself, and a diff stays as small as what the action did: on a standard belt a
third of the asteroids change their place on their orbit every round, and sending each of those to every
client after every round cost the server more than the rest of the diff together.

`ViewTracker` keeps the view as clients last saw it, record by record, and after each accepted action recomputes
only what the action can have touched: the small lists (settlers, robots, UFOs, gates, forecasts) and the
asteroids its events name, plus those an event reaches beyond what it names — an explosion: the former
neighbours; a destroyed gate: the asteroid it orbited. An event it does not know makes it compare every asteroid.
A property test checks that the tracked view, with the derived fields added, always equals `Game.view()`.

The asteroids' records are kept with tuples in place of lists: CPython's garbage collector then stops tracking
them (they hold no containers it must scan), so that hundreds of games' views do not make each full collection
long. JSON writes tuples as arrays: clients see no difference. The small lists' records (a few dozen a game) are
kept as the engine gives them: freezing them after every action would cost more than it saves.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..rules import Game
from ..rules.effects import winnable
from ..rules.view import asteroid_view, forecast_view, gate_view, robot_view, settler_view, sun_state, ufo_view

SECTIONS = ("asteroids", "settlers", "robots", "ufos", "gates")
"""The lists of records (each with an `id`) of the view."""
TOP = ("round", "status", "turn", "winnable")
"""The scalars of the view, sent with every diff."""
DERIVED = ("near", "next_change")
"""The fields of an asteroid's view that messages leave out: each client derives them (R5, `with_sun`)."""

LOCAL_EVENTS = frozenset((
    "moved", "drilled", "mined", "deposited", "robot_built", "gates_built", "gate_placed", "waited", "sublimated",
    "exposure", "sun", "landed", "died", "destroyed", "drifted", "haywire", "storm_forecast", "storm", "won", "lost",
    "round",
))
"""Events that change no asteroid but those they name (`exploded` and `gate_destroyed` are handled apart); any
other event makes every asteroid be compared."""
UNCHANGING_EVENTS = frozenset(("storm_forecast", "storm"))
"""Events that name asteroids but change none: a forecast is a list of its own, and whoever a storm kills has an
event (`died`, `destroyed`) naming the asteroid (R7). A storm names a whole sector of the belt."""


def _named_ids(events: Iterable[dict[str, Any]]) -> set[str]:
    found: set[str] = set()
    for event in events:
        if event["type"] in UNCHANGING_EVENTS:
            continue
        for value in event.values():
            if isinstance(value, str):
                found.add(value)
            elif isinstance(value, list):
                found.update(v for v in value if isinstance(v, str))
    return found


def with_sun(view: dict[str, Any]) -> dict[str, Any]:
    """A view as messages carry it, with every asteroid's `near` and `next_change` derived again (R5).

    What a client does on receiving a view or applying a diff; the result equals `Game.view()`.
    """
    round_no = view["round"]
    asteroids = []
    for record in view["asteroids"]:
        if record.get("exists", True):
            near, next_change = sun_state(record["orbit"], record["pinned"], round_no)
            whole = {}
            for key, value in record.items():  # in the engine's order: the sun fields follow `surveyed`
                whole[key] = value
                if key == "surveyed":
                    whole["near"], whole["next_change"] = near, next_change
            record = whole
        asteroids.append(record)
    return {**view, "asteroids": asteroids}


class ViewTracker:
    """The public view as clients have it (without the derived fields), and the diffs that bring it up to date."""

    def __init__(self, game: Game) -> None:
        self.reset(game)

    def reset(self, game: Game) -> None:
        """Start again from `game`'s current view."""
        self._game = game
        state = game.state
        view = game.view()
        self._top: dict[str, Any] = {key: view[key] for key in TOP}
        self._options = view["options"]
        self._forecasts: list[Any] = view["forecasts"]
        self._records: dict[str, dict[str, dict[str, Any]]] = {section: {} for section in SECTIONS}
        for section in SECTIONS[1:]:
            self._merge(section, view[section])
        self._merge(SECTIONS[0], [asteroid_view(state, a, sun=False, frozen=True) for a in state.asteroids.values()])

    @property
    def top(self) -> dict[str, Any]:
        """`round`, `status`, `turn` and `winnable` as clients have them."""
        return self._top

    def view(self) -> dict[str, Any]:
        """The whole view as messages carry it, as of the last diff (lists may be tuples; no derived fields)."""
        return {
            **self._top,
            "options": self._options,
            "asteroids": list(self._records["asteroids"].values()),
            "settlers": list(self._records["settlers"].values()),
            "robots": list(self._records["robots"].values()),
            "ufos": list(self._records["ufos"].values()),
            "gates": list(self._records["gates"].values()),
            "forecasts": self._forecasts,
        }

    def update(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        """The diff since the last call (the game has moved on by `events`, as JSON), and remember the new view.

        A diff has `round`, `status`, `turn` and `winnable` always, `forecasts` when they changed, and for each
        of `asteroids`, `settlers`, `robots`, `ufos`, `gates` the records that changed or are new (whole).
        """
        state = self._game.state
        everything, named = self._reach(events)
        # the view's parts as `player_view` builds them, record by record (its `options`, which never change
        # during a game, are not rebuilt: that alone cost as much as the rest of the small lists)
        diff: dict[str, Any] = {"round": state.round, "status": state.status, "turn": state.turn,
                                "winnable": winnable(state)}
        self._top = dict(diff)
        forecasts = [forecast_view(f) for f in state.forecasts]
        if forecasts != self._forecasts:
            diff["forecasts"] = self._forecasts = forecasts
        # settlers, robots and UFOs change only when an event names them; gates also when their partner does
        settlers, robots, ufos = state.settlers, state.robots, state.ufos
        if not everything:
            settlers = {sid: settlers[sid] for sid in settlers if sid in named}
            robots = {rid: robots[rid] for rid in robots if rid in named} if robots else robots
            ufos = {uid: ufos[uid] for uid in ufos if uid in named} if ufos else ufos
        for section, records in (
            ("settlers", [settler_view(s) for s in settlers.values()]),
            ("robots", [robot_view(r) for r in robots.values()]),
            ("ufos", [ufo_view(u) for u in ufos.values()]),
            ("gates", [gate_view(state, g) for g in state.gates.values()]),
        ):
            changed = self._merge(section, records)
            if changed:
                diff[section] = changed
        asteroids = state.asteroids
        if everything:
            touched = list(asteroids.values())
        else:
            touched = sorted((asteroids[aid] for aid in named if aid in asteroids), key=lambda a: a.index)
        changed = self._merge("asteroids", [asteroid_view(state, a, sun=False, frozen=True) for a in touched])
        if changed:
            diff["asteroids"] = changed
        return diff

    def _reach(self, events: list[dict[str, Any]]) -> tuple[bool, set[str]]:
        """Whether every asteroid must be compared; else the ids of those that may have changed."""
        named = _named_ids(events)
        for event in events:
            kind = event["type"]
            if kind == "exploded":
                named.update(self._records["asteroids"].get(event["asteroid"], {}).get("neighbours", ()))
            elif kind == "gate_destroyed":
                where = self._records["gates"].get(event["gate"], {}).get("at")
                if where is not None:
                    named.add(where)
            elif kind not in LOCAL_EVENTS:
                return True, named
        return False, named

    def _merge(self, section: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Remember the records of a list that changed, and return them."""
        known = self._records[section]
        changed = []
        for record in records:
            if known.get(record["id"]) != record:
                known[record["id"]] = record
                changed.append(record)
        return changed
