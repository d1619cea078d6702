"""`planner`: a cooperative team player.

Each decision, in order of urgency:

1. **Hazards.** Standing on exposed uranium that the orbit brings near next round: mine it, or leave.
2. **Storms.** A storm is forecast for its asteroid (R7): reach, within the rounds left, a shelter, a hollow
   asteroid it can drill open in time, an asteroid outside the storm's path, or one it can drill through and
   mine out in time (mined out, it is hollow: a shelter) — a time-aware search.
3. **Gathering.** Once the living settlers carry 3 of every kind between them, the smallest group that holds
   it meets at one asteroid (the *base*: the one nearest to all of them, a shelter if it can) and wins (R14).
   When a settler it does not control (a human) is in that group, its settlers go to where that one stands.
4. **Collecting.** Otherwise it goes for the unit the team still needs that it can have soonest: distance,
   mantle, and for ice and uranium the wait for an orbit window in which the last layer may go (far from the
   Sun in that round and the next, so the unit is mined before the orbit brings it near, R6); or it surveys
   the nearest unknown asteroid. Units other settlers are getting are not chased twice.

With spare units (beyond what the win needs) and the needed units far from home, it builds a gate pair and
places one gate at home and the other at the far site, so the way back is one move (`_gates`).

It never drills the last layer of a reactive core unless the asteroid stays far until the unit is mined,
never deposits, and steps onto no asteroid that a forecast storm will hit while it is there.

It may control only some settlers of the team: needs and positions are read from the observation at every call;
the one memory kept across calls is, per game, what each settler it controls is heading for (a *claim*, so that
two of them do not chase the same unit) and the base of the gathering, both re-checked against the game at
every use.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..rules import Action, BuildGates, BuildRobot, Drill, Mine, Move, Place, Wait
from ..rules.materials import CARGO_LIMIT, GATES_COST, HOLLOW, MATERIALS, ROBOT_COST, is_reactive
from .observation import UNKNOWN, AsteroidView, Observation, SettlerView
from .search import Reach, search
from .sun import far_through, first_safe_round, safe_to_expose
from .team import Claim, covering_group, team_needs

try:
    from mypy_extensions import mypyc_attr
except ImportError:  # the pure modules run without the development tools
    from ._native import mypyc_attr

SURVEY_COST = 3
"""Extra rounds an unknown asteroid is reckoned to cost over a known unit at the same distance."""
MAX_DEPTH = 14
"""How many moves ahead the planner looks."""
MAX_NODES = 600
"""How many asteroids one search visits at most (bounds a decision on the largest belts)."""
HOME_PULL = 0.5
"""Rounds of cost per move between a unit and the team's home (keeps the team together for the end)."""
RESCUE_BONUS = 12
"""Rounds of cost a gate pair saved from an explosion is worth."""
GATE_STEPS = 3
"""Steps a gate pair costs: build, place at home, place at the far site."""
GATE_SAVING = 4
"""Moves a gate pair must save at the least: the far site's distance from home, less the one move through the
gate back, less `GATE_STEPS`."""
MEMORY_GAMES = 8
"""Games remembered at once (a bot may serve several games)."""
EXPLOSIVE = frozenset(kind for kind, m in MATERIALS.items() if m.reactive and not m.sublimates)
"""Cores that explode when they react (R6): the others sublimate, or do not react at all."""


@dataclass(slots=True)
class _Memory:
    """What the planner remembers about one game: its claims and the base of the gathering."""

    obs: Observation
    controlled: dict[str, int] = field(default_factory=dict)
    """Settlers this bot has chosen for → the last round it did (a settler handed to a human drops out)."""
    claims: dict[str, Claim] = field(default_factory=dict)
    home: str | None = None
    """The team's home: settlers keep near it while collecting (chosen once, re-chosen if it is lost)."""
    home_reach: tuple[int, Reach] | None = None
    """(round, search from home) for the current round."""
    base: str | None = None
    """Where the group holding everything meets."""
    group: tuple[str, ...] = ()


# a bot of one's own may build on the planner by deriving from it (compiled, a class must say so)
@mypyc_attr(allow_interpreted_subclasses=True)
class PlannerBot:
    """The cooperative team player (see the module's documentation)."""

    name = "planner"

    def __init__(self, seed: int = 0, build_robots: bool = True, build_gates: bool = True) -> None:
        self.seed = seed
        self.build_robots = build_robots
        self.build_gates = build_gates
        self._games: dict[int, _Memory] = {}

    def choose(self, obs: Observation, settler: str) -> Action:
        """The action `settler` takes now."""
        me = obs.settler(settler)
        if obs.status != "running" or not me.alive or me.at is None:
            return Wait(settler)
        memory = self._memory(obs)
        memory.controlled[settler] = obs.round
        action = _Decision(obs, me, memory, self.build_robots, self.build_gates).decide()
        if obs.check(action) is not None:  # a plan out of step with the game: never send an illegal action
            return Wait(settler)
        return action

    def _memory(self, obs: Observation) -> _Memory:
        key = obs.key[0]
        memory = self._games.get(key)
        if memory is None or not memory.obs.same_game(obs):
            if len(self._games) >= MEMORY_GAMES:
                del self._games[next(iter(self._games))]
            memory = self._games[key] = _Memory(obs)
        return memory


class _Decision:
    """One decision for one settler."""

    def __init__(self, obs: Observation, me: SettlerView, memory: _Memory, build_robots: bool,
                 build_gates: bool = True) -> None:
        self.obs = obs
        self.me = me
        self.sid = me.id
        self.memory = memory
        self.build_robots = build_robots
        self.build_gates = build_gates
        self.round = obs.round
        assert me.at is not None
        self.here = obs.asteroid(me.at)
        self.need = team_needs(obs)
        self._own_reach: Reach | None = None

    # ----- the order of urgency -----
    def decide(self) -> Action:
        for step in (self._hazard, self._storm, self._gather, self._collect, self._join):
            action = step()
            if action is not None:
                return action
        return Wait(self.sid)

    def _hazard(self) -> Action | None:
        """Exposed uranium under our feet that will count an exposure at the next round start."""
        here = self.here
        if here.mantle > 0 or here.core not in MATERIALS or not MATERIALS[here.core].radioactive:
            return None
        if self.obs.reacts_at(here.id) != self.round:
            return None  # it does not explode at this round's end
        if self.me.carry_total < CARGO_LIMIT:
            return Mine(self.sid)
        for target, dest in self.obs.exits(here.id):
            if self._passable(dest, 1):
                return Move(self.sid, target)
        return None

    def _storm(self) -> Action | None:
        """Run for safety when a forecast storm will hit this asteroid."""
        here = self.here
        storm = here.storm_round
        if storm is None or here.shelter:
            return None
        budget = storm - self.round + 1  # steps left, this one included
        r0 = self.round

        def passable(aid: str, d: int) -> bool:
            s = self.obs.storm_round(aid)
            return s is None or s != r0 + d - 1 or self.obs.asteroid(aid).shelter

        reach = search(self.obs, here.id, max_depth=budget, max_nodes=MAX_NODES, passable=passable)
        best: tuple[int, int, str] | None = None
        for aid in reach.order:
            d = reach.dist[aid]
            a = self.obs.asteroid(aid)
            s = a.storm_round
            if a.shelter:
                cost, kind = d, 0
            elif a.core == HOLLOW and d + a.mantle <= budget:
                cost, kind = d + a.mantle, 0
            elif aid != here.id and (s is None or s > storm):
                cost, kind = d, 1
            elif self._opens_by_mining(a, d, budget):
                cost, kind = d + a.mantle + 1, 1  # drilled through and mined, it is a shelter (R4)
            elif a.core == UNKNOWN and d + a.mantle <= budget and far_through(self.obs, aid, r0, storm + 1):
                cost, kind = d + a.mantle, 2  # a gamble: it may be hollow (and exposing it is harmless)
            else:
                continue
            if best is None or (cost, kind) < best[:2]:
                best = (cost, kind, aid)
        if best is None:
            return None  # nowhere safe in time: carry on and hope
        cost, _, target = best
        if target == here.id:
            if here.mantle > 0:
                return Drill(self.sid)
            if here.core in MATERIALS and self.me.carry_total < CARGO_LIMIT:
                return Mine(self.sid)  # mined out, it is a shelter
            return Wait(self.sid)
        if cost < budget and self._can_mine_here():
            return Mine(self.sid)  # there is time to take the unit along
        step = reach.step_towards(target)
        return Move(self.sid, step) if step else None

    def _opens_by_mining(self, a: AsteroidView, d: int, budget: int) -> bool:
        """Reached in `d` moves, drilled through and mined within `budget` steps, `a` becomes a shelter (R4)."""
        if a.core not in MATERIALS or d + a.mantle + 1 > budget or self.me.carry_total >= CARGO_LIMIT:
            return False
        if not is_reactive(a.core):
            return True
        last = self.round + d + a.mantle - 1  # the round of the last drill (or of arrival, if already bare)
        return far_through(self.obs, a.id, max(self.round, last), last + 1)

    def _gather(self) -> Action | None:
        """Everything is carried: the group that holds it meets at the base."""
        if any(self.need.values()):
            return None
        living = self.obs.living_settlers()
        group = covering_group(living)
        if group is None:
            return None
        ids = tuple(s.id for s in group)
        if self.sid not in ids:
            return Wait(self.sid) if self.here.shelter else self._go_to_base(ids)
        return self._go_to_base(ids)

    def _go_to_base(self, ids: tuple[str, ...]) -> Action | None:
        memory = self.memory
        people = [sid for sid in ids if sid != self.sid and not self._controls(sid)]
        if people:
            # someone we do not move holds part of it: go to where they are (they may come too; we meet)
            base = self.obs.settler(people[0]).at
        else:
            base = memory.base
            if base is None or memory.group != ids or not self._base_ok(base):
                base = self._choose_base(ids)
                memory.base, memory.group = base, ids
        if base is None:
            return None
        if base == self.here.id:
            return Wait(self.sid)
        step = self._reach().step_towards(base)
        if step is None:  # beyond the usual horizon: look further (rare)
            wide = search(self.obs, self.here.id, MAX_DEPTH * 4, MAX_NODES * 8, self._passable)
            step = wide.step_towards(base)
        if step is None:
            memory.base = None
            return Wait(self.sid)  # nowhere to go this round (a storm in the way): try again next round
        return Move(self.sid, step)

    def _base_ok(self, base: str) -> bool:
        a = self.obs.asteroid(base)
        return a.exists and (a.storm_round is None or a.shelter)

    def _choose_base(self, ids: tuple[str, ...]) -> str | None:
        """The asteroid nearest to every settler of the group (the farthest one's distance, then the total).

        Settlers standing together share one search; the searches widen only when they find no common asteroid.
        """
        spots: list[str] = []
        for sid in ids:
            at = self.obs.settler(sid).at
            if at is None:
                return None
            spots.append(at)
        for widen in (1, 8):
            reaches = {at: search(self.obs, at, MAX_DEPTH * widen, MAX_NODES * widen, self._passable)
                       for at in dict.fromkeys(spots)}
            ordered = [reaches[at] for at in spots]
            best: tuple[int, int, int, int, str] | None = None
            for aid, d0 in ordered[0].dist.items():
                ds = [d0]
                for reach in ordered[1:]:
                    d = reach.dist.get(aid)
                    if d is None:
                        break
                    ds.append(d)
                else:
                    a = self.obs.asteroid(aid)
                    key = (max(ds), sum(ds), 0 if a.shelter else 1, a.index, aid)
                    if best is None or key < best:
                        best = key
            if best is not None:
                return best[4]
        return None

    def _collect(self) -> Action | None:
        """Go for the unit the team can have soonest, or survey."""
        build = self._build()
        if build is not None:
            return build
        gates = self._gates()
        if gates is not None:
            return gates
        if self.me.carry_total >= CARGO_LIMIT:
            return None
        reach = self._reach()
        others = self._others_claims()
        claimed = {c.target for c in others}
        surveys = {c.target for c in others if c.kind is None}
        home = self._home_distances()
        # a unit costs at least its distance, less the rescue bonus, which only a core with gates around it has
        bonus = RESCUE_BONUS if self.obs.gate_sites() else 0
        best: tuple[float, int, int, str, str | None, int] | None = None
        for aid, d in reach.walk():
            if best is not None and d - bonus > best[0]:
                break  # nothing further can cost less than the best so far
            a = self.obs.asteroid(aid)
            option = self._option(a, d, others, claimed, surveys)
            if option is None:
                continue
            cost, kind, finish = option
            away = home.get(aid, MAX_DEPTH) if home is not None else 0
            key = (cost + HOME_PULL * away, d, a.index, aid, kind, finish)
            if best is None or key < best:
                best = key
        if best is None:
            self.memory.claims.pop(self.sid, None)
            return None
        _, _, _, target, kind, finish = best
        self.memory.claims[self.sid] = Claim(target, kind, finish)
        if target != self.here.id:
            step = reach.step_towards(target)
            return Move(self.sid, step) if step else None
        return self._work_here()

    def _join(self) -> Action | None:
        """Nothing to get: go and stand with the nearest other settler, so the team is together at the end."""
        reach = self._reach()
        best: tuple[int, str] | None = None
        for s in self.obs.living_settlers():
            if s.id == self.sid or s.at is None:
                continue
            d = reach.distance(s.at)
            if d is not None and (best is None or d < best[0]):
                best = (d, s.at)
        if best is None or best[0] == 0:
            return None
        step = reach.step_towards(best[1])
        return Move(self.sid, step) if step else None

    def _work_here(self) -> Action:
        here = self.here
        if here.mantle == 0:
            return Mine(self.sid) if self._can_mine_here() else Wait(self.sid)
        if here.mantle > 1 or safe_to_expose(self.obs, here.id, self.round, self._hold()):
            return Drill(self.sid)
        return Wait(self.sid)  # the orbit window for the last layer has not come

    def _hold(self) -> int:
        """Rounds after the last drill the core must stay far: 0 if a teammate after us here mines it at once."""
        order = self.obs.settler_ids()
        mine_at = order.index(self.sid)
        for sid in self.here.settlers:
            if self._controls(sid) and order.index(sid) > mine_at:
                other = self.obs.settler(sid)
                if other.carry_total < CARGO_LIMIT:
                    return 0
        return 1

    def _option(self, a: AsteroidView, d: int, others: list[Claim], claimed: set[str],
                surveys: set[str]) -> tuple[int, str | None, int] | None:
        """(cost in rounds, kind, finishing round) of going for asteroid `a` at distance `d`, or None.

        `claimed`: the targets of `others`; `surveys`: those of them that go to survey.
        """
        core = a.core
        if core == UNKNOWN:
            if a.id in surveys:
                return None
            return d + SURVEY_COST, None, self.round + d
        if core not in MATERIALS:
            return None
        # bare uranium with gates around it: mining it before it explodes saves the gate pairs (R8)
        rescue = a.mantle == 0 and MATERIALS[core].radioactive and bool(a.gates)
        if self.need[core] == 0 and not rescue:
            return None
        if a.mantle == 0:
            finish = self.round + d
            due = self.obs.reacts_at(a.id)
            if d > 0 and due is not None and due < finish:
                return None  # it will have reacted before we get there
        else:
            last = first_safe_round(self.obs, a.id, self.round + d + a.mantle - 1)
            if last is None:
                return None
            finish = last + 1
        if a.id in claimed:
            return None
        if not rescue:
            ahead = sum(1 for c in others if c.kind == core and c.finish <= finish)
            if ahead >= self.need[core]:
                return None
        return finish - self.round - (RESCUE_BONUS if rescue else 0), core, finish

    def _home_distances(self) -> dict[str, int] | None:
        """Distances from the team's home (one search per round, shared by the settlers we control)."""
        memory = self.memory
        home = memory.home
        if home is None or not self.obs.asteroid(home).exists:
            home = memory.home = self._choose_home()
            memory.home_reach = None
        if home is None:
            return None
        cached = memory.home_reach
        if cached is None or cached[0] != self.round:
            cached = memory.home_reach = (self.round, search(self.obs, home, MAX_DEPTH, MAX_NODES))
        return cached[1].dist

    def _choose_home(self) -> str | None:
        """The asteroid nearest to all living settlers (where they start, at first), a shelter if it can."""
        ids = tuple(s.id for s in self.obs.living_settlers())
        return self._choose_base(ids) if ids else None

    def _others_claims(self) -> list[Claim]:
        """What the other settlers are getting: claims of the ones we control, units under the others' feet."""
        claims: list[Claim] = []
        memory = self.memory
        for s in self.obs.living_settlers():
            if s.id == self.sid or s.at is None:
                continue
            if self._controls(s.id):
                claim = memory.claims.get(s.id)
                if claim is not None and self._claim_valid(claim):
                    claims.append(claim)
            else:
                a = self.obs.asteroid(s.at)
                if a.core in MATERIALS:
                    claims.append(Claim(a.id, a.core, self.round + a.mantle + 1))
        return claims

    def _controls(self, sid: str) -> bool:
        """We chose for `sid` in this round or the last (so we are likely to choose for it again)."""
        last = self.memory.controlled.get(sid)
        return last is not None and last >= self.round - 1

    def _claim_valid(self, claim: Claim) -> bool:
        a = self.obs.asteroid(claim.target)
        if not a.exists:
            return False
        if claim.kind is None:
            return a.core == UNKNOWN
        return a.core == claim.kind and self.need[claim.kind] > 0

    def _build(self) -> Action | None:
        """Build a robot with units the team does not need for the win."""
        if not self.build_robots:
            return None
        cargo = self.me.cargo
        if all(cargo[k] >= n and self._carried(k) - n >= 3 for k, n in ROBOT_COST.items()):
            return BuildRobot(self.sid)
        return None

    def _gates(self) -> Action | None:
        """The gate plan: with spare units, bridge home and a far site where all the needed units lie.

        Standing at home with 2 iron, 1 ice and 1 uranium the win does not need, carrying no gate, no pair yet
        leading from home, and the nearest known needed unit at least `GATE_STEPS + GATE_SAVING + 1` moves
        from home: build a pair and place one gate at home. Carrying the other one, place it on the first
        asteroid at least that far from home with a needed unit. The searches go through active gates, so the
        way back (and to the gathering) takes one move. Gates go only around asteroids that cannot explode
        (R8 would destroy the pair) and that no storm is forecast for (E3).
        """
        if not self.build_gates:
            return None
        home_dist = self._home_distances()
        home = self.memory.home
        if home_dist is None or home is None:
            return None
        here = self.here
        carried = self.me.gates
        far = GATE_STEPS + GATE_SAVING + 1
        if len(carried) == 2:
            return Place(self.sid, carried[0]) if here.id == home and self._gate_safe(here) else None
        if len(carried) == 1:
            partner_at = self.obs.gate(self.obs.gate(carried[0]).partner).at
            if partner_at is None or partner_at == here.id or home_dist.get(here.id, MAX_DEPTH + 1) < far:
                return None
            if here.core in MATERIALS and self.need[here.core] > 0 and self._gate_safe(here):
                return Place(self.sid, carried[0])
            return None
        if here.id != home or not self._gate_safe(here) or self.obs.gate_exits(home):
            return None
        if any(s.gates for s in self.obs.living_settlers()):
            return None
        cargo = self.me.cargo
        if not all(cargo[k] >= n and self._carried(k) - n >= 3 for k, n in GATES_COST.items()):
            return None
        cached = self.memory.home_reach
        if cached is None:
            return None
        nearest = None
        for aid in cached[1].order:
            a = self.obs.asteroid(aid)
            if a.core in MATERIALS and self.need[a.core] > 0:
                nearest = cached[1].dist[aid]
                break
        if nearest is None or nearest < far:
            return None
        return BuildGates(self.sid)

    def _gate_safe(self, a: AsteroidView) -> bool:
        """A gate around `a` will not be lost to an explosion (R8) nor go haywire in a forecast storm (E3)."""
        if not a.exists or a.storm_round is not None:
            return False
        if a.core == UNKNOWN or (a.core in MATERIALS and MATERIALS[a.core].radioactive):
            return a.next_near() is None  # it never comes near the Sun: it cannot explode
        return True

    def _carried(self, kind: str) -> int:
        """Units of `kind` the living settlers carry."""
        return sum(s.cargo[kind] for s in self.obs.living_settlers())

    # ----- helpers -----
    def _can_mine_here(self) -> bool:
        here = self.here
        return here.mantle == 0 and here.core in MATERIALS and self.me.carry_total < CARGO_LIMIT and (
            self.need[here.core] > 0 or is_reactive(here.core)
        )

    def _passable(self, aid: str, d: int) -> bool:
        """May we step onto `aid`, arriving `d` moves from now, and stay a round?"""
        obs = self.obs
        storm = obs.storm_round(aid)
        if storm is not None and storm >= self.round + d - 1 and not obs.asteroid(aid).shelter:
            return False
        # the rules say when an exposed core explodes (`rules.dangers`, the fuse of E1 counted): arriving in round
        # round + d - 1, it must not have exploded by that round's end; only a bare explosive core can
        if obs.bare_core(aid) not in EXPLOSIVE:
            return True
        reaction = obs.reaction(aid)
        return reaction is None or reaction.effect != "explodes" or reaction.in_rounds >= d

    def _reach(self) -> Reach:
        """The search from where we stand (made once per decision)."""
        if self._own_reach is None:
            # lazy: most decisions read only the nearest few asteroids of it
            self._own_reach = search(self.obs, self.here.id, MAX_DEPTH, MAX_NODES, self._passable, lazy=True)
        return self._own_reach
