"""Fixed-size observations and a discrete action set for learning agents (numpy only).

Actions (`N_ACTIONS = 11 + slots`):

| index | action |
|---|---|
| 0 | wait |
| 1 | drill |
| 2 | mine |
| 3–6 | deposit ice, iron, carbon, uranium |
| 7 | build robot |
| 8 | build gates |
| 9, 10 | place the first / second gate carried |
| 11 + i | move through exit slot i (a neighbour or an active gate) |

Exit slots: the exits of the settler's asteroid, the most promising first (a storm-free shelter when a storm
is coming, a needed core, unknown cores, teammates), cut at `slots` (a hub has hundreds of neighbours).
Observations hold only what players may know (R17), read through `ai.Observation`; every feature is in [0, 1].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..ai.observation import UNKNOWN, Observation
from ..ai.team import team_needs
from ..rules import KINDS, Action, BuildGates, BuildRobot, Deposit, Drill, Mine, Move, Place, Wait
from ..rules.materials import CARGO_LIMIT, GATE_LIMIT, HOLLOW, WIN_TARGET, is_reactive

DEFAULT_SLOTS = 16
"""Exit slots by default."""
FIXED_ACTIONS = 11
"""Actions before the move slots."""
CORE_CODES = (*KINDS, HOLLOW, UNKNOWN)
"""The core one-hot order."""
ASTEROID_FEATURES = 14 + len(CORE_CODES)
"""Features of one asteroid (the settler's own, or an exit slot's destination)."""
GLOBAL_FEATURES = 5 + 2 * len(KINDS) + 2
"""Features of the game and the settler."""
MAX_MANTLE = 5
"""Mantles are scaled by this (and clipped to 1)."""

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]


def n_actions(slots: int = DEFAULT_SLOTS) -> int:
    """The size of the discrete action space."""
    return FIXED_ACTIONS + slots


def observation_size(slots: int = DEFAULT_SLOTS) -> int:
    """The length of an observation vector."""
    return GLOBAL_FEATURES + ASTEROID_FEATURES * (1 + slots)


@dataclass(frozen=True, slots=True)
class Encoder:
    """Turns a game (seen by one settler) into vectors and masks, and action indices into actions."""

    slots: int = DEFAULT_SLOTS
    max_rounds: int = 300

    @property
    def n_actions(self) -> int:
        """The size of the action space."""
        return n_actions(self.slots)

    @property
    def size(self) -> int:
        """The length of an observation vector."""
        return observation_size(self.slots)

    # ----- exits -----
    def exits(self, obs: Observation, settler: str) -> list[tuple[str, str]]:
        """The settler's exit slots, in slot order: (move target, destination), at most `slots`."""
        at = obs.settler(settler).at
        if at is None:
            return []
        exits = obs.exits(at)
        if len(exits) <= self.slots:
            return exits
        need = team_needs(obs)
        storm_here = obs.storm_round(at) is not None

        def rank(exit_: tuple[str, str]) -> tuple[int, int, str]:
            a = obs.asteroid(exit_[1])
            score = 0
            if a.shelter:
                score += 8 if storm_here else 2
            if a.storm_round is not None and not a.shelter:
                score -= 8
            core = a.core
            if core in need and need[core] > 0:
                score += 6
            elif core == UNKNOWN:
                score += 3
            if a.settlers:
                score += 2
            return (-score, a.index, exit_[0])

        return sorted(exits, key=rank)[: self.slots]

    # ----- actions -----
    def action(self, obs: Observation, settler: str, index: int) -> Action:
        """The action an index stands for (it may be illegal: check the mask, or `obs.check` it)."""
        me = obs.settler(settler)
        if index == 1:
            return Drill(settler)
        if index == 2:
            return Mine(settler)
        if 3 <= index < 3 + len(KINDS):
            return Deposit(settler, KINDS[index - 3])
        if index == 7:
            return BuildRobot(settler)
        if index == 8:
            return BuildGates(settler)
        if index in (9, 10):
            gates = me.gates
            j = index - 9
            return Place(settler, gates[j]) if j < len(gates) else Wait(settler)
        if FIXED_ACTIONS <= index < FIXED_ACTIONS + self.slots:
            exits = self.exits(obs, settler)
            i = index - FIXED_ACTIONS
            return Move(settler, exits[i][0]) if i < len(exits) else Wait(settler)
        return Wait(settler)

    def mask(self, obs: Observation, settler: str) -> Mask:
        """1 for each index whose action the rules accept now, else 0 (all 0 when it is not its step)."""
        out = np.zeros(self.n_actions, dtype=np.int8)
        legal = obs.legal_actions(settler)
        if not legal:
            return out
        me = obs.settler(settler)
        for action in legal:
            if isinstance(action, Wait):
                out[0] = 1
            elif isinstance(action, Drill):
                out[1] = 1
            elif isinstance(action, Mine):
                out[2] = 1
            elif isinstance(action, Deposit):
                out[3 + KINDS.index(action.kind)] = 1
            elif isinstance(action, BuildRobot):
                out[7] = 1
            elif isinstance(action, BuildGates):
                out[8] = 1
            elif isinstance(action, Place):
                out[9 + me.gates.index(action.gate)] = 1
        out[FIXED_ACTIONS: FIXED_ACTIONS + len(self.exits(obs, settler))] = 1
        return out

    # ----- observations -----
    def observe(self, obs: Observation, settler: str) -> Vector:
        """The observation vector of `settler` (zeros but for the game's features when it is dead)."""
        out = np.zeros(self.size, dtype=np.float32)
        me = obs.settler(settler)
        need = team_needs(obs)
        living = obs.living_settlers()
        g = out[:GLOBAL_FEATURES]
        g[0] = min(1.0, obs.round / self.max_rounds)
        g[1] = 1.0 if me.alive else 0.0
        g[2] = len(living) / max(1, len(obs.settler_ids()))
        g[3] = 1.0 if not any(need.values()) else 0.0
        g[4] = len(me.gates) / GATE_LIMIT
        for k, kind in enumerate(KINDS):
            g[5 + k] = need[kind] / WIN_TARGET
            g[5 + len(KINDS) + k] = me.cargo[kind] / CARGO_LIMIT
        g[5 + 2 * len(KINDS)] = me.carry_total / CARGO_LIMIT
        if me.at is None:
            return out
        exits = self.exits(obs, settler)
        g[6 + 2 * len(KINDS)] = min(1.0, len(obs.asteroid(me.at).neighbours) / 100)
        self._asteroid(obs, me.at, False, need, settler, out, GLOBAL_FEATURES)
        for i, (target, dest) in enumerate(exits):
            start = GLOBAL_FEATURES + ASTEROID_FEATURES * (1 + i)
            self._asteroid(obs, dest, target != dest, need, settler, out, start)
        return out

    def _asteroid(self, obs: Observation, aid: str, via_gate: bool, need: dict[str, int], settler: str,
                  out: Vector, start: int) -> None:
        a = obs.asteroid(aid)
        f = out[start: start + ASTEROID_FEATURES]
        r = obs.round
        core = a.core
        f[0] = 1.0
        f[1] = 1.0 if via_gate else 0.0
        f[2] = min(1.0, a.mantle / MAX_MANTLE)
        f[3] = 1.0 if obs.near(aid) else 0.0
        f[4] = 1.0 if obs.near(aid, r + 1) else 0.0
        f[5] = 1.0 if a.shelter else 0.0
        storm = a.storm_round
        f[6] = 1.0 if storm is not None else 0.0
        f[7] = 1.0 / (1 + max(0, storm - r)) if storm is not None else 0.0
        f[8] = min(1.0, sum(1 for s in a.settlers if s != settler) / 3)
        f[9] = min(1.0, len(a.robots) / 3)
        f[10] = min(1.0, len(a.ufos) / 3)
        f[11] = 1.0 if core in need and need[core] > 0 else 0.0
        f[12] = 0.0 if is_reactive(core) and (obs.near(aid) or obs.near(aid, r + 1)) else 1.0
        f[13] = min(1.0, a.degree / 20)
        f[14 + CORE_CODES.index(core)] = 1.0
