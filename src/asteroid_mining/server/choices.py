"""`ChoiceTracker`: the choices (`Game.choices`) of the settlers that connections may move, kept as last sent,
and after each command the ones that changed.

The `state` message carries the choices of the connection's settlers, and every `update` those that changed. A
settler that may act now has every entry (`Game.choices(settler)`); one that cannot (not its turn, dead, the
game over) has none: `null`. Why it cannot act is in the view (`turn`, the settler's `alive`, `status`), its
reactions and storms too (`reacts_at`, `forecasts`), and a client offers actions only to the settler whose step
it is. So in strict turns each step changes two settlers' choices, the one that acted (now `null`) and the one
whose turn comes, and no other: the other seats get the update every connection gets, one text for them all.

Computing a settler's choices costs about as much as the rest of an update, so the tracker computes them only for
settlers some connection that takes choices may move (a game of bots or spectators computes none), and only when
they can have changed: when the round or the game's status moved on, when the turn came to the settler or left
it, or when the command touched (`Game.take_touched`, through the `ViewTracker`) what they are made of
(`Game.choices_scope`: the settler, its asteroid, a neighbour, a gate orbiting there or that gate's partner and
its asteroid). A settler that cannot act is looked at again only when the turn comes to it (the game over and
death are for good). The scope of a settler that can act is taken only when a command leaves the turn and the
round as they were (free turns), after that command: anything that changes the scope itself touches the settler,
its asteroid or a gate of the scope before and after, so it tells the same.

Choices are kept, compared and handed out as JSON text, written by the engine as it judges them
(`Game.choices_text`, exactly orjson's text of `Choices.to_json(messages=False)`): no objects or dicts are made
only to be encoded, and between actions a server keeps a few strings per connected settler for the cyclic garbage
collector to ignore. Refusals are written as their `code` and `params`, without the English sentence: clients
word them from those (the browser in every language it speaks).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..rules import Game
from ..rules.json_text import quoted_between


@dataclass(slots=True)
class ChoiceChange:
    """The choices a command changed (`ChoiceTracker.prepare`), by settler as JSON text, and the turn, round and
    status they were worked out for; not yet remembered as sent (`ChoiceTracker.commit`)."""

    changed: dict[str, str]
    turn: str | None
    round: int
    status: str


NONE = "null"
"""The choices of a settler that cannot act now, as JSON text."""


class ChoiceTracker:
    """The choices of the watched settlers (those some connection that takes choices may move), as last sent."""

    def __init__(self, game: Game) -> None:
        self._watched: Counter[str] = Counter()
        self.reset(game)

    def reset(self, game: Game) -> None:
        """Follow `game` from now on (after a reload); the watched settlers stay watched."""
        self._game = game
        self._sent: dict[str, str] = {}
        """Each watched settler's choices as last sent (JSON text; `NONE` when it could not act)."""
        self._scopes: dict[str, frozenset[str]] = {}
        """The ids the choices of a settler that could act are made of (`Game.choices_scope`), once asked."""
        self._turn, self._round, self._status = game.turn, game.round, game.status

    @property
    def watched(self) -> set[str]:
        """The settlers whose choices are kept: those some connection that takes choices may move."""
        return set(self._watched)

    def watch(self, settlers: Iterable[str]) -> None:
        """A connection that may move `settlers` has joined."""
        self._watched.update(settlers)

    def unwatch(self, settlers: Iterable[str]) -> None:
        """A connection that could move `settlers` has left; forget those nobody else may move."""
        for sid in settlers:
            self._watched[sid] -= 1
            if self._watched[sid] <= 0:
                del self._watched[sid]
                self._sent.pop(sid, None)
                self._scopes.pop(sid, None)

    def current(self, settlers: Iterable[str]) -> dict[str, str]:
        """The choices of `settlers` now, as JSON text by settler (for a `state` message)."""
        out = {}
        for sid in settlers:
            text = self._sent.get(sid)
            if text is None:
                text = self._sent[sid] = self._compute(sid)
            out[sid] = text
        return out

    def update(self, touched: set[str]) -> dict[str, str]:
        """After a command that touched `touched`: the choices of the watched settlers that changed, as JSON text
        by settler (and remember them as sent: `prepare`, then `commit`)."""
        change = self.prepare(touched)
        self.commit(change)
        return change.changed

    def prepare(self, touched: set[str]) -> ChoiceChange:
        """`update`'s choices, not yet remembered as sent (`commit` does, once the command is announced)."""
        game = self._game
        turn, round_no, status = game.turn, game.round, game.status
        everything = round_no != self._round or status != self._status
        before = self._turn
        sent_texts, scopes = self._sent, self._scopes
        changed: dict[str, str] = {}
        for sid in self._watched:
            sent = sent_texts.get(sid)
            if sent is None:
                pass
            elif sent is NONE:  # it could not act: until its turn comes, nothing else can let it
                if sid != turn:
                    continue
            elif not everything and sid != turn and sid != before:
                # the turn stays with it or away from it, the round and status as they were: only a change to
                # what its choices are made of changes them. Its scope is taken now, after the command: a change
                # to the scope itself (a move, a link, a gate) touches the settler, its asteroid or a gate that
                # belongs to the scope before and after, so either tells the same.
                scope = scopes.get(sid)
                if scope is None:
                    scope = scopes[sid] = game.choices_scope(sid)
                if touched.isdisjoint(scope):
                    continue
            # strict turns: only the settler whose turn it is may act, so any other cannot (`NONE`), without
            # asking the engine (that is the settler that has just acted, at every step)
            fresh = NONE if turn is not None and sid != turn else self._compute(sid)
            scopes.pop(sid, None)
            if fresh != sent:
                changed[sid] = fresh
        return ChoiceChange(changed, turn, round_no, status)

    def commit(self, change: ChoiceChange) -> None:
        """Remember `change` (from `prepare`) as sent: the choices of settlers still watched, and the turn, round
        and status they were worked out for."""
        self._turn, self._round, self._status = change.turn, change.round, change.status
        watched, sent_texts = self._watched, self._sent
        for sid, text in change.changed.items():
            if sid in watched:
                sent_texts[sid] = text

    def _compute(self, sid: str) -> str:
        """`sid`'s choices now, as JSON text (`NONE` when it cannot act)."""
        text = self._game.choices_text(sid)
        return NONE if text is None else text


def choices_json(texts: Mapping[str, str]) -> str:
    """A JSON object of choices by settler, from each settler's choices as JSON text."""
    return "{" + ",".join([choice_key(sid) + text for sid, text in texts.items()]) + "}"


_KEYS: dict[str, str] = {}
"""Settler ids as JSON object keys with their colon (`"s1":`), as written once."""


def choice_key(sid: str) -> str:
    """A settler's id as the key of a JSON object, with its colon: `"s1":`."""
    return quoted_between(_KEYS, sid, "", ":")
