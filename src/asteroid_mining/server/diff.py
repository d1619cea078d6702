"""What changed in the public view (R17) after an action: the diff sent to clients with its events.

`ViewTracker` keeps the view as clients last saw it, record by record, and after each accepted action recomputes
only what the action can have touched: the small lists (settlers, robots, UFOs, gates, forecasts) and the
asteroids its events name, plus those an event reaches beyond what it names — a new round: the asteroids whose
orbit brings them near or takes them away that round (indexed by their `next_change`); an explosion: the former
neighbours; a destroyed gate: the asteroid it orbited. An event it does not know makes it compare every asteroid.
A property test checks that the tracked view always equals `Game.view()`.

The records are kept with tuples in place of lists: CPython's garbage collector then stops tracking them (they
hold no containers it must scan), so that hundreds of games' views do not make each full collection long.
JSON writes tuples as arrays: clients see no difference.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from ..rules import Game
from ..rules.state import GameState
from ..rules.view import asteroid_view, player_view

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


class _WithoutAsteroids:
    """The game's state seen without its asteroids, so that the engine's `player_view` builds the small lists.

    A stop-gap until the engine offers the view's records one by one (requested of rules/).
    """

    __slots__ = ("_state",)
    asteroids: dict[str, Any] = {}  # noqa: RUF012 - read-only, never mutated

    def __init__(self, state: GameState) -> None:
        self._state = state

    def __getattr__(self, name: str) -> Any:
        return getattr(self._state, name)


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
    """The public view as clients have it, and the diffs that bring it up to date."""

    def __init__(self, game: Game) -> None:
        self.reset(game)

    def reset(self, game: Game) -> None:
        """Start again from `game`'s current view."""
        self._game = game
        view = game.view()
        self._top: dict[str, Any] = {key: view[key] for key in TOP}
        self._options = view["options"]
        self._forecasts: list[Any] = view["forecasts"]
        self._records: dict[str, dict[str, dict[str, Any]]] = {
            section: {record["id"]: _frozen(record) for record in view[section]} for section in SECTIONS
        }
        self._flips: dict[int, set[str]] = {}  # round -> asteroids whose sun state changes then (R5)
        for record in view["asteroids"]:
            self._index_flip(record, None)

    @property
    def top(self) -> dict[str, Any]:
        """`round`, `status`, `turn` and `winnable` as clients have them."""
        return self._top

    def view(self) -> dict[str, Any]:
        """The whole view, as `Game.view()` gave it when the last diff was taken."""
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

        A diff has `round`, `status`, `turn` and `winnable` always, `forecasts` when they changed, for each
        of `asteroids`, `settlers`, `robots`, `ufos`, `gates` the records that changed or are new (whole), and
        `sun`: `[id, near, next_change]` for each asteroid of which nothing else changed (many, each round).
        """
        state = self._game.state
        everything, named, flipped = self._reach(events)
        rest = player_view(cast(GameState, _WithoutAsteroids(state)))
        diff: dict[str, Any] = {key: rest[key] for key in TOP}
        self._top = dict(diff)
        if rest["forecasts"] != self._forecasts:
            diff["forecasts"] = self._forecasts = rest["forecasts"]
        for section in SECTIONS[1:]:
            changed = self._merge(section, rest[section], [])
            if changed:
                diff[section] = changed
        sun: list[list[Any]] = []
        if everything:
            records = [asteroid_view(state, a) for a in state.asteroids.values()]
        else:
            ids = sorted((aid for aid in named if aid in state.asteroids), key=lambda aid: state.asteroids[aid].index)
            records = [asteroid_view(state, state.asteroids[aid]) for aid in ids]
            for aid in sorted(flipped - named, key=lambda aid: state.asteroids[aid].index):
                self._turn_on_orbit(state, aid, sun)
        changed = self._merge("asteroids", records, sun)
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

    def _turn_on_orbit(self, state: GameState, aid: str, sun: list[list[Any]]) -> None:
        """An asteroid nothing happened to but its orbit: only `near` and `next_change` can differ (R5)."""
        asteroid = state.asteroids[aid]
        before = self._records["asteroids"][aid]
        near = state.is_near(asteroid)
        next_change = asteroid.orbit.next_change(state.round) if asteroid.orbit else None
        if before["near"] != near or before["next_change"] != next_change:
            record = {**before, "near": near, "next_change": next_change}
            self._records["asteroids"][aid] = record
            self._index_flip(record, before)
            sun.append([aid, near, next_change])

    def _index_flip(self, record: dict[str, Any], before: dict[str, Any] | None) -> None:
        old = before.get("next_change") if before else None
        new = record.get("next_change")
        if old == new:
            return
        if old is not None and old in self._flips:
            self._flips[old].discard(record["id"])
        if new is not None:
            self._flips.setdefault(new, set()).add(record["id"])

    def _merge(self, section: str, records: list[dict[str, Any]], sun: list[list[Any]]) -> list[dict[str, Any]]:
        """Remember the records that changed; return those to send whole (asteroids whose orbit alone changed
        them go to `sun` instead)."""
        known = self._records[section]
        changed = []
        for record in map(_frozen, records):
            before = known.get(record["id"])
            if before == record:
                continue
            known[record["id"]] = record
            if section != "asteroids":
                changed.append(record)
                continue
            self._index_flip(record, before)
            if before is not None and before.keys() == record.keys() and all(
                    before[key] == value for key, value in record.items() if key not in SUN):
                sun.append([record["id"], record["near"], record["next_change"]])
            else:
                changed.append(record)
        return changed
