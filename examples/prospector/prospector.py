"""`prospector`: a small example bot for Asteroid Mining (docs/bots.md).

It plays any number of settlers and needs nothing but the `asteroid_mining` package:

- a storm is forecast for its asteroid and it is no shelter: it moves to a neighbouring shelter if there is one;
- it mines an exposed core the team still needs;
- it drills a core the team needs (or one nobody has surveyed), but never the last layer over ice or uranium
  while the asteroid is near the Sun, or will be next round (R6: the core would sublimate or explode);
- once the team carries 3 of every kind it walks to the settler who carries the most, so that they meet;
- otherwise it moves to the neighbour that looks most useful, and tries the others in turn.

Run it without installing anything:

    asteroid-mining simulate --bot examples/prospector/prospector.py:Prospector --games 20

or install this folder (`pip install ./examples/prospector`): its `pyproject.toml` registers it under the
entry-point group `asteroid_mining.bots`, and then `--bot prospector` works too, and the server offers it for bot
seats and in the lobby.
"""

from __future__ import annotations

import random

from asteroid_mining.ai import AsteroidView, Observation
from asteroid_mining.rules import Action, Drill, Mine, Move, Wait

WIN = 3
"""Units of each kind a win needs."""
KINDS = ("ice", "iron", "carbon", "uranium")
REACTIVE = ("ice", "uranium")


class Prospector:
    """A SettlerBot: a `name`, and `choose(obs, settler) -> Action`."""

    name = "prospector"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, obs: Observation, settler: str) -> Action:
        """The action `settler` takes now; always one the rules accept (it checks, and waits otherwise)."""
        action = self._wanted(obs, settler)
        return action if obs.check(action) is None else Wait(settler)

    def _wanted(self, obs: Observation, settler: str) -> Action:
        me = obs.settler(settler)
        if not me.alive or me.at is None:
            return Wait(settler)
        here = obs.asteroid(me.at)
        needs = self._needs(obs)
        exits = list(obs.exits(here.id))
        if here.storm_round is not None and not here.shelter:
            for target, destination in exits:
                if obs.asteroid(destination).shelter:
                    return Move(settler, target)
        if here.mantle == 0 and needs.get(here.core, 0) > 0 and obs.check(Mine(settler)) is None:
            return Mine(settler)
        if here.mantle > 0 and (needs.get(here.core, 0) > 0 or here.core == "unknown") and self._safe_drill(obs, here):
            return Drill(settler)
        if not any(needs.values()):
            return self._gather(obs, settler, exits)
        return self._explore(obs, exits, needs, settler)

    @staticmethod
    def _needs(obs: Observation) -> dict[str, int]:
        """Units of each kind the living settlers still lack between them."""
        carried = dict.fromkeys(KINDS, 0)
        for sid in obs.settler_ids():
            s = obs.settler(sid)
            if s.alive:
                for kind in KINDS:
                    carried[kind] += s.cargo[kind]
        return {kind: max(0, WIN - carried[kind]) for kind in KINDS}

    @staticmethod
    def _safe_drill(obs: Observation, here: AsteroidView) -> bool:
        """Not the last layer over a core that may be reactive while the asteroid is (or next round is) near."""
        if here.mantle > 1 or here.core not in (*REACTIVE, "unknown"):
            return True
        return not here.near and not here.near_in(obs.round + 1)

    def _gather(self, obs: Observation, settler: str, exits: list[tuple[str, str]]) -> Action:
        """Walk towards the settler who carries the most (it waits: the others come to it)."""
        living = [sid for sid in obs.settler_ids() if obs.settler(sid).alive]
        leader = max(living, key=lambda sid: (obs.settler(sid).carry_total, sid))
        goal = obs.settler(leader).at
        here = obs.settler(settler).at
        if leader == settler or goal is None or here is None or goal == here:
            return Wait(settler)
        step = _first_step(obs, here, goal)
        return Move(settler, step) if step else Wait(settler)

    def _explore(self, obs: Observation, exits: list[tuple[str, str]], needs: dict[str, int], settler: str) -> Action:
        if not exits:
            return Wait(settler)

        def score(exit_: tuple[str, str]) -> float:
            a = obs.asteroid(exit_[1])
            value = 3.0 if needs.get(a.core, 0) > 0 else 1.0 if a.core == "unknown" else 0.0
            if a.storm_round is not None and not a.shelter:
                value -= 5.0
            return value + self.rng.random()  # a random tie-break, so that it does not walk in circles

        return Move(settler, max(exits, key=score)[0])


def _first_step(obs: Observation, start: str, goal: str) -> str | None:
    """The move target of the first step of a shortest way from `start` to `goal` (breadth-first)."""
    first: dict[str, str] = {}
    frontier = [start]
    seen = {start}
    while frontier:
        nxt = []
        for node in frontier:
            for target, destination in obs.exits(node):
                if destination in seen:
                    continue
                seen.add(destination)
                first[destination] = first.get(node, target)
                if destination == goal:
                    return first[destination]
                nxt.append(destination)
        frontier = nxt
    return None
