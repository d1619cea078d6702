"""`greedy`: a one-step heuristic. It looks at where it stands and at its neighbours, never further.

It mines what the team still needs, drills cores it wants unless the last layer would expose a reactive core
near the Sun this very round (it does not look at the orbit ahead), runs to a neighbouring shelter when a storm
is forecast for its asteroid, and otherwise wanders towards unknown or wanted neighbours. It builds nothing.
"""

from __future__ import annotations

import random

from ..rules import Action, Drill, Mine, Move, Wait
from ..rules.materials import CARGO_LIMIT, is_reactive
from .observation import UNKNOWN, Observation
from .team import team_needs


class GreedyBot:
    """A one-step heuristic player (a baseline well below the planner)."""

    name = "greedy"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)

    def choose(self, obs: Observation, settler: str) -> Action:
        """Mine, drill or move by looking one step around."""
        me = obs.settler(settler)
        if not me.alive or me.at is None or obs.status != "running":
            return Wait(settler)
        here = obs.asteroid(me.at)
        need = team_needs(obs)
        exits = obs.exits(here.id)
        if here.storm_round is not None and not here.shelter:
            for target, dest in exits:
                if obs.asteroid(dest).shelter:
                    return Move(settler, target)
        core = here.core
        wanted = core in need and need[core] > 0
        if here.mantle == 0 and core in need and me.carry_total < CARGO_LIMIT and (wanted or is_reactive(core)):
            return Mine(settler)
        if here.mantle > 0 and wanted and (here.mantle > 1 or not is_reactive(core) or not here.near):
            return Drill(settler)
        if not exits:
            return Wait(settler)
        if not any(need.values()):
            # everything is carried: go where another settler is
            for target, dest in exits:
                if obs.asteroid(dest).settlers:
                    return Move(settler, target)
        best: list[str] = []
        for target, dest in exits:
            d = obs.asteroid(dest)
            if d.storm_round is not None and not d.shelter:
                continue
            c = d.core
            if (c in need and need[c] > 0) or c == UNKNOWN:
                best.append(target)
        choices = best or [t for t, _ in exits]
        return Move(settler, self._rng.choice(choices))
