"""The planner in hand-made situations (R6, R7, R14) and on real belts, alone and alongside humans."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from asteroid_mining.ai import Observation, make_bot
from asteroid_mining.rules import EXTENDED, Drill, Game, Mine, Move, Options, Orbit, Wait

from .conftest import play, small_game

STRICT = Options(turns="strict")


def lone_settler(core: str, mantle: int, orbit: Orbit | None, sun: str = "far", cargo: dict[str, int] | None = None,
                 round_no: int = 1) -> Game:
    """s1 on asteroid X (the given core, mantle and orbit), a far hollow shelter S next door."""
    game = Game.empty(STRICT)
    game.add_asteroid("X", mantle=mantle, core=core, orbit=orbit, sun=None if orbit else sun)
    game.add_asteroid("S", mantle=0)
    game.link("X", "S")
    game.add_settler("s1", "X", cargo=cargo)
    while game.round < round_no:
        game.apply(Wait("s1"))
    return game


def choose(game: Game, settler: str = "s1") -> object:
    return make_bot("planner").choose(Observation(game), settler)


# ----- R6: never exposes a reactive core that could react before it is mined -----
def test_does_not_drill_the_last_layer_of_uranium_near_the_sun() -> None:
    game = lone_settler("uranium", 1, None, sun="near")
    assert choose(game) != Drill("s1")


def test_does_not_drill_the_last_layer_of_ice_when_the_orbit_brings_it_near_next_round() -> None:
    # 4/1/3: near in rounds 2, 6, 10, ...; in round 1 it is far, but round 2 would sublimate the ice
    game = lone_settler("ice", 1, Orbit(4, 1, 3))
    assert not game.is_near("X")
    assert choose(game) != Drill("s1")


def test_drills_the_last_layer_when_the_orbit_keeps_it_far_until_mined() -> None:
    game = lone_settler("uranium", 1, Orbit(6, 2, 0), round_no=3)  # near in rounds 1-2, 7-8, ...
    assert choose(game) == Drill("s1")
    game.apply(Drill("s1"))
    assert choose(game) == Mine("s1")


def test_drills_upper_layers_of_uranium_near_the_sun() -> None:
    game = lone_settler("uranium", 3, Orbit(6, 2, 0))  # near in rounds 1-2: the last layer can go in round 3
    assert game.is_near("X")
    assert choose(game) == Drill("s1")


def test_never_digs_uranium_that_is_always_near() -> None:
    game = lone_settler("uranium", 1, None, sun="near")
    assert choose(game) != Drill("s1")


@settings(max_examples=120, deadline=None)
@given(
    core=st.sampled_from(["ice", "uranium"]),
    period=st.integers(1, 9),
    data=st.data(),
    round_no=st.integers(1, 12),
)
def test_never_exposes_a_reactive_core_that_will_react_before_mining(
    core: str, period: int, data: st.DataObject, round_no: int
) -> None:
    window = data.draw(st.integers(0, period))
    phase = data.draw(st.integers(0, period - 1))
    orbit = Orbit(period, window, phase)
    game = lone_settler(core, 1, orbit, round_no=round_no)
    if choose(game) == Drill("s1"):
        assert not orbit.is_near(game.round) and not orbit.is_near(game.round + 1)


def test_never_exposes_reactive_cores_in_whole_games() -> None:
    """Over whole games, no ice sublimates and no uranium explodes."""
    from asteroid_mining.rules.events import Exploded, Sublimated

    for seed in range(4):
        game = small_game(seed)
        bot = make_bot("planner", seed)
        while game.status == "running" and game.round <= 200:
            events = game.apply(bot.choose(Observation(game), game.turn or ""))
            assert not [e for e in events if isinstance(e, Sublimated | Exploded)], seed


def test_leaves_or_mines_bare_uranium_the_orbit_brings_near() -> None:
    game = lone_settler("uranium", 0, Orbit(4, 1, 3))  # far in round 1, near in round 2
    assert choose(game) == Mine("s1")
    full = lone_settler("uranium", 0, Orbit(4, 1, 3), cargo={"iron": 10})
    assert choose(full) == Move("s1", "S")


# ----- R7: shelters before forecast storms -----
def storm_game(shelter_mantle: int, hops: int) -> Game:
    """s1 on A with iron under it; a hollow asteroid `hops` moves away; a storm forecast over everything else."""
    game = Game.empty(STRICT)
    chain = ["A", *(f"P{i}" for i in range(1, hops)), "H"]
    for aid in chain[:-1]:
        game.add_asteroid(aid, mantle=2, core="iron")
    game.add_asteroid("H", mantle=shelter_mantle)
    for a, b in itertools.pairwise(chain):
        game.link(a, b)
    game.add_settler("s1", "A")
    game.forecast(2, [*chain[:-1], "H"])
    return game


def run_rounds(game: Game, rounds: int) -> None:
    bot = make_bot("planner")
    end = game.round + rounds
    while game.status == "running" and game.round < end:
        game.apply(bot.choose(Observation(game), "s1"))


def test_runs_to_a_shelter_two_moves_away() -> None:
    game = storm_game(shelter_mantle=0, hops=2)
    assert choose(game) == Move("s1", "P1")
    run_rounds(game, 2)
    assert game.settlers["s1"].alive and game.settlers["s1"].at == "H"


def test_opens_a_hollow_asteroid_next_door_in_time() -> None:
    game = storm_game(shelter_mantle=1, hops=1)
    run_rounds(game, 2)
    assert game.settlers["s1"].alive and game.asteroids["H"].shelter


def test_stays_in_a_shelter_while_a_storm_is_forecast() -> None:
    game = storm_game(shelter_mantle=0, hops=1)
    game.apply(Move("s1", "H"))
    assert choose(game) == Wait("s1")


def test_steps_out_of_the_storms_path_when_that_is_nearer() -> None:
    game = Game.empty(STRICT)
    game.add_asteroid("A", mantle=2, core="iron")
    game.add_asteroid("B", mantle=2, core="carbon")
    game.link("A", "B")
    game.add_settler("s1", "A")
    game.forecast(1, ["A"])  # hits at the end of this very round
    assert choose(game) == Move("s1", "B")


def test_does_not_walk_into_a_forecast_storm() -> None:
    game = Game.empty(STRICT)
    game.add_asteroid("A", mantle=0)
    game.add_asteroid("B", mantle=1, core="iron")
    game.link("A", "B")
    game.add_settler("s1", "A")
    game.forecast(2, ["B"])
    assert choose(game) == Wait("s1")


# ----- R14: winning -----
def test_wins_small_belts() -> None:
    for seed in range(3):
        game = play(small_game(seed), make_bot("planner", seed), max_rounds=150)
        assert game.status == "won", seed


def test_wins_extended_rules() -> None:
    game = play(small_game(2, options=EXTENDED), make_bot("planner", 2), max_rounds=150)
    assert game.status == "won"


def test_gathers_when_everything_is_carried() -> None:
    game = Game.empty(STRICT)
    for aid in ("A", "B", "C"):
        game.add_asteroid(aid, mantle=0)
    game.link("A", "B")
    game.link("B", "C")
    game.add_settler("s1", "A", cargo={"ice": 3, "iron": 3})
    game.add_settler("s2", "C", cargo={"carbon": 3, "uranium": 3})
    bot = make_bot("planner")
    for _ in range(4):
        if game.status != "running":
            break
        game.apply(bot.choose(Observation(game), game.turn or ""))
    assert game.status == "won"


def test_plays_alongside_a_human_who_does_nothing() -> None:
    """The planner moves s1 and s2; s3 is a human who only waits. The planner must not count on s3."""
    for seed in range(2):
        game = small_game(seed)
        bot = make_bot("planner", seed)
        while game.status == "running" and game.round <= 200:
            settler = game.turn or ""
            action = Wait(settler) if settler == "s3" else bot.choose(Observation(game), settler)
            assert game.check(action) is None
            game.apply(action)
        assert game.status == "won", seed


def test_plays_alongside_a_human_who_wanders() -> None:
    """s3 is a human moving at random: plans must survive people moving under the planner's feet."""
    import random

    rng = random.Random(4)
    game = small_game(4)
    bot = make_bot("planner", 4)
    human_moves = 0
    while game.status == "running" and game.round <= 250:
        settler = game.turn or ""
        human = settler == "s3"
        action = rng.choice(game.legal_actions(settler)) if human else bot.choose(Observation(game), settler)
        assert game.check(action) is None
        game.apply(action)
        human_moves += human and isinstance(action, Move)
    assert human_moves > 0  # the human did move under the planner's feet
    # the planner won all the same, without losing a settler (the human's wandering settler need not survive)
    assert game.status == "won", game.round
    assert game.settlers["s1"].alive and game.settlers["s2"].alive


def test_one_bot_serves_two_games_at_once() -> None:
    bot = make_bot("planner")
    first, second = small_game(1), small_game(2)
    for _ in range(600):
        for game in (first, second):
            if game.status == "running":
                game.apply(bot.choose(Observation(game), game.turn or ""))
    assert first.status == "won" and second.status == "won"


def test_a_settler_handed_over_to_a_human_mid_game() -> None:
    """The planner plays all three for 8 rounds, then s2 goes to a human who only waits: no stale plan blocks it."""
    game = small_game(6)
    bot = make_bot("planner", 6)
    while game.status == "running" and game.round <= 200:
        settler = game.turn or ""
        human = settler == "s2" and game.round > 8
        game.apply(Wait(settler) if human else bot.choose(Observation(game), settler))
    assert game.status == "won"


def test_mines_its_asteroid_open_to_make_a_shelter_in_time() -> None:
    """No shelter in reach: drilled through and mined out, the asteroid itself becomes one (R4)."""
    game = Game.empty(STRICT)
    game.add_asteroid("A", mantle=1, core="carbon")
    game.add_asteroid("B", mantle=3, core="iron")
    game.link("A", "B")
    game.add_settler("s1", "A", cargo={"carbon": 3})  # it does not even need the carbon
    game.forecast(2, ["A", "B"])
    run_rounds(game, 2)
    assert game.settlers["s1"].alive
    assert game.asteroids["A"].shelter


def _passable(fuse: int, d: int) -> bool:
    """Would the planner step onto bare uranium U (near in rounds 2, 6, 10, ...) arriving `d` moves from now?"""
    from asteroid_mining.ai.planner import _Decision, _Memory

    game = Game.empty(Options(turns="strict", uranium_fuse=fuse))
    game.add_asteroid("S", mantle=0)
    game.add_asteroid("U", mantle=0, core="uranium", orbit=Orbit(4, 1, 3))
    game.link("S", "U")
    game.add_settler("s1", "S")
    obs = Observation(game)
    return _Decision(obs, obs.settler("s1"), _Memory(obs), True)._passable("U", d)


def test_steps_onto_bare_uranium_only_where_the_rules_say_it_does_not_explode() -> None:
    # one exposure explodes it (R6): it explodes at the end of round 1, and is gone after
    assert [_passable(1, d) for d in (1, 2, 5)] == [False, False, False]
    # E1: the first near round counts 1 of a fuse of 2; the second (round 6) explodes it at the end of round 5
    assert [_passable(2, d) for d in (1, 4, 5, 6)] == [True, True, False, False]
