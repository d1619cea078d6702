"""`ChoiceTracker`: the choices (`Game.choices`) of the settlers that connections may move, kept as last sent,
and after each command the ones that changed.

The `state` message carries the choices of the connection's settlers, and every `update` those that changed.
Computing a settler's choices costs about as much as the rest of an update, so the tracker computes them only for
settlers some connected seat plays (a game of bots or spectators computes none), and only when they can have
changed: when the round or the game's status moved on, when the turn came to the settler or left it, or when the
command touched (`Game.take_touched`, through the `ViewTracker`) the settler, its asteroid, a neighbour, a gate
orbiting there or that gate's partner and its asteroid — everything a settler's choices are made of.

A settler that cannot act now (not its turn, dead, the game over) is sent its brief choices
(`Game.choices(settler, brief=True)`): why it cannot act, the round, the reactions and storms, and no entries —
each would only repeat that refusal, and a client offers actions only to the settler whose step it is. In strict
turns that is every settler but one, and at each step their refusal changes (`not_your_turn` names whose turn it
now is): for a settler whose neighbourhood nothing touched, the tracker asks the engine for that refusal alone
(`Game.actor_refusal`) and writes it in place of the old one.

Choices are kept, compared and handed out as JSON text (encoded once, by orjson): a server keeps those of every
connected settler between actions, and as text they are a few strings rather than thousands of small dicts for
the cyclic garbage collector to walk. The text of brief choices is kept in two pieces around their refusal, so
that a new refusal is written in place by one `str.join`, exactly as
`orjson.dumps(choices.to_json(messages=False))` would write the whole.

Refusals are sent as their `code` and `params`, without the English sentence (`message`): clients word them
from those (the browser in every language it speaks), and rendering a sentence for each refused entry of every
settler's choices after every action was a seventh of what the choices cost the server.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import orjson

from ..rules import Choices, Game, Refusal


@dataclass(slots=True)
class _Sent:
    """A settler's choices as last sent, and what they were made of."""

    settler: str
    text: str
    """`choices.to_json(messages=False)` as JSON text."""
    near: frozenset[str]
    """The ids whose change can change these choices."""
    general: Refusal | None
    """Why the settler cannot act now (`choices.refusal`): its choices are brief, without entries."""
    pieces: list[str] | None
    """With `general`: the text before and after it, so that `text` is `general`'s JSON text joining them
    (another refusal in its place is one `str.join`)."""


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
            if sent is None or not touched.isdisjoint(sent.near):
                fresh = self._compute(sid)
            elif everything or sid in (turn, before):  # its neighbourhood is as it was: so is what it is made of
                fresh = self._compute(sid, sent.near)
            elif turn_moved and sent.general is not None:
                fresh = self._patched(sent)
            else:
                continue
            self._sent[sid] = fresh
            if sent is None or fresh.text != sent.text:
                changed[sid] = fresh.text
        return changed

    def _compute(self, sid: str, near: frozenset[str] | None = None) -> _Sent:
        """`sid`'s choices now; `near`: the ids they are made of, when nothing among them has changed since they
        were last taken (a change to any of them touches one of them: the settler, its asteroid, a gate)."""
        choices = self._game.choices(sid, brief=True)
        general = choices.refusal
        if near is None:
            near = self._near(sid)
        if general is None:
            return _Sent(sid, _encode(choices), near, None, None)
        pieces = _pieces(choices)
        return _Sent(sid, _refusal_text(general).join(pieces), near, general, pieces)

    def _patched(self, sent: _Sent) -> _Sent:
        """`sent` (the brief choices of a settler that cannot act) with why it cannot act asked again."""
        assert sent.pieces is not None
        sid = sent.settler
        refusal = self._game.actor_refusal(sid)
        if refusal is None:  # it may act after all: the whole choices are needed
            return self._compute(sid)
        if refusal == sent.general:
            return sent
        return _Sent(sid, _refusal_text(refusal).join(sent.pieces), sent.near, refusal, sent.pieces)

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


# A refusal's JSON text, by refusal: the brief choices of settlers that cannot act are written at every step of
# every game, and their refusals are few (`not_your_turn` of s1 … s4, `dead`, `game_over`). Cleared when it grows
# past `_CACHE_LIMIT` entries.
_CACHE_LIMIT = 10_000
_refusals: dict[Refusal, str] = {}


def _refusal_text(refusal: Refusal) -> str:
    text = _refusals.get(refusal)
    if text is None:
        if len(_refusals) >= _CACHE_LIMIT:
            _refusals.clear()
        text = _refusals[refusal] = orjson.dumps(refusal.to_json(message=False)).decode()
    return text


def _encode(choices: Choices) -> str:
    """`choices` (with entries) as JSON text, as the protocol has them (refusals without their sentence)."""
    return orjson.dumps(choices.to_json(messages=False)).decode()


def _pieces(choices: Choices) -> list[str]:
    """The JSON text of brief choices (no entries) cut at their refusal, which joins them: exactly what
    `_encode` writes."""
    assert not choices.choices
    reactions = orjson.dumps({aid: r.to_json() for aid, r in choices.reactions.items()}).decode()
    storms = orjson.dumps([s.to_json() for s in choices.storms]).decode()
    return [f'{{"settler":{orjson.dumps(choices.settler).decode()},"round":{choices.round},"refusal":',
            f',"choices":[],"reactions":{reactions},"storms":{storms}}}']


def choices_json(texts: Mapping[str, str]) -> str:
    """A JSON object of choices by settler, from each settler's choices as JSON text."""
    return "{" + ",".join(f"{orjson.dumps(sid).decode()}:{text}" for sid, text in texts.items()) + "}"
