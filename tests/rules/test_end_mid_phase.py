"""A game that ends part-way through the end-of-round reactions (R16a) keeps its derived state true.

R16a freezes the game at that moment: the reactions after it do not happen, so an exposed ice core may stay
near the Sun and an exposed uranium core may go uncounted in the new round. What the engine derives from that
frozen state must still agree with it: the players' view, the reactions `choices` reports, the indexes that
`choices` consults (`hot`, `watch`) and the ids `take_touched` names. Found by
test_choices_properties.TestRichPlayChoices; these are its shrunk examples, made deterministic.
"""

from __future__ import annotations

from asteroid_mining.rules import Game, Orbit
from asteroid_mining.rules.options import Options


def _watched(game: Game) -> set[str]:
    state = game.state
    return set(state.hot).union(*state.watch.values())


def _ended_with_ice_left_near() -> Game:
    """R16a R8: uranium A (created first) explodes on the round start that brings A and ice I near the Sun;
    the explosion kills the last settler, so I never sublimates. A robot on S sees I one move away."""
    game = Game.empty(Options(turns="free", uranium_fuse=1))
    game.add_asteroid("A", 0, "uranium", orbit=_orbit_near_in_round_2())
    game.add_asteroid("I", 0, "ice", orbit=_orbit_near_in_round_2())
    game.add_asteroid("S")
    game.link("S", "I")
    game.add_settler("s1", "A")
    game.add_robot("r1", "S", ai=False)
    return game


def _orbit_near_in_round_2() -> Orbit:
    return Orbit(2, 1, 1)  # far in round 1, near in round 2


def test_ice_left_near_the_sun_by_the_end_is_still_watched() -> None:
    game = _ended_with_ice_left_near()
    assert not game.is_near("I") and "I" in _watched(game)
    game.end_round()
    assert game.status == "lost" and game.round == 2
    assert game.asteroids["I"].core == "ice" and game.is_near("I")  # R16a: it does not sublimate any more
    reaction = game.reaction("I")
    assert reaction is not None and reaction.effect == "sublimates"
    assert "I" in _watched(game), "a core that the view says will react is neither hot nor watched"


def test_after_the_end_choices_report_the_reaction_the_view_shows() -> None:
    game = _ended_with_ice_left_near()
    game.end_round()
    entry = game.thing_view("I")
    assert entry["reacts_at"] is not None
    reactions = game.choices("r1").reactions
    assert "I" in reactions and reactions["I"] == game.reaction("I")


def test_uranium_left_uncounted_by_the_end_is_touched() -> None:
    """R16a R6b: near-pinned uranium A and U (created in that order) are exposed once each (fuse 2); at the next
    round start A explodes first and kills the last settler, so U is not counted in the round the game ended in.
    The round went up, so the round U's view says it explodes at moved on: U must be named as touched."""
    game = Game.empty(Options(turns="free", uranium_fuse=2))
    game.add_asteroid("A", 0, "uranium", sun="near")
    game.add_asteroid("U", 0, "uranium", sun="near")
    game.add_settler("s1", "A")
    assert game.asteroids["U"].exposures == 1 and game.reacts_at("U") == 1
    game.take_touched()
    before = game.thing_view("U", sun=False)
    game.end_round()
    assert game.status == "lost" and game.round == 2 and not game.asteroids["A"].exists
    assert game.asteroids["U"].exposures == 1 and game.reacts_at("U") == 2
    assert game.thing_view("U", sun=False) != before
    assert "U" in game.take_touched(), "U's view changed but it was not named as touched"
