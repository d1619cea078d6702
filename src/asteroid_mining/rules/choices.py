"""`Game.choices`: everything a settler could do now, each action legal or refused with its reason, and the
hints a player needs to choose well (R6, R7, R11): what a drill would set off, which exposed cores around
will react and when, and the storms forecast with whether the settler is in their path or sheltered.

The one judge of actions for every layer: the server sends these to its clients, bots and the robots' AI ask
the same functions (`rules.dangers`), and the entries agree with `check` and `legal_actions` by construction.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from .actions import RULES, Action, cannot_do, standing_refusal, turn_refusal
from .dangers import Danger, Reaction, reaction
from .errors import Refusal
from .materials import MATERIALS
from .state import Asteroid, GameState, Robot, Settler, Ufo

_REACTIVE = frozenset(kind for kind, material in MATERIALS.items() if material.reactive)


class Choice(NamedTuple):
    """One action the settler could take now: `refusal` is None when the rules accept it."""

    action: Action
    refusal: Refusal | None
    danger: Danger | None = None

    def to_json(self, refusal: dict[str, Any] | None = None, messages: bool = True) -> dict[str, Any]:
        """`{"action": name, …its arguments, "refusal": …}`, and `"danger"` when there is one. `refusal`: the
        refusal's JSON when the caller has it already; `messages`: whether a refusal has its English sentence."""
        action = self.action
        if refusal is None and self.refusal is not None:
            refusal = self.refusal.to_json(messages)
        out: dict[str, Any] = {"action": action.name, **action.args(), "refusal": refusal}
        if self.danger is not None:
            out["danger"] = self.danger.to_json()
        return out


@dataclass(frozen=True, slots=True)
class StormOutlook:
    """A forecast storm as it concerns the settler: it hits at the end of `round`, `in_rounds` from now;
    `in_path` when it covers the settler's asteroid, `sheltered` when that asteroid is a shelter (R4, R7)."""

    round: int
    in_rounds: int
    in_path: bool
    sheltered: bool

    def to_json(self) -> dict[str, Any]:
        """The outlook as a JSON object."""
        return {"round": self.round, "in_rounds": self.in_rounds, "in_path": self.in_path,
                "sheltered": self.sheltered}


@dataclass(frozen=True, slots=True)
class Choices:
    """What `settler` could do in `round`, with the reactions around it and the storms ahead."""

    settler: str
    round: int
    refusal: Refusal | None
    """Why the actor cannot act now at all (not its turn, dead, the game over): every entry is refused with it.
    None when it may act."""
    choices: tuple[Choice, ...]
    """Every entry; none in the brief form of an actor that cannot act now."""
    reactions: Mapping[str, Reaction]
    """The settler's asteroid and each move destination whose exposed reactive core will react."""
    storms: tuple[StormOutlook, ...]

    def legal(self) -> list[Action]:
        """The accepted actions, in order (the same as `Game.legal_actions`)."""
        return [c.action for c in self.choices if c.refusal is None]

    def to_json(self, messages: bool = True) -> dict[str, Any]:
        """The choices as JSON; each refusal with its English sentence (`message`) unless not `messages` (the
        server's protocol: its clients word refusals themselves, from the code and params)."""
        # A settler that cannot act has every entry refused by one refusal object: its JSON is made once (the
        # server writes several settlers' choices after every action, and that was half their cost).
        refusals: dict[int, dict[str, Any]] = {}
        entries = []
        for c in self.choices:
            r = c.refusal
            if r is None:
                entries.append(c.to_json())
                continue
            made = refusals.get(id(r))
            if made is None:
                made = refusals[id(r)] = r.to_json(messages)
            entries.append(c.to_json(made))
        return {
            "settler": self.settler,
            "round": self.round,
            "refusal": None if self.refusal is None else self.refusal.to_json(messages),
            "choices": entries,
            "reactions": {aid: r.to_json() for aid, r in self.reactions.items()},
            "storms": [s.to_json() for s in self.storms],
        }


def choices(state: GameState, actor_id: str, brief: bool = False) -> Choices:
    """Every action `actor_id` could take now, legal or refused, in a stable order, with the hints.

    An actor that cannot act now (not its turn, dead, the game over) gets that reason as `refusal` and every
    entry, each refused with it; `brief` leaves those entries out (for a client that offers actions only to the
    actor whose step it is: the entries of the others say nothing `refusal` does not). Raises KeyError when
    `actor_id` is not a settler, robot or UFO of this game. O(degree).
    """
    actor = state.things.get(actor_id)
    if not isinstance(actor, (Settler, Robot, Ufo)):
        raise KeyError(f"there is no settler, robot or UFO {actor_id} in this game")
    here = state.asteroids[actor.at] if actor.at is not None else None
    standing = standing_refusal(state, actor_id)
    turn = turn_refusal(state, actor) if standing is None else None
    general = standing or turn
    reactions, storms = _reactions(state, here), _storms(state, here)
    if brief and general is not None:
        return Choices(actor_id, state.round, general, (), reactions, storms)
    entries: list[Choice] = []
    for rule in RULES:
        refusal = standing or (cannot_do(actor, rule) if actor.kind not in rule.actors else turn)
        danger = rule.danger(state, actor, here)
        if refusal is not None or here is None:
            entries.extend(Choice(a, refusal, danger) for a in rule.candidates(state, actor, here))
        elif danger is None:
            entries.extend(Choice(a, r) for a, r in rule.offers(state, actor, here))
        else:
            entries.extend(Choice(a, r, danger) for a, r in rule.offers(state, actor, here))
    return Choices(actor_id, state.round, general, tuple(entries), reactions, storms)


def _reactions(state: GameState, here: Asteroid | None) -> dict[str, Reaction]:
    """The reactions to come on `here` and on every asteroid one move away (neighbours, active gates)."""
    out: dict[str, Reaction] = {}
    if here is None:
        return out
    asteroids = state.asteroids
    places = [here]
    places.extend(a for a in map(asteroids.__getitem__, here.neighbours) if a.mantle == 0 and a.core in _REACTIVE)
    for gid in here.gates:
        gate = state.gates[gid]
        if state.gate_active(gate):
            dest = state.gates[gate.partner].at
            if dest is not None:
                places.append(asteroids[dest])
    for asteroid in places:
        if asteroid.mantle == 0 and asteroid.id not in out:
            found = reaction(state, asteroid)
            if found is not None:
                out[asteroid.id] = found
    return out


def _storms(state: GameState, here: Asteroid | None) -> tuple[StormOutlook, ...]:
    sheltered = here is not None and here.shelter
    return tuple(
        StormOutlook(f.round, f.round - state.round, here is not None and here.id in f.asteroids, sheltered)
        for f in state.forecasts
    )

