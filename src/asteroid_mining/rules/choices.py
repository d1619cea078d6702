"""`Game.choices`: everything a settler could do now, each action legal or refused with its reason, and the
hints a player needs to choose well (R6, R7, R11): what a drill would set off, which exposed cores around
will react and when, and the storms forecast with whether the settler is in their path or sheltered.

The one judge of actions for every layer: the entries are what the one judging loop (`actions.judge`) hands a
sink that makes `Choice` objects, the loop behind `legal_actions` and the JSON text too, so they agree with
`check` and `legal_actions` by construction. The server sends these to its clients; bots and the robots' AI ask
the same functions (`rules.dangers`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from .actions import Action, judge, standing_refusal, turn_refusal
from .actions.base import Choice, ChoiceSink
from .dangers import Reaction, reaction
from .errors import Refusal
from .materials import MATERIALS
from .state import Asteroid, GameState, Robot, Settler, Ufo

__all__ = ["Choice", "Choices", "StormOutlook", "choices", "choices_scope", "reactions_near", "storms_ahead"]

_REACTIVE: Final = frozenset(kind for kind, material in MATERIALS.items() if material.reactive)


@dataclass(frozen=True, slots=True)
class StormOutlook:
    """A forecast storm as it concerns the settler: it hits at the end of `round`, `in_rounds` from now;
    `in_path` when it covers the settler's asteroid, `sheltered` when that asteroid is a shelter (R4, R7)."""

    round: int
    in_rounds: int
    in_path: bool
    sheltered: bool

    def __init__(self, round: int, in_rounds: int, in_path: bool, sheltered: bool) -> None:
        # written out (see `events`): the compiled engine then builds it without interpreted code
        object.__setattr__(self, "round", round)
        object.__setattr__(self, "in_rounds", in_rounds)
        object.__setattr__(self, "in_path", in_path)
        object.__setattr__(self, "sheltered", sheltered)

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
    reactions: dict[str, Reaction]
    """The settler's asteroid and each move destination whose exposed reactive core will react."""
    storms: tuple[StormOutlook, ...]

    def __init__(self, settler: str, round: int, refusal: Refusal | None, choices: tuple[Choice, ...],
                 reactions: dict[str, Reaction], storms: tuple[StormOutlook, ...]) -> None:
        # written out (see `events`): the compiled engine then builds it without interpreted code
        object.__setattr__(self, "settler", settler)
        object.__setattr__(self, "round", round)
        object.__setattr__(self, "refusal", refusal)
        object.__setattr__(self, "choices", choices)
        object.__setattr__(self, "reactions", reactions)
        object.__setattr__(self, "storms", storms)

    def legal(self) -> list[Action]:
        """The accepted actions, in order (the same as `Game.legal_actions`)."""
        return [c.action for c in self.choices if c.refusal is None]

    def to_json(self) -> dict[str, Any]:
        """The choices as JSON: codes and parameters of refusals, which a reader words itself."""
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
                made = refusals[id(r)] = r.to_json()
            entries.append(c.to_json(made))
        return {
            "settler": self.settler,
            "round": self.round,
            "refusal": None if self.refusal is None else self.refusal.to_json(),
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
    reactions, storms = reactions_near(state, here), storms_ahead(state, here)
    if brief and general is not None:
        return Choices(actor_id, state.round, general, (), reactions, storms)
    sink = ChoiceSink()
    judge(state, actor, standing, turn, sink)
    return Choices(actor_id, state.round, general, tuple(sink.out), reactions, storms)


def choices_scope(state: GameState, actor_id: str) -> frozenset[str]:
    """The ids whose change can change `actor_id`'s choices, the round, the turn and the status aside: itself
    and the gates it carries, its asteroid, the neighbours, the gates orbiting there, their partners and the
    partners' asteroids (`choices` reads nothing else; `Game.take_touched` names each when it changes)."""
    actor = state.things.get(actor_id)
    if not isinstance(actor, (Settler, Robot, Ufo)):
        raise KeyError(f"there is no settler, robot or UFO {actor_id} in this game")
    ids = {actor_id}
    if isinstance(actor, Settler):
        ids.update(actor.gates)
    if actor.at is not None:
        here = state.asteroids[actor.at]
        ids.add(here.id)
        ids.update(here.neighbours)
        gates = state.gates
        for gid in here.gates:
            partner = gates[gates[gid].partner]
            ids.add(gid)
            ids.add(partner.id)
            if partner.at is not None:
                ids.add(partner.at)
    return frozenset(ids)


def reactions_near(state: GameState, here: Asteroid | None) -> dict[str, Reaction]:
    """The reactions to come on `here` and on every asteroid one move away (neighbours, active gates)."""
    out: dict[str, Reaction] = {}
    if here is None or (not state.hot and not state.watch):
        # a core that will react is near the Sun (`hot`) or watched until its orbit brings it near: when neither
        # holds any, no neighbour need be looked at (most of a game: a step's choices touch no other asteroid)
        return out
    if here.mantle == 0:
        _add_reaction(state, here, out)
    asteroids = state.asteroids
    for nid in here.neighbours:
        near = asteroids[nid]
        if near.mantle == 0 and near.core in _REACTIVE:
            _add_reaction(state, near, out)
    if here.gates:
        gates = state.gates
        for gid in here.gates:
            gate = gates[gid]
            if state.gate_active(gate):
                dest = gates[gate.partner].at
                if dest is not None and asteroids[dest].mantle == 0:
                    _add_reaction(state, asteroids[dest], out)
    return out


def _add_reaction(state: GameState, asteroid: Asteroid, out: dict[str, Reaction]) -> None:
    """The reaction of `asteroid`'s exposed core into `out`, if it has one and is not there yet."""
    if asteroid.id not in out:
        found = reaction(state, asteroid)
        if found is not None:
            out[asteroid.id] = found


def storms_ahead(state: GameState, here: Asteroid | None) -> tuple[StormOutlook, ...]:
    """The storms forecast, as they concern an actor on `here` (None: nowhere)."""
    if not state.forecasts:
        return ()
    sheltered = here is not None and here.shelter
    return tuple([
        StormOutlook(f.round, f.round - state.round, here is not None and here.id in f.asteroids, sheltered)
        for f in state.forecasts
    ])

