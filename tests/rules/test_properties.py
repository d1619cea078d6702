"""Invariants over random legal play (hypothesis state machines)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from asteroid_mining.rules import (
    CARGO_LIMIT,
    GATE_LIMIT,
    KINDS,
    MATERIALS,
    WIN_TARGET,
    Belt,
    BuildGates,
    Deposit,
    Drill,
    Game,
    Mine,
    Move,
    Place,
    Refused,
    Wait,
)
from asteroid_mining.rules.options import Options

from .strategies import belts, game_options

SINK_EVENTS = {"sublimated", "exploded", "died", "robot_built", "gates_built"}
"""Events through which units leave play (R6a, R8, R10, R11 costs)."""


def units(game: Game) -> dict[str, int]:
    """Units of each kind in cores, living settlers' cargo and UFO holds."""
    out = dict.fromkeys(KINDS, 0)
    for a in game.asteroids.values():
        if a.exists and a.core in MATERIALS:
            out[a.core] += 1
    for s in game.settlers.values():
        if s.alive:
            for k in KINDS:
                out[k] += s.cargo[k]
    for u in game.ufos.values():
        for k in KINDS:
            out[k] += u.cargo[k]
    return out


class RandomPlay(RuleBasedStateMachine):
    """Plays random legal actions in strict turns on random belts and checks the rules' invariants."""

    game: Game
    belt: Belt
    options: Options
    seed: int
    settlers: int

    @initialize(belt=belts(), options=game_options(), seed=st.integers(0, 2**32), settlers=st.integers(1, 4))
    def start(self, belt: Belt, options: Options, seed: int, settlers: int) -> None:
        self.belt, self.options, self.seed, self.settlers = belt, options, seed, settlers
        self.game = Game.new(belt, options, seed, settlers)
        self.dead: set[str] = set()
        self.exploded: set[str] = set()

    @precondition(lambda self: self.game.status == "running")
    @rule(pick=st.integers(0, 10_000))
    def play_legal(self, pick: int) -> None:
        game = self.game
        assert game.turn is not None
        actions = game.legal_actions(game.turn)
        assert actions, "a settler whose turn it is can always at least wait"
        action = actions[pick % len(actions)]
        assert game.check(action) is None
        before = units(game)
        events = game.apply(action)
        after = units(game)
        if not SINK_EVENTS & {e.type for e in events}:
            assert after == before, f"units changed without a sink: {before} -> {after} ({events})"
        for k in KINDS:
            assert after[k] <= before[k], "units are never created"

    @precondition(lambda self: self.game.status == "running")
    @rule(
        kind=st.sampled_from(["move", "drill", "mine", "deposit", "place", "build_gates", "wait"]),
        actor=st.integers(0, 6),
        pick=st.integers(0, 14),
    )
    def refused_changes_nothing(self, kind: str, actor: int, pick: int) -> None:
        game = self.game
        ids = list(game.settlers) + list(game.robots) + ["nobody"]
        who = ids[actor % len(ids)]
        things = list(game.asteroids) + list(game.gates) + ["nothing"]
        what = things[pick % len(things)]
        action = {
            "move": Move(who, what), "drill": Drill(who), "mine": Mine(who), "deposit": Deposit(who, KINDS[pick % 4]),
            "place": Place(who, what), "build_gates": BuildGates(who), "wait": Wait(who),
        }[kind]
        legal = action in game.legal_actions(who)
        refusal = game.check(action)
        assert (refusal is None) == legal, f"check and legal_actions disagree on {action}: {refusal}"
        if refusal is not None:
            before = json.dumps(game.to_json(), sort_keys=True)
            try:
                game.apply(action)
            except Refused as exc:
                assert exc.refusal == refusal
            else:
                raise AssertionError(f"{action} was refused by check but accepted by apply")
            assert json.dumps(game.to_json(), sort_keys=True) == before

    @precondition(lambda self: self.game.status != "running")
    @rule(pick=st.integers(0, 100))
    def nothing_after_the_end(self, pick: int) -> None:
        game = self.game
        actor = list(game.settlers)[pick % len(game.settlers)]
        before = game.to_json()
        refusal = game.check(Wait(actor))
        assert refusal is not None and refusal.code == "game_over"
        assert game.legal_actions(actor) == []
        assert game.to_json() == before

    @rule()
    def the_view_hides_unsurveyed_cores(self) -> None:
        view = self.game.view()
        for entry, a in zip(view["asteroids"], self.game.asteroids.values(), strict=True):
            if a.exists:
                assert entry["core"] == (a.core if a.surveyed else "unknown")
                assert entry["near"] == self.game.is_near(a.id)

    @invariant()
    def limits(self) -> None:
        for s in self.game.settlers.values():
            assert s.carry_total <= CARGO_LIMIT
            assert len(s.gates) <= GATE_LIMIT
            assert all(n >= 0 for n in s.cargo.values())

    @invariant()
    def the_dead_stay_dead(self) -> None:
        for group in (self.game.settlers, self.game.robots, self.game.ufos):
            for tid, actor in group.items():
                if tid in self.dead:
                    assert not actor.alive and actor.at is None
                if not actor.alive:
                    self.dead.add(tid)
                else:
                    assert actor.at is not None and self.game.asteroids[actor.at].exists
        for aid, a in self.game.asteroids.items():
            if aid in self.exploded:
                assert not a.exists and not a.neighbours
            if not a.exists:
                self.exploded.add(aid)

    @invariant()
    def indexes_agree_with_the_state(self) -> None:
        game, state = self.game, self.game.state
        cores = dict.fromkeys(KINDS, 0)
        watched = set(state.hot).union(*state.watch.values())
        for a in game.asteroids.values():
            if game.reaction(a.id) is not None:  # `choices` looks for reactions only when some are watched
                assert a.id in watched, f"{a.id} will react but is neither hot nor watched"
            if a.exists and a.core in MATERIALS:
                cores[a.core] += 1
            material = MATERIALS.get(a.core)
            if a.exists and a.mantle == 0 and material is not None and game.is_near(a.id):
                if game.status == "running":
                    assert not material.sublimates, f"ice stays exposed near the Sun on {a.id}"
                    assert material.radioactive == (a.id in state.hot)
                elif material.reactive:  # R16a: an end part-way through the reactions leaves later ones undone
                    assert a.id in watched, f"{a.id} was left unreacted by the end but is neither hot nor watched"
            for other in a.neighbours:
                assert a.id in game.asteroids[other].neighbours and other != a.id
        assert cores == state.core_units
        cargo = {k: sum(s.cargo[k] for s in game.settlers.values() if s.alive) for k in KINDS}
        assert cargo == state.cargo_units
        if game.status == "running":
            assert game.winnable == all(cores[k] + cargo[k] >= WIN_TARGET for k in KINDS)
            if game.options.turns == "strict":
                assert game.turn is not None and game.settlers[game.turn].alive
        elif game.status == "lost":
            assert not any(s.alive for s in game.settlers.values())
            assert not game.winnable

    @invariant()
    def json_round_trip(self) -> None:
        doc = self.game.to_json()
        text = json.dumps(doc)
        again = Game.from_json(json.loads(text))
        assert again.to_json() == doc

    def teardown(self) -> None:
        if not hasattr(self, "game"):
            return
        replayed = Game.replay(self.belt, self.options, self.seed, self.settlers, self.game.history)
        assert replayed.to_json() == self.game.to_json(), "replay from seed and actions gives the same state"


RandomPlay.TestCase.settings = settings(
    max_examples=60, stateful_step_count=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestRandomPlay = RandomPlay.TestCase



class RichPlay(RandomPlay):
    """Random play in a scripted game whose settlers start with full holds: builds, gates and wins happen."""

    @initialize(belt=belts(min_size=3), seed=st.integers(0, 2**32), settlers=st.integers(1, 3),
                cargo=st.lists(st.integers(0, 2), min_size=4, max_size=4), haywire=st.booleans())
    def start(self, belt: Belt, seed: int, settlers: int, cargo: list[int], haywire: bool) -> None:
        game = Game.empty(Options(turns="strict", haywire_gates=haywire, uranium_fuse=2), seed)
        for spec in belt.asteroids:
            game.add_asteroid(spec.id, spec.mantle, spec.core, None if spec.orbit else spec.sun, spec.orbit)
        for a, b in belt.links:
            if game.asteroids[a].exists and game.asteroids[b].exists:
                game.link(a, b)
        start = next(a for a in game.asteroids.values() if a.exists)
        hold = dict(zip(KINDS, cargo, strict=True))
        hold["iron"] += 2
        for n in range(settlers):
            if game.status == "running":  # a settler may complete a win at set-up time (R14)
                game.add_settler(f"s{n + 1}", start.id, hold)
        if game.status != "running":
            self.game, self.dead, self.exploded = game, set(), set()
            return
        game.add_robot("r1", start.id)
        if len(game.asteroids) > 2:
            game.forecast(2, [start.id])
        self.game = game
        self.dead, self.exploded = set(), set()

    def teardown(self) -> None:
        if hasattr(self, "game"):
            doc = self.game.to_json()
            assert Game.from_json(doc).to_json() == doc


RichPlay.TestCase.settings = settings(
    max_examples=60, stateful_step_count=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestRichPlay = RichPlay.TestCase
