"""What changed in the public view (R17) after an action: the diff sent to clients with its events.

The server sends the view as the engine gives it (`Game.view()`) but for two fields of each asteroid: `near`
and `next_change` follow from the asteroid's `orbit`, its `pinned` state and the round (R5), so they are left
out of every message and each client derives them (`with_sun`; the browser does the same). A new round then
changes no asteroid record by itself, and a diff stays as small as what the action did: on a standard belt a
third of the asteroids change their place on their orbit every round, and sending each of those to every
client after every round cost the server more than the rest of the diff together.

`ViewTracker` keeps the view as clients last saw it, record by record, and after each accepted command rebuilds
only the records the engine says it touched (`Game.take_touched`: every asteroid, settler, robot, UFO or gate
whose view entry may have changed, whatever changed it — the action, the robots, the end of the round). It needs
neither the engine's state nor a list of event types. The top of the view (`round`, `status`, `turn`,
`winnable`) is read from the game's properties after every command; the forecasts, which change only at the end
of a round (or with a scenario's set-up), are compared as the engine's immutable records and written again only
when they changed. A property test checks that the tracked view, with the derived fields added, always equals
`Game.view()`.

The asteroids' records are kept with tuples in place of lists: CPython's garbage collector then stops tracking
them (they hold no containers it must scan), so that hundreds of games' views do not make each full collection
long. JSON writes tuples as arrays: clients see no difference. The small lists' records (a few dozen a game) are
kept as the engine gives them: freezing them after every action would cost more than it saves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..rules import Game, sun_state

SECTIONS = ("asteroids", "settlers", "robots", "ufos", "gates")
"""The lists of records (each with an `id`) of the view."""
SECTION_OF = {"asteroid": "asteroids", "settler": "settlers", "robot": "robots", "ufo": "ufos", "gate": "gates"}
"""The list of the view that holds a thing of each kind (`Game.kind_of`)."""
TOP = ("round", "status", "turn", "winnable")
"""The scalars of the view, sent with every diff."""
DERIVED = ("near", "next_change")
"""The fields of an asteroid's view that messages leave out: each client derives them (R5, `with_sun`)."""


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


@dataclass(slots=True)
class ViewChange:
    """What a command changed in the view (`ViewTracker.prepare`), not yet remembered (`ViewTracker.commit`)."""

    diff: dict[str, Any]
    touched: set[str]
    """The ids the engine named as touched (for `choices.ChoiceTracker`)."""
    forecasts: Any
    """The engine's forecast records the diff's `forecasts` (if any) were written from."""


class ViewTracker:
    """The public view as clients have it (without the derived fields), and the diffs that bring it up to date."""

    def __init__(self, game: Game) -> None:
        self.reset(game)

    def reset(self, game: Game) -> None:
        """Start again from `game`'s current view."""
        self._game = game
        game.take_touched()  # everything is read afresh below
        view = game.view(include_asteroids=False)
        self._top: dict[str, Any] = {key: view[key] for key in TOP}
        self._options = view["options"]
        self._forecasts: list[Any] = view["forecasts"]
        self._forecast_records = game.forecasts
        self._records: dict[str, dict[str, dict[str, Any]]] = {section: {} for section in SECTIONS}
        for section in SECTIONS[1:]:
            self._merge(section, view[section])
        self._merge(SECTIONS[0], [game.thing_view(aid, sun=False, frozen=True) for aid in game.asteroids])
        self.touched: set[str] = set()
        """The ids the last `update` was told of (for `choices.ChoiceTracker`)."""

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

    def update(self) -> dict[str, Any]:
        """The diff since the last call (or `reset`), and remember the new view (`prepare`, then `commit`).

        A diff has `round`, `status`, `turn` and `winnable` always, `forecasts` when they changed, and for each
        of `asteroids`, `settlers`, `robots`, `ufos`, `gates` the records that changed or are new (whole), each
        list in the engine's order.
        """
        change = self.prepare()
        self.commit(change)
        return change.diff

    def prepare(self) -> ViewChange:
        """The diff since the last commit (or `reset`), without remembering it: `view()` stays as it was until
        `commit` (the server announces a command only once it is stored, and works its diff out before)."""
        game = self._game
        touched = game.take_touched()
        diff: dict[str, Any] = {"round": game.round, "status": game.status, "turn": game.turn,
                                "winnable": game.winnable}
        forecasts = game.forecasts  # the engine's records, immutable: compared as they are, written when changed
        change = ViewChange(diff, touched, forecasts)
        if forecasts != self._forecast_records:
            diff["forecasts"] = game.forecast_views()
        if not touched:
            return change
        found: dict[str, list[str]] = {}
        for tid in touched:
            kind = game.kind_of(tid)
            if kind is not None:
                found.setdefault(SECTION_OF[kind], []).append(tid)
        for section in SECTIONS:
            ids = found.get(section)
            if not ids:
                continue
            if len(ids) > 1:  # new records are appended: in the engine's (creation) order, as `Game.view()` has them
                things = getattr(game, section)
                ids.sort(key=lambda tid: things[tid].index)
            frozen = section == "asteroids"
            known = self._records[section]
            changed = [record for record in [game.thing_view(tid, sun=False, frozen=frozen) for tid in ids]
                       if known.get(record["id"]) != record]
            if changed:
                diff[section] = changed
        return change

    def commit(self, change: ViewChange) -> None:
        """Remember the view `change` (from `prepare`) brings: what clients have once it is sent."""
        diff = change.diff
        self.touched = change.touched
        self._top = {key: diff[key] for key in TOP}
        if "forecasts" in diff:
            self._forecast_records = change.forecasts
            self._forecasts = diff["forecasts"]
        for section in SECTIONS:
            records = diff.get(section)
            if records:
                self._merge(section, records)

    def _merge(self, section: str, records: list[dict[str, Any]]) -> None:
        """Remember the records of a list."""
        known = self._records[section]
        for record in records:
            known[record["id"]] = record
