"""What changed in the public view (R17) after an action: the diff sent to clients with its events.

`ViewTracker` keeps the view as clients last saw it, record by record, and after each accepted action recomputes
only what the action can have touched: the asteroids its events name (all of them after events that reach
further: an explosion, a storm, a new round, a destroyed gate), and the small lists (settlers, robots, UFOs,
gates, forecasts). A property test checks that the tracked view always equals `Game.view()`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from ..rules import Event, Game
from ..rules.state import GameState
from ..rules.view import asteroid_view, player_view

SECTIONS = ("asteroids", "settlers", "robots", "ufos", "gates")
"""The lists of records (each with an `id`) of the view."""
TOP = ("round", "status", "turn", "winnable")
"""The scalars of the view, sent with every diff."""

LOCAL_EVENTS = frozenset((
    "moved", "drilled", "mined", "deposited", "robot_built", "gates_built", "gate_placed", "waited", "sublimated",
    "exposure", "sun", "landed", "died", "destroyed", "drifted", "haywire", "storm_forecast", "won", "lost",
))
"""Events that change no asteroid but those they name; any other event makes every asteroid be compared."""


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


def _named_ids(events: Iterable[Event]) -> set[str]:
    found: set[str] = set()
    for event in events:
        for value in event.to_json().values():
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
            section: {record["id"]: record for record in view[section]} for section in SECTIONS
        }

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

    def update(self, events: list[Event]) -> dict[str, Any]:
        """The diff since the last call (the game has moved on by `events`), and remember the new view.

        A diff has `round`, `status`, `turn` and `winnable` always, `forecasts` when they changed, and for each
        of `asteroids`, `settlers`, `robots`, `ufos`, `gates` the records that changed or are new (whole).
        """
        state = self._game.state
        rest = player_view(cast(GameState, _WithoutAsteroids(state)))
        diff: dict[str, Any] = {key: rest[key] for key in TOP}
        self._top = dict(diff)
        if rest["forecasts"] != self._forecasts:
            diff["forecasts"] = self._forecasts = rest["forecasts"]
        for section in SECTIONS[1:]:
            self._merge(section, rest[section], diff)
        if all(event.type in LOCAL_EVENTS for event in events):
            ids = [aid for aid in _named_ids(events) if aid in state.asteroids]
            ids.sort(key=lambda aid: state.asteroids[aid].index)
            asteroids = [asteroid_view(state, state.asteroids[aid]) for aid in ids]
        else:
            asteroids = [asteroid_view(state, a) for a in state.asteroids.values()]
        self._merge("asteroids", asteroids, diff)
        return diff

    def _merge(self, section: str, records: list[dict[str, Any]], diff: dict[str, Any]) -> None:
        known = self._records[section]
        changed = []
        for record in records:
            if known.get(record["id"]) != record:
                known[record["id"]] = record
                changed.append(record)
        if changed:
            diff[section] = changed
