"""When exposed cores react (rules.dangers): checked against the orbit formula and against playing the rounds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from asteroid_mining.rules import Drill, Game, Move, Options, Orbit, near_round, rounds_until_near
from asteroid_mining.rules.dangers import exposed_now_reacts
from asteroid_mining.rules.events import Exploded, Sublimated


@st.composite
def orbits(draw: st.DrawFn) -> Orbit:
    period = draw(st.integers(1, 9))
    return Orbit(period, draw(st.integers(0, period)), draw(st.integers(0, period - 1)))


@given(orbit=orbits(), start=st.integers(1, 40), count=st.integers(1, 12))
def test_near_round_is_the_count_th_near_round(orbit: Orbit, start: int, count: int) -> None:
    near = [r for r in range(start, start + 20 * count + 20) if orbit.is_near(r)]
    expected = near[count - 1] if orbit.window else None
    assert near_round(orbit, None, start, count) == expected


@given(start=st.integers(1, 40), count=st.integers(1, 5))
def test_pinned_asteroids_stay_as_pinned(start: int, count: int) -> None:
    assert near_round(None, "near", start, count) == start + count - 1
    assert near_round(None, "far", start, count) is None
    assert rounds_until_near(None, "near", start) == 0
    assert rounds_until_near(None, "far", start) is None


@settings(max_examples=150, deadline=None)
@given(orbit=st.one_of(orbits(), st.none()), pinned=st.sampled_from(("near", "far")), fuse=st.integers(1, 3),
       core=st.sampled_from(("ice", "uranium")), before=st.integers(0, 6))
def test_reacts_at_is_when_the_rounds_set_it_off(orbit: Orbit | None, pinned: str, fuse: int, core: str,
                                                 before: int) -> None:
    game = Game.empty(Options(turns="free", uranium_fuse=fuse))
    game.add_asteroid("home", mantle=3)
    game.add_settler("s1", "home")
    for _ in range(before):
        game.end_round()
    game.add_asteroid("X", mantle=0, core=core, sun=None if orbit else pinned, orbit=orbit)
    if not game.asteroids["X"].exists or game.asteroids["X"].core == "hollow":
        return  # it reacted as it was made, near the Sun
    promised = game.reacts_at("X")
    reaction = game.reaction("X")
    assert game.thing_view("X")["reacts_at"] == promised
    assert (reaction is None) == (promised is None)
    if reaction is not None:
        assert promised is not None and reaction.in_rounds == promised - game.round
        assert reaction.effect == ("sublimates" if core == "ice" else "explodes")
    seen = None
    for _ in range(3 * 9 * fuse + 2):
        ending = game.round
        events = game.end_round()
        if any(isinstance(e, Exploded | Sublimated) and e.asteroid == "X" for e in events):
            seen = ending
            break
        assert game.reacts_at("X") == promised, "the promise does not move while nothing happens"
    assert seen == promised


@settings(max_examples=100, deadline=None)
@given(orbit=orbits(), before=st.integers(0, 9), core=st.sampled_from(("ice", "uranium", "iron")))
def test_drill_danger_says_when_the_exposed_core_comes_near(orbit: Orbit, before: int, core: str) -> None:
    game = Game.empty(Options(turns="free"))
    game.add_asteroid("X", mantle=1, core=core, orbit=orbit)
    game.add_settler("s1", "X")
    for _ in range(before):
        game.end_round()
    drill = next(c for c in game.choices("s1").choices if c.action.name == "drill")
    if core == "iron" or orbit.window == 0:
        assert drill.danger is None
        return
    assert drill.danger is not None and drill.danger.core == core
    assert drill.danger.in_rounds == rounds_until_near(orbit, None, game.round)
    assert (drill.danger.in_rounds == 0) == game.is_near("X")


@settings(max_examples=100, deadline=None)
@given(orbit=orbits(), before=st.integers(0, 9), core=st.sampled_from(("ice", "uranium", "iron", "hollow")))
def test_exposed_now_reacts_is_what_a_drill_sets_off_this_round(orbit: Orbit, before: int, core: str) -> None:
    game = Game.empty(Options(turns="free"))
    game.add_asteroid("X", mantle=1, core=core, orbit=orbit)
    game.add_asteroid("S", mantle=0)
    game.link("X", "S")
    game.add_settler("s1", "X")
    for _ in range(before):
        game.end_round()
    promised = exposed_now_reacts(core, rounds_until_near(orbit, None, game.round))
    events = game.apply(Drill("s1"))
    if game.settlers["s1"].alive:
        game.apply(Move("s1", "S"))  # out of the way: only the core's fate is asked
        events += game.end_round()
    assert any(isinstance(e, (Exploded, Sublimated)) for e in events) == promised


def test_exposed_now_reacts_needs_a_reactive_core_near_now_or_next_round() -> None:
    assert [exposed_now_reacts("uranium", w) for w in (0, 1, 2, None)] == [True, True, False, False]
    assert [exposed_now_reacts("ice", w) for w in (0, 1, 2, None)] == [True, True, False, False]
    assert not any(exposed_now_reacts(core, 0) for core in ("iron", "carbon", "hollow", "unknown"))
