"""`ChoiceTracker`: the choices (`Game.choices`) of the settlers that connections may move, kept as last sent,
and after each command the ones that changed.

The `state` message carries the choices of the connection's settlers, and every `update` those that changed.
Computing a settler's choices costs about as much as the rest of an update, so the tracker computes them only for
settlers some connected seat plays (a game of bots or spectators computes none), and only when they can have
changed: when the round or the game's status moved on, when the turn came to the settler or left it, or when the
command touched (`Game.take_touched`, through the `ViewTracker`) the settler, its asteroid, a neighbour, a gate
orbiting there or that gate's partner and its asteroid — everything a settler's choices are made of.

Strict turns change one thing for every other settler at each step: their entries are all refused with
`not_your_turn`, whose params name the settler whose turn it now is. For a settler whose neighbourhood nothing
touched, the tracker asks the engine for that refusal alone (`Game.check` of one of its actions) and puts it in
place of the old one, rather than computing all the choices again.

Choices are kept, compared and handed out as JSON text (encoded once, by orjson): a server keeps those of every
connected settler between actions, and as text they are a few strings rather than thousands of small dicts for
the cyclic garbage collector to walk.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

import orjson

from ..rules import Choice, Choices, Game, Refusal


@dataclass(slots=True)
class _Sent:
    """A settler's choices as last sent, and what they were made of."""

    choices: Choices
    text: str
    """`choices.to_json()` as JSON text."""
    near: frozenset[str]
    """The ids whose change can change these choices."""
    general: Refusal | None
    """The refusal every entry has, when they all have the very same one (the settler cannot act now)."""


class ChoiceTracker:
    """The choices of the watched settlers (those some connected seat plays), as last sent."""

    def __init__(self, game: Game) -> None:
        self._watched: Counter[str] = Counter()
        self.reset(game)

    def reset(self, game: Game) -> None:
        """Follow `game` from now on (after a reload); the watched settlers stay watched."""
        self._game = game
        self._sent: dict[str, _Sent] = {}
        self._turn, self._round, self._status = game.turn, game.round, game.status

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

    def current(self, settlers: Iterable[str]) -> dict[str, str]:
        """The choices of `settlers` now, as JSON text by settler (for a `state` message)."""
        out = {}
        for sid in settlers:
            sent = self._sent.get(sid)
            if sent is None:
                sent = self._sent[sid] = self._compute(sid)
            out[sid] = sent.text
        return out

    def update(self, touched: set[str]) -> dict[str, str]:
        """After a command that touched `touched`: the choices of the watched settlers that changed, as JSON text
        by settler (and remember them as sent)."""
        game = self._game
        turn, round_no, status = game.turn, game.round, game.status
        everything = round_no != self._round or status != self._status
        turn_moved = turn != self._turn
        before = self._turn
        self._turn, self._round, self._status = turn, round_no, status
        changed: dict[str, str] = {}
        for sid in self._watched:
            sent = self._sent.get(sid)
            if sent is None or everything or sid in (turn, before) or not touched.isdisjoint(sent.near):
                fresh = self._compute(sid)
            elif turn_moved and sent.general is not None:
                fresh = self._patched(sent)
            else:
                continue
            self._sent[sid] = fresh
            if sent is None or fresh.text != sent.text:
                changed[sid] = fresh.text
        return changed

    def _compute(self, sid: str) -> _Sent:
        game = self._game
        choices = game.choices(sid)
        return _Sent(choices, _text(choices), self._near(sid), _common_refusal(choices))

    def _patched(self, sent: _Sent) -> _Sent:
        """`sent` with the refusal all its entries share asked of the engine again."""
        if not sent.choices.choices:
            return sent
        refusal = self._game.check(sent.choices.choices[0].action)
        if refusal is None:  # it may act after all: nothing to patch, the whole choices are needed
            return self._compute(sent.choices.settler)
        if refusal == sent.general:
            return sent
        entries = tuple(Choice(c.action, refusal, c.danger) for c in sent.choices.choices)
        choices = replace(sent.choices, choices=entries)
        return _Sent(choices, _text(choices), sent.near, refusal)

    def _near(self, sid: str) -> frozenset[str]:
        """The ids whose change can change `sid`'s choices: itself and its gates, its asteroid, the neighbours,
        the gates orbiting there, their partners and the partners' asteroids."""
        game = self._game
        settler = game.settlers[sid]
        ids = {sid, *settler.gates}
        if settler.at is not None:
            here = game.asteroids[settler.at]
            ids.add(here.id)
            ids.update(here.neighbours)
            gates = game.gates
            for gid in here.gates:
                partner = gates[gates[gid].partner]
                ids.update((gid, partner.id))
                if partner.at is not None:
                    ids.add(partner.at)
        return frozenset(ids)


def _common_refusal(choices: Choices) -> Refusal | None:
    """The refusal every entry has, when there are entries and they all have the very same one (the engine
    refuses every entry of a settler that cannot act with one refusal); else None."""
    entries = choices.choices
    first = entries[0].refusal if entries else None
    if first is None or any(entry.refusal is not first for entry in entries):
        return None
    return first


def _text(choices: Choices) -> str:
    return orjson.dumps(choices.to_json()).decode()


def choices_json(texts: Mapping[str, str]) -> str:
    """A JSON object of choices by settler, from each settler's choices as JSON text."""
    return "{" + ",".join(f"{orjson.dumps(sid).decode()}:{text}" for sid, text in texts.items()) + "}"
