"""What changed in the public view (R17) after an action: the diff sent to clients with its events.

`ViewTracker` keeps the view as clients last saw it, record by record, and after each accepted action recomputes
only what the action can have touched: the small lists (settlers, robots, UFOs, gates, forecasts) and the
asteroids its events name, plus those an event reaches beyond what it names — a new round: the asteroids whose
orbit brings them near or takes them away that round (indexed by their `next_change`); an explosion: the former
neighbours; a destroyed gate: the asteroid it orbited. An event it does not know makes it compare every asteroid.
A property test checks that the tracked view always equals `Game.view()`.

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
from ..rules.view import asteroid_view, forecast_view, gate_view, robot_view, settler_view, ufo_view

SECTIONS = ("asteroids", "settlers", "robots", "ufos", "gates")
"""The lists of records (each with an `id`) of the view."""
TOP = ("round", "status", "turn", "winnable")
"""The scalars of the view, sent with every diff."""
SUN = ("near", "next_change")
"""The fields of an asteroid that its orbit changes from round to round (R5): sent as short `sun` entries."""

LOCAL_EVENTS = frozenset((
    "moved", "drilled", "mined", "deposited", "robot_built", "gates_built", "gate_placed", "waited", "sublimated",
    "exposure", "sun", "landed", "died", "destroyed", "drifted", "haywire", "storm_forecast", "storm", "won", "lost",
))
"""Events that change no asteroid but those they name (`round`, `exploded` and `gate_destroyed` are handled
apart); any other event makes every asteroid be compared."""


def _frozen(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its lists as tuples (its dicts hold only numbers): invisible to the cyclic collector."""
    return {key: tuple(value) if isinstance(value, list) else value for key, value in record.items()}


def _named_ids(events: Iterable[dict[str, Any]]) -> set[str]:
    found: set[str] = set()
    for event in events:
        for value in event.values():
            if isinstance(value, str):
                found.add(value)
            elif isinstance(value, list):
                found.update(v for v in value if isinstance(v, str))
    return found


class ViewTracker:
    """The public view as clients have it, and the diffs that bring it up to date.

    An asteroid's `near` and `next_change` are kept apart from the rest of its record (`_sun`): they change every
    few rounds for many asteroids, and then nothing else needs copying.
    """

    def __init__(self, game: Game) -> None:
        self.reset(game)

    def reset(self, game: Game) -> None:
        """Start again from `game`'s current view."""
        self._game = game
        view = game.view()
        self._top: dict[str, Any] = {key: view[key] for key in TOP}
        self._options = view["options"]
        self._forecasts: list[Any] = view["forecasts"]
        self._records: dict[str, dict[str, dict[str, Any]]] = {section: {} for section in SECTIONS}
        self._sun: dict[str, tuple[bool, int | None]] = {}
        self._flips: dict[int, set[str]] = {}  # round -> asteroids whose sun state changes then (R5)
        for section in SECTIONS[1:]:
            self._merge(section, view[section])
        self._merge_asteroids(view["asteroids"], [])

    @property
    def top(self) -> dict[str, Any]:
        """`round`, `status`, `turn` and `winnable` as clients have them."""
        return self._top

    def view(self) -> dict[str, Any]:
        """The whole view, as `Game.view()` gave it when the last diff was taken (lists may be tuples)."""
        return {
            **self._top,
            "options": self._options,
            "asteroids": [self._whole(record) for record in self._records["asteroids"].values()],
            "settlers": list(self._records["settlers"].values()),
            "robots": list(self._records["robots"].values()),
            "ufos": list(self._records["ufos"].values()),
            "gates": list(self._records["gates"].values()),
            "forecasts": self._forecasts,
        }

    def update(self, events: list[dict[str, Any]]) -> dict[str, Any]:
        """The diff since the last call (the game has moved on by `events`, as JSON), and remember the new view.

        A diff has `round`, `status`, `turn` and `winnable` always, `forecasts` when they changed, for each
        of `asteroids`, `settlers`, `robots`, `ufos`, `gates` the records that changed or are new (whole), and
        `sun`: `[id, near, next_change]` for each asteroid of which nothing else changed (many, each round).
        """
        state = self._game.state
        everything, named, flipped = self._reach(events)
        # the view's parts as `player_view` builds them, record by record (its `options`, which never change
        # during a game, are not rebuilt: that alone cost as much as the rest of the small lists)
        diff: dict[str, Any] = {"round": state.round, "status": state.status, "turn": state.turn,
                                "winnable": winnable(state)}
        self._top = dict(diff)
        forecasts = [forecast_view(f) for f in state.forecasts]
        if forecasts != self._forecasts:
            diff["forecasts"] = self._forecasts = forecasts
        for section, records in (
            ("settlers", [settler_view(s) for s in state.settlers.values()]),
            ("robots", [robot_view(r) for r in state.robots.values()]),
            ("ufos", [ufo_view(u) for u in state.ufos.values()]),
            ("gates", [gate_view(state, g) for g in state.gates.values()]),
        ):
            changed = self._merge(section, records)
            if changed:
                diff[section] = changed
        sun: list[list[Any]] = []
        if everything:
            records = [asteroid_view(state, a) for a in state.asteroids.values()]
        else:
            ids = sorted((aid for aid in named if aid in state.asteroids), key=lambda aid: state.asteroids[aid].index)
            records = [asteroid_view(state, state.asteroids[aid]) for aid in ids]
            for aid in sorted(flipped - named, key=lambda aid: state.asteroids[aid].index):
                asteroid = state.asteroids[aid]
                orbit = asteroid.orbit
                self._set_sun(aid, state.is_near(asteroid), orbit.next_change(state.round) if orbit else None, sun)
        changed = self._merge_asteroids(records, sun)
        if changed:
            diff["asteroids"] = changed
        if sun:
            diff["sun"] = sun
        return diff

    def _reach(self, events: list[dict[str, Any]]) -> tuple[bool, set[str], set[str]]:
        """Whether every asteroid must be compared; else the ids of those that may have changed in any way,
        and of those whose orbit alone may have changed them (R5)."""
        named = _named_ids(events)
        flipped: set[str] = set()
        for event in events:
            kind = event["type"]
            if kind == "round":
                for due in [r for r in self._flips if r <= event["round"]]:
                    flipped |= self._flips.pop(due)
            elif kind == "exploded":
                named.update(self._records["asteroids"].get(event["asteroid"], {}).get("neighbours", ()))
            elif kind == "gate_destroyed":
                where = self._records["gates"].get(event["gate"], {}).get("at")
                if where is not None:
                    named.add(where)
            elif kind not in LOCAL_EVENTS:
                return True, named, flipped
        return False, named, flipped

    def _whole(self, record: dict[str, Any]) -> dict[str, Any]:
        """An asteroid's record with its sun fields."""
        sun = self._sun.get(record["id"])
        return record if sun is None else {**record, "near": sun[0], "next_change": sun[1]}

    def _set_sun(self, aid: str, near: bool, next_change: int | None, sun: list[list[Any]]) -> bool:
        """Record an asteroid's place on its orbit; a `sun` entry when it changed. True when it changed."""
        before = self._sun.get(aid)
        if before == (near, next_change):
            return False
        self._drop_sun(aid)
        self._sun[aid] = (near, next_change)
        if next_change is not None:
            self._flips.setdefault(next_change, set()).add(aid)
        sun.append([aid, near, next_change])
        return True

    def _drop_sun(self, aid: str) -> None:
        before = self._sun.pop(aid, None)
        if before is not None and before[1] is not None:
            self._flips.get(before[1], set()).discard(aid)

    def _merge(self, section: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Remember the records of a small list that changed, and return them."""
        known = self._records[section]
        changed = []
        for record in records:
            if known.get(record["id"]) != record:
                known[record["id"]] = record
                changed.append(record)
        return changed

    def _merge_asteroids(self, records: list[dict[str, Any]], sun: list[list[Any]]) -> list[dict[str, Any]]:
        """Remember the asteroids that changed; return those to send whole (those whose orbit alone changed them
        go to `sun`)."""
        known = self._records["asteroids"]
        changed = []
        for record in map(_frozen, records):
            aid = record["id"]
            if "near" in record:
                moved = self._set_sun(aid, record.pop("near"), record.pop("next_change"), sun)
            else:
                self._drop_sun(aid)  # exploded: no place on an orbit any more
                moved = False
            if known.get(aid) != record:
                known[aid] = record
                if moved:
                    sun.pop()  # the whole record goes, its sun fields with it
                changed.append(self._whole(record))
        return changed
