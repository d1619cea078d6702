"""`Game.new` sets a belt up in bulk (its ids checked at once, its links in one call) and says what is wrong with
a belt exactly as the one-by-one set-up does: the first bad asteroid or link, by name, and nothing played."""

from __future__ import annotations

import pytest

from asteroid_mining.rules import Game, SetupError
from asteroid_mining.rules.belt import AsteroidSpec, Belt


def belt(ids: list[str], links: list[tuple[str, str]], start: str = "a0", **spec: object) -> Belt:
    asteroids = tuple(AsteroidSpec(aid, mantle=0 if aid == start else 2, **spec)  # type: ignore[arg-type]
                      for aid in ids)
    return Belt(asteroids, tuple(links), start=start)


def one_by_one(b: Belt) -> Game:
    """The same belt set up through the scripts' calls, one asteroid and one link at a time."""
    game = Game.empty()
    for spec in b.asteroids:
        game.add_asteroid(spec.id, spec.mantle, spec.core, None if spec.orbit else spec.sun, spec.orbit,
                          spec.position)
    for a, c in b.links:
        game.link(a, c)
    return game


def test_a_belt_is_set_up_as_one_by_one() -> None:
    b = belt(["a0", "a1", "a2", "a3"], [("a0", "a1"), ("a0", "a2"), ("a1", "a2"), ("a2", "a3"), ("a3", "a0")])
    game, reference = Game.new(b), one_by_one(b)
    for aid, asteroid in reference.asteroids.items():
        assert list(game.asteroids[aid].neighbours) == list(asteroid.neighbours)
        assert (game.asteroids[aid].index, game.asteroids[aid].mantle) == (asteroid.index, asteroid.mantle)
    assert list(game.asteroids) == list(reference.asteroids)


@pytest.mark.parametrize(("ids", "links", "message"), [
    (["a0", "a1", "9x"], [], "'9x' is not a valid id"),
    (["a0", "none"], [], "'none' is reserved"),
    (["a0", "a1", "a1"], [], "a1 is already taken by an asteroid"),
    (["a0", "a1"], [("a0", "a1"), ("a1", "zz")], "there is no asteroid zz"),
    (["a0", "a1"], [("a0", "a1"), ("a1", "a1")], "a1 cannot be its own neighbour"),
    (["a0", "a1", "a2"], [("a0", "a1"), ("a9", "a2"), ("a1", "a2")], "there is no asteroid a9"),
])
def test_the_first_problem_of_a_belt_is_named(ids: list[str], links: list[tuple[str, str]], message: str) -> None:
    with pytest.raises(SetupError, match=message):
        Game.new(belt(ids, links))
    with pytest.raises(SetupError, match=message):  # the same words as a script's set-up
        one_by_one(belt(ids, links))


def test_a_bad_mantle_after_good_ids_is_named() -> None:
    b = Belt((AsteroidSpec("a0", mantle=0), AsteroidSpec("a1", mantle=-1)), (), start="a0")
    with pytest.raises(SetupError, match="the mantle of a1 cannot be negative"):
        Game.new(b)
