"""Fixed-size observations and a discrete action set for learning agents (numpy only).

Actions (`N_ACTIONS = FIXED_ACTIONS + slots`), derived from the engine's action specs (`rules.ACTION_SPECS`, see
`ACTION_LAYOUT`): wait first (what an index with nothing behind it plays), then each other settler action in the
specs' order, as many indices as its fields call for (none or only new ids: one, the ids left to the engine; a
material: one per kind; a gate carried: one per gate a settler may carry), then the move slots. Today:

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
from functools import cache
from itertools import product
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from ..ai.observation import UNKNOWN, Observation
from ..ai.team import team_needs
from ..rules import ACTION_SPECS, ACTION_TYPES, KINDS, Action, ActionSpec, Move, Wait
from ..rules.dangers import exposed_now_reacts
from ..rules.materials import CARGO_LIMIT, GATE_LIMIT, WIN_TARGET
from .hops import HOPS_SCALE, TARGETS, Hops, links_key
from .table import ASTEROID_FEATURES, CORE_CODES, GUIDE_AT, GUIDES, BeltTable, Gathered, belt_columns

__all__ = [
    "ACTION_LAYOUT", "ASTEROID_FEATURES", "ASTEROID_FEATURE_LIST", "CORE_CODES", "DEFAULT_SLOTS", "FIXED_ACTIONS",
    "GLOBAL_FEATURES", "GLOBAL_FEATURE_LIST", "GUIDES", "HOPS_SCALE", "MOVE", "THINGS", "ActionIndices", "Encoder",
    "Feature", "Mask",
    "Vector", "feature_names", "n_actions", "observation_size",
]

DEFAULT_SLOTS = 16
"""Exit slots by default."""
MOVE = Move.name
"""The action whose indices are the exit slots, last."""
THINGS: dict[tuple[str, str], str] = {("place", "gate"): "carried_gates"}
"""The fields naming an existing thing (sort `thing`) that the action space knows how to fill, besides a move's
target: (action, field) -> which things (`carried_gates`: the gates the settler carries, in its order). A new
action with another such field has no indices until it is added here (`ACTION_LAYOUT` raises, naming it)."""


@dataclass(frozen=True, slots=True)
class ActionIndices:
    """The indices of one action: `first` and `count` of them; `field` is the one field they vary (None: the
    action with every field left out) and `over` what it takes (`kinds`, or an entry of `THINGS`)."""

    name: str
    first: int
    count: int
    field: str | None
    over: str | None


def _layout(specs: tuple[ActionSpec, ...]) -> tuple[ActionIndices, ...]:
    """Wait first, then each other settler action in the specs' order; ValueError naming an action whose
    fields the action space cannot fill."""
    out = [ActionIndices(Wait.name, 0, 1, None, None)]
    first = 1
    for spec in specs:
        if "settler" not in spec.actors or spec.name in (Wait.name, MOVE):
            continue
        given = [f for f in spec.fields if f.required]
        if not given:  # no fields, or only optional ones (new ids the engine picks): one index
            out.append(ActionIndices(spec.name, first, 1, None, None))
        elif len(given) == 1 and given[0].sort == "material":
            out.append(ActionIndices(spec.name, first, len(KINDS), given[0].name, "kinds"))
        elif len(given) == 1 and (spec.name, given[0].name) in THINGS:
            out.append(ActionIndices(spec.name, first, GATE_LIMIT, given[0].name, THINGS[spec.name, given[0].name]))
        else:
            raise ValueError(f"rl/encoding.py: the action {spec.name!r} has fields the action space cannot fill "
                             f"({', '.join(f.name for f in given)}): add them to THINGS")
        first += out[-1].count
    return tuple(out)


ACTION_LAYOUT: tuple[ActionIndices, ...] = _layout(ACTION_SPECS)
"""The indices of each action but the moves, in index order, derived from the engine's action specs."""
FIXED_ACTIONS = sum(a.count for a in ACTION_LAYOUT)
"""Actions before the move slots."""
GLOBAL_FEATURES = 5 + 2 * len(KINDS) + 2
"""Features of the game and the settler."""


@dataclass(frozen=True, slots=True)
class Feature:
    """One feature of the observation vector: its name, its range and what it means (docs/ai.md's table)."""

    name: str
    range: str
    meaning: str


GLOBAL_FEATURE_LIST: tuple[Feature, ...] = (
    Feature("round", "[0, 1]", "the round / max_rounds (1 from then on)"),
    Feature("alive", "{0, 1}", "1 if the settler is alive"),
    Feature("team_alive", "[0, 1]", "the share of the team's settlers alive"),
    Feature("all_carried", "{0, 1}", "1 when the living settlers carry everything a base needs"),
    Feature("gates", "[0, 1]", "gates the settler carries / 2"),
    *(Feature(f"need_{k}", "[0, 1]", f"units of {k} the team still needs / 3") for k in KINDS),
    *(Feature(f"cargo_{k}", "[0, 1]", f"units of {k} the settler carries / 10") for k in KINDS),
    Feature("cargo_total", "[0, 1]", "units the settler carries / 10"),
    Feature("degree", "[0, 1]", "neighbours of the settler's asteroid / 100 (at most 1)"),
)
"""The game's and the settler's features, in the vector's order (first)."""
ASTEROID_FEATURE_LIST: tuple[Feature, ...] = (
    Feature("present", "{0, 1}", "1 if the slot holds an asteroid"),
    Feature("via_gate", "{0, 1}", "1 if the way there is through a gate"),
    Feature("mantle", "[0, 1]", "mantle layers / 5 (at most 1)"),
    Feature("near_now", "{0, 1}", "1 if it is near the Sun this round"),
    Feature("near_next", "{0, 1}", "1 if it is near the Sun next round"),
    Feature("shelter", "{0, 1}", "1 if it is a shelter from storms"),
    Feature("storm", "{0, 1}", "1 if a storm is forecast to hit it"),
    Feature("storm_urgency", "[0, 1]", "1 / (1 + rounds until the forecast storm), 0 without one"),
    Feature("teammates", "[0, 1]", "teammates on it / 3 (at most 1; the settler itself not counted)"),
    Feature("robots", "[0, 1]", "robots on it / 3 (at most 1)"),
    Feature("ufos", "[0, 1]", "UFOs on it / 3 (at most 1)"),
    Feature("needed_core", "{0, 1}", "1 if its core is known and of a kind the team still needs"),
    Feature("safe_to_expose", "{0, 1}", "1 if exposing its core now would not react (R6, `rules.dangers`)"),
    Feature("degree", "[0, 1]", "its neighbours / 20 (at most 1)"),
    *(Feature(f"core_{code}", "{0, 1}", f"1 if its core is {code}" + (" (nobody has surveyed it, R17)"
                                                                       if code == UNKNOWN else ""))
      for code in CORE_CODES),
    *(feature
      for guide, target in (
          ("mate", "the nearest other living settler of the team"),
          ("cargo", "the asteroid where the team's living settlers carry the most units together (the first "
                    "such settler's in turn order among equals: where the team meets to build a base, R14)"),
          ("need", "the nearest asteroid whose core is known (bare or surveyed) and of a kind the team still "
                   "needs"),
          ("unknown", "the nearest asteroid nobody has surveyed (R17)"),
          ("shelter", "the nearest shelter (R4)"),
      )
      for feature in (
          Feature(f"{guide}_hops", "[0, 1]", f"moves from it to {target} / {HOPS_SCALE} (1: that many or more, "
                                             "or none in reach)"),
          Feature(f"{guide}_closer", "{0, 1}", f"1 if it is fewer moves from {target.split(' (')[0]} than the "
                                               "settler's asteroid (0 for the settler's asteroid itself)"),
      )),
)
"""The features of one asteroid (the settler's own, then each exit slot's), in the vector's order."""
assert len(GLOBAL_FEATURE_LIST) == GLOBAL_FEATURES and len(ASTEROID_FEATURE_LIST) == ASTEROID_FEATURES
assert [f.name for f in ASTEROID_FEATURE_LIST[GUIDE_AT::2]] == [f"{g}_hops" for g in GUIDES] and len(GUIDES) == TARGETS


def feature_names(slots: int = DEFAULT_SLOTS) -> list[str]:
    """The name of every position of the observation vector: the game's features, then `here.<feature>` for
    the settler's asteroid and `exit<i>.<feature>` for each exit slot."""
    names = [f.name for f in GLOBAL_FEATURE_LIST]
    for prefix in ["here", *(f"exit{i}" for i in range(slots))]:
        names += [f"{prefix}.{f.name}" for f in ASTEROID_FEATURE_LIST]
    return names

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
    def exits(self, obs: Observation, settler: str, need: dict[str, int] | None = None) -> list[tuple[str, str]]:
        """The settler's exit slots, in slot order: (move target, destination), at most `slots`.

        `need`: `ai.team.team_needs(obs)`, when the caller has it already."""
        at = obs.settler(settler).at
        if at is None:
            return []
        exits = obs.exits(at)
        if len(exits) <= self.slots:
            return exits
        if need is None:
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
    def action(self, obs: Observation, settler: str, index: int,
               exits: list[tuple[str, str]] | None = None) -> Action:
        """The action an index stands for (it may be illegal: check the mask, or `obs.check` it).

        `exits` (from `exits`) saves working them out again."""
        if 0 <= index < FIXED_ACTIONS:
            at = _AT_INDEX[index]
            record = ACTION_TYPES[at.name]
            if at.field is None:
                return cast(Action, cast(Any, record)(settler))
            offset = index - at.first
            if at.over == "kinds":
                return cast(Action, cast(Any, record)(settler, KINDS[offset]))
            gates = obs.settler(settler).gates
            return cast(Action, cast(Any, record)(settler, gates[offset])) if offset < len(gates) else Wait(settler)
        if FIXED_ACTIONS <= index < FIXED_ACTIONS + self.slots:
            if exits is None:
                exits = self.exits(obs, settler)
            i = index - FIXED_ACTIONS
            return Move(settler, exits[i][0]) if i < len(exits) else Wait(settler)
        return Wait(settler)

    def index(self, obs: Observation, settler: str, action: Action,
              exits: list[tuple[str, str]] | None = None) -> int:
        """The index that stands for `action` (the inverse of `action`), or -1 when none does (a move through
        an exit beyond the slots, a gate not carried)."""
        kind = type(action)
        fixed = _FIXED_INDEX.get(kind)
        if fixed is not None:
            return fixed
        at = _VARIED.get(kind)
        if at is not None:
            value = getattr(action, at.field or "")
            if at.over == "kinds":
                return at.first + KINDS.index(value)
            gates = obs.settler(settler).gates
            return at.first + gates.index(value) if value in gates else -1
        if isinstance(action, Move):
            if exits is None:
                exits = self.exits(obs, settler)
            for i, (target, _) in enumerate(exits):
                if target == action.target:
                    return FIXED_ACTIONS + i
        return -1

    def mask(self, obs: Observation, settler: str, exits: list[tuple[str, str]] | None = None) -> Mask:
        """1 for each index whose action the rules accept now, else 0 (all 0 when it is not its step).

        `exits` (from `exits`) saves working them out again."""
        out = np.zeros(FIXED_ACTIONS + self.slots, dtype=np.int8)
        out[self.mask_indices(obs, settler, exits)] = 1
        return out

    def mask_indices(self, obs: Observation, settler: str, exits: list[tuple[str, str]] | None = None
                     ) -> list[int]:
        """The indices `mask` sets to 1 (in no particular order; a few may repeat)."""
        legal = obs.legal_actions(settler)
        if not legal:
            return []
        on: list[int] = []
        gates: tuple[str, ...] | None = None
        for action in legal:
            kind = type(action)
            if kind is Move:
                continue  # moves are the exit slots, below
            index = _FIXED_INDEX.get(kind)
            if index is not None:
                on.append(index)
                continue
            at = _VARIED[kind]
            if at.over == "kinds":
                on.append(at.first + KINDS.index(getattr(action, at.field or "")))
            else:
                if gates is None:
                    gates = obs.settler(settler).gates
                on.append(at.first + gates.index(getattr(action, at.field or "")))
        if exits is None:
            exits = self.exits(obs, settler)
        on.extend(range(FIXED_ACTIONS, FIXED_ACTIONS + len(exits)))
        return on

    # ----- observations -----
    def observe(self, obs: Observation, settler: str, table: BeltTable | None = None,
                exits: list[tuple[str, str]] | None = None, need: dict[str, int] | None = None,
                hops: Hops | None = None) -> Vector:
        """The observation vector of `settler` (zeros but for the game's features when it is dead).

        With the game's `table` (kept up to date by the environment) the asteroids' features are gathered from
        its columns; without, they are read from the observation. `exits` and `need` (`ai.team.team_needs`)
        save working them out again; `hops` (the game's `Hops`, synced to its links) saves the distances.
        """
        out = np.zeros(self.size, dtype=np.float32)
        if need is None:
            need = team_needs(obs)
        g, at = self.globals(obs, settler, need)
        out[:GLOBAL_FEATURES] = g
        if at is None:
            return out
        if exits is None:
            exits = self.exits(obs, settler)
        ids = [at, *(dest for _, dest in exits)]
        via = [False, *(target != dest for target, dest in exits)]
        rows = table.gather(ids, obs.round) if table is not None else Gathered.of(obs, ids)
        out[GLOBAL_FEATURES: GLOBAL_FEATURES + ASTEROID_FEATURES * len(ids)] = rows.features.ravel()
        # the filled-in columns of every row at once, through their flat positions (a fraction of the cost of
        # assigning a list of rows to a column selection)
        out[_filled_at(self.slots)[: len(_FILLED) * len(ids)]] = self._filled(obs, ids, via, rows, need, at)
        if hops is None:
            hops = Hops(obs)
            hops.sync(links_key(obs))
        moves = _guidance(obs, settler, rows.index, hops, table, need)
        # each `<target>_hops` and the `<target>_closer` after it in one write: (scaled moves, closer) looked up
        # from the moves and whether they are fewer than from the settler's own asteroid (never on its own row)
        out[_guide_at(self.slots)[: len(ids)]] = _PAIRS[moves, (moves < moves[0]).view(np.uint8)]
        return out

    def globals(self, obs: Observation, settler: str, need: dict[str, int]) -> tuple[list[float], str | None]:
        """The game's and the settler's features (`GLOBAL_FEATURE_LIST`), and the settler's asteroid (None when
        it is dead). `need`: `ai.team.team_needs(obs)`."""
        me = obs.settler(settler)
        cargo = me.cargo
        at = me.at
        g = [
            min(1.0, obs.round / self.max_rounds),
            1.0 if me.alive else 0.0,
            len(obs.living_settlers()) / max(1, len(obs.settler_ids())),
            1.0 if not any(need.values()) else 0.0,
            len(me.gates) / GATE_LIMIT,
        ]
        g += [need[kind] / WIN_TARGET for kind in KINDS]
        g += [cargo[kind] / CARGO_LIMIT for kind in KINDS]
        # the degree of the settler's asteroid last
        g += [me.carry_total / CARGO_LIMIT, 0.0 if at is None else min(1.0, obs.asteroid(at).degree / 100)]
        return g, at

    def _filled(self, obs: Observation, ids: list[str], via: list[bool], rows: Gathered,
                need: dict[str, int], at: str) -> list[float]:
        """The features of the settler's asteroid and its exits' destinations that depend on the round, the
        settler and the team, the columns `_FILLED` of each asteroid in turn: worked out here for these few rows.
        """
        r = obs.round
        storm_round = obs.storm_round
        needed = [1.0 if need.get(code, 0) > 0 else 0.0 for code in CORE_CODES]
        filled: list[float] = []
        for aid, gate, settlers, core, (near_now, near_next) in zip(
            ids, via, rows.settlers, rows.core, rows.near, strict=True
        ):
            storm = storm_round(aid)
            # teammates: everyone on it but the settler itself (it stands on its own asteroid)
            others = settlers - 1 if aid == at else settlers
            filled.extend((
                1.0 if gate else 0.0,
                1.0 if near_now else 0.0,
                1.0 if near_next else 0.0,
                0.0 if storm is None else 1.0,
                0.0 if storm is None else 1.0 / (1 + max(0, storm - r)),
                min(1.0, others / 3),
                needed[core],
                # safe to expose now, as the rules judge a drill (`rules.dangers`); only waits of 0 and 1 matter
                # to it, so a later one is given as 2
                _SAFE_TO_EXPOSE[core][0 if near_now else 1 if near_next else 2],
            ))
        return filled


_FILLED = [1, 3, 4, 6, 7, 8, 11, 12]
"""The columns `Encoder._filled` fills in, in its order."""


@cache
def _filled_at(slots: int) -> npt.NDArray[np.intp]:
    """The positions in the observation vector of the columns `_FILLED` of each asteroid row, row by row."""
    return np.array([GLOBAL_FEATURES + ASTEROID_FEATURES * row + column
                     for row in range(1 + slots) for column in _FILLED], dtype=np.intp)




_SCALED = np.minimum(np.arange(256), HOPS_SCALE).astype(np.float32) / HOPS_SCALE
"""A guidance feature's value for each count of moves (`hops.FAR`, none in reach, gives 1)."""
_WANTS = {wants: np.array(wants, dtype=np.bool_) for wants in product((False, True), repeat=len(CORE_CODES))}
"""Whether each core code is needed, as an array, for each such tuple (made once)."""


_PAIRS = np.stack(np.broadcast_arrays(_SCALED[:, None], np.array([0.0, 1.0], dtype=np.float32)[None, :]),
                  axis=-1)
"""(`<target>_hops`, `<target>_closer`) for each count of moves and each closer-or-not: shape (256, 2, 2)."""


@cache
def _guide_at(slots: int) -> npt.NDArray[np.intp]:
    """The positions in the observation vector of the guidance features of each asteroid row: shape
    (1 + slots, targets, 2), `<target>_hops` then `<target>_closer`."""
    return np.array([[[GLOBAL_FEATURES + ASTEROID_FEATURES * row + GUIDE_AT + 2 * target + j for j in (0, 1)]
                      for target in range(len(GUIDES))] for row in range(1 + slots)], dtype=np.intp)


def _guidance(obs: Observation, settler: str, indices: list[int], hops: Hops, table: BeltTable | None,
              need: dict[str, int]) -> npt.NDArray[np.uint8]:
    """The moves from the asteroids of creation `indices` (the settler's own first) to each target of the
    guidance features (`GUIDES`), one row each: `observe` scales them and compares them with the first row.

    Table-driven: each target is a set of asteroids (the other settlers', the one where the team carries the
    most, the needed known cores, the unsurveyed asteroids, the shelters), read from the settlers and the belt's
    columns (`BeltTable.codes`, `BeltTable.shelters`); the moves to the nearest one of each are one gather from
    the distance matrix (`Hops.guide`), the last three kept as columns while the needs and the columns stay."""
    if table is not None:
        codes, shelters, version = table.codes, table.shelters, table.version
        others, cargo = targets(obs, settler, table.row)
    else:
        codes, shelters = belt_columns(obs)
        version = hash((codes.tobytes(), shelters.tobytes()))
        others, cargo = targets(obs, settler, None)
    wants = tuple(need.get(code, 0) > 0 for code in CORE_CODES)
    return hops.guide(indices, others, cargo, (wants, version), _WANTS[wants], codes, shelters)


def targets(obs: Observation, settler: str, row_of: dict[str, int] | None) -> tuple[list[int], int | None]:
    """The guidance features' first two targets: the asteroids of the other living settlers, and the one where
    the living settlers carry the most units (None when none is alive), as rows of the table (`row_of`,
    `BeltTable.row`) or, without, creation indices."""
    living = [s for s in obs.living_settlers() if s.at is not None]
    if row_of is not None:
        where = [row_of[s.at] for s in living if s.at is not None]
    else:
        where = [obs.asteroid(s.at).index for s in living if s.at is not None]
    others: list[int] = []
    loads: dict[int, int] = {}
    for s, i in zip(living, where, strict=True):
        if s.id != settler:
            others.append(i)
        loads[i] = loads.get(i, 0) + s.carry_total
    # the most units; among equals the first settler's in turn order (dicts keep the order of insertion)
    cargo = max(loads, key=loads.__getitem__) if loads else None
    return others, cargo


_FIXED_INDEX: dict[type, int] = {ACTION_TYPES[a.name]: a.first for a in ACTION_LAYOUT if a.field is None}
"""The mask index of each action that has one index (the engine's action classes are final)."""
_VARIED: dict[type, ActionIndices] = {ACTION_TYPES[a.name]: a for a in ACTION_LAYOUT if a.field is not None}
"""The indices of each action that has several, by its class."""
_AT_INDEX: tuple[ActionIndices, ...] = tuple(a for a in ACTION_LAYOUT for _ in range(a.count))
"""Which action each index below `FIXED_ACTIONS` stands for."""
_SAFE_TO_EXPOSE = [[0.0 if exposed_now_reacts(code, wait) else 1.0 for wait in (0, 1, 2)] for code in CORE_CODES]
"""The safe-to-expose feature of each core code (`CORE_CODES`) and wait (0, 1, later), as `rules.dangers` says."""
