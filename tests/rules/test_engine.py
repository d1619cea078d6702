"""The engine's API: making games, refusals, strict turns, storms, the view, saving and replaying."""

from __future__ import annotations

import copy
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from asteroid_mining.rules import (
    CLASSIC,
    EXTENDED,
    REFUSAL_CODES,
    AsteroidSpec,
    Belt,
    BuildGates,
    BuildRobot,
    Deposit,
    Drill,
    Game,
    GameFormatError,
    Mine,
    Move,
    Options,
    Orbit,
    Place,
    Refused,
    SetupError,
    Wait,
    action_from_json,
)
from asteroid_mining.texts import refusal_text


def ring_belt(n: int = 8, **spec: object) -> Belt:
    """n asteroids on a circle, each linked to the next; the start a0 is hollow and far."""
    asteroids = tuple(
        AsteroidSpec(f"a{i}", position=(math.cos(2 * math.pi * i / n), math.sin(2 * math.pi * i / n)),
                     **({} if i == 0 else spec))  # type: ignore[arg-type]
        for i in range(n)
    )
    links = tuple((f"a{i}", f"a{(i + 1) % n}") for i in range(n))
    return Belt(asteroids, links, start="a0", storm_sector=50.0)


def scripted() -> Game:
    game = Game.empty()
    game.add_asteroid("A", mantle=2, core="iron")
    game.add_asteroid("B", mantle=0)
    game.add_asteroid("C")
    game.link("A", "B")
    game.add_settler("s1", "A")
    return game


class TestRefusals:
    def test_a_refusal_has_a_code_and_a_sentence(self) -> None:
        refusal = scripted().check(Mine("s1"))
        assert refusal is not None
        assert refusal.code == "mantle_left"
        assert refusal.params == {"actor": "s1", "asteroid": "A", "mantle": 2}
        assert refusal_text(refusal.code, refusal.params) == "A still has 2 layers of mantle"
        assert refusal.code in REFUSAL_CODES

    @pytest.mark.parametrize(
        ("action", "code", "message"),
        [
            (Move("s1", "C"), "not_neighbour", "C is not a neighbour of A"),
            (Move("s1", "A"), "not_neighbour", "A is not a neighbour of A"),
            (Move("s1", "nowhere"), "no_such_target", "nowhere is neither an asteroid nor a gate"),
            (Deposit("s1", "ice"), "mantle_left",
             "A still has 2 layers of mantle"),
            (BuildRobot("s1"), "missing_materials",
             "building a robot needs 1 iron and 1 carbon and 1 uranium more"),
            (Place("s1", "g1"), "gate_not_carried", "you do not carry gate g1"),
            (Drill("ghost"), "unknown_actor", "there is no settler ghost"),
            (Drill("A"), "not_an_actor", "A cannot act"),
        ],
    )
    def test_refusals(self, action: object, code: str, message: str) -> None:
        game = scripted()
        before = game.to_json()
        with pytest.raises(Refused) as caught:
            game.apply(action)  # type: ignore[arg-type]
        assert (caught.value.code, refusal_text(code, caught.value.refusal.params)) == (code, message)
        assert game.to_json() == before

    def test_every_code_used_is_documented(self) -> None:
        from pathlib import Path

        import asteroid_mining.rules

        # the sources, read as files: the compiled modules have no source for `inspect` to find
        here = Path(asteroid_mining.rules.__file__).parent
        source = (here / "refusals.py").read_text() + (here / "game.py").read_text()
        import re

        used = set(re.findall(r'Refusal\("([a-z_]+)"', source))
        assert used <= set(REFUSAL_CODES), used - set(REFUSAL_CODES)


class TestStrictTurns:
    def test_the_round_ends_by_itself_after_the_last_settler(self) -> None:
        game = Game.new(ring_belt(), CLASSIC, seed=1, settlers=2)
        assert (game.round, game.turn) == (1, "s1")
        assert game.legal_actions("s2") == []
        assert game.check(Wait("s2")).code == "not_your_turn"  # type: ignore[union-attr]
        game.apply(Wait("s1"))
        assert game.turn == "s2"
        events = game.apply(Wait("s2"))
        assert (game.round, game.turn) == (2, "s1")
        assert "round" in {e.type for e in events}
        with pytest.raises(Refused) as caught:
            game.end_round()
        assert caught.value.code == "turns_strict"

    def test_when_every_settler_still_to_step_dies_the_round_goes_on(self) -> None:
        game = Game.empty(Options(turns="strict"))
        game.add_asteroid("A", mantle=1, core="uranium", sun="near")
        game.add_asteroid("B")
        game.link("A", "B")
        game.add_settler("s1", "B")
        game.add_settler("s2", "A")
        game.add_settler("s3", "A")
        game.apply(Move("s1", "A"))
        game.apply(Drill("s2"))  # A explodes: s1, s2 and s3 die
        assert game.status == "lost"


class TestGames:
    def test_new_places_settlers_and_ufos(self) -> None:
        game = Game.new(ring_belt(), EXTENDED, seed=3, settlers=3)
        assert [s.at for s in game.settlers.values()] == ["a0", "a0", "a0"]
        assert list(game.ufos) == ["ufo1", "ufo2"]
        assert all(u.at != "a0" for u in game.ufos.values())
        assert game.asteroids["a0"].surveyed and not game.asteroids["a3"].surveyed

    def test_new_refuses_a_belt_whose_start_is_gone(self) -> None:
        belt = Belt((AsteroidSpec("a", mantle=0, core="uranium", sun="near"),), (), start="a")
        with pytest.raises(SetupError, match="the start asteroid a explodes as the game is set up"):
            Game.new(belt)
        Game.new(belt, EXTENDED)  # E1: the fuse counts this first exposure, and nothing explodes yet

    def test_builds_name_things_with_the_lowest_free_numbers(self) -> None:
        game = Game.empty()
        game.add_asteroid("A", mantle=0)
        game.add_settler("s1", "A", {"iron": 3, "carbon": 1, "uranium": 2, "ice": 1})
        game.add_robot("robot1", "A")
        events = game.apply(BuildRobot("s1"))
        assert [e.to_json() for e in events] == [
            {"type": "robot_built", "actor": "s1", "robot": "robot2", "asteroid": "A"}]
        game.apply(BuildGates("s1"))
        assert game.settlers["s1"].gates == ["gate1", "gate2"]
        assert game.settlers["s1"].carry_total == 0

    def test_storms_are_forecast_ahead_over_a_sector(self) -> None:
        game = Game.new(ring_belt(12), Options(storm_interval=1, storm_warning=2, turns="free"), seed=5)
        events = game.end_round()
        forecast = next(e for e in events if e.type == "storm_forecast")
        assert forecast.round == 1 + 2  # type: ignore[union-attr]
        start, width = forecast.sector  # type: ignore[union-attr, misc]
        assert width == 50.0
        for aid in forecast.asteroids:  # type: ignore[union-attr]
            x, y = game.asteroids[aid].position  # type: ignore[misc]
            assert (math.degrees(math.atan2(y, x)) - start) % 360 < width
        assert 1 <= len(forecast.asteroids) <= 3  # type: ignore[union-attr]

    def test_scripts_forecast_nothing_by_themselves(self) -> None:
        game = Game.empty(Options(turns="free", storm_interval=1))
        game.add_asteroid("A")
        game.add_settler("s1", "A")
        for _ in range(20):
            game.end_round()
        assert game.forecasts == []

    def test_the_sun_state_follows_from_the_views_own_fields(self) -> None:
        """`sun_state(orbit, pinned, round)` gives every asteroid's `near` and `next_change` as the view does (R5)."""
        from asteroid_mining.rules.view import sun_state

        game = Game.empty(Options(turns="free", storm_interval=0))
        orbits = [Orbit(p, k, f) for p in range(1, 6) for k in range(p + 1) for f in range(p)]
        for i, orbit in enumerate(orbits):
            game.add_asteroid(f"O{i}", mantle=2, orbit=orbit)
        game.add_asteroid("Near", sun="near")
        game.add_asteroid("Far", sun="far")
        for _ in range(12):
            for a in game.view()["asteroids"]:
                assert sun_state(a["orbit"], a["pinned"], game.round) == (a["near"], a["next_change"]), a["id"]
            game.end_round()

    def test_the_view_hides_unsurveyed_cores(self) -> None:
        game = scripted()
        view = {a["id"]: a for a in game.view()["asteroids"]}
        assert view["A"]["core"] == "iron"  # a settler stands on it
        assert view["B"]["core"] == "hollow"  # drilled through
        assert view["C"]["core"] == "unknown"
        assert "rng" not in game.view()


class TestJson:
    def game(self) -> Game:
        game = Game.new(ring_belt(core="iron", mantle=1), EXTENDED, seed=9, settlers=2)
        for _ in range(6):
            assert game.turn is not None
            game.apply(game.legal_actions(game.turn)[0])
        return game

    def test_round_trip_is_exact(self) -> None:
        doc = self.game().to_json()
        assert Game.from_json(json.loads(json.dumps(doc))).to_json() == doc

    def test_replay_gives_the_same_game(self) -> None:
        game = self.game()
        belt = ring_belt(core="iron", mantle=1)
        assert Game.replay(belt, EXTENDED, 9, 2, game.history).to_json() == game.to_json()

    @pytest.mark.parametrize(
        ("damage", "path"),
        [
            (lambda d: d.update(format="something"), "format"),
            (lambda d: d.update(version=99), "version"),
            (lambda d: d["asteroids"][1].update(mantle=-1), "asteroids[1].mantle"),
            (lambda d: d["asteroids"][1].update(mantle="3"), "asteroids[1].mantle"),
            (lambda d: d["asteroids"][2].update(core="gold"), "asteroids[2].core"),
            (lambda d: d["asteroids"][2].update(orbit="3/9/0"), "asteroids[2].orbit"),
            (lambda d: d["asteroids"][0]["neighbours"].append("zz"), "asteroids[0].neighbours[2]"),
            (lambda d: d["asteroids"][0].pop("exists"), "asteroids[0].exists"),
            (lambda d: d["settlers"][0].update(at="nowhere"), "settlers[0].at"),
            (lambda d: d["settlers"][0]["cargo"].update(iron=-2), "settlers[0].cargo.iron"),
            (lambda d: d["options"].update(uranium_fuse=0), "options"),
            (lambda d: d.update(turn="a1"), "turn"),
            (lambda d: d.update(rng=[1, 2]), "rng"),
        ],
    )
    def test_a_damaged_document_names_the_place(self, damage: object, path: str) -> None:
        doc = copy.deepcopy(self.game().to_json())
        damage(doc)  # type: ignore[operator]
        with pytest.raises(GameFormatError) as caught:
            Game.from_json(doc)
        assert caught.value.path == path

    def test_not_an_object(self) -> None:
        with pytest.raises(GameFormatError, match="JSON object"):
            Game.from_json([1, 2])

    def test_actions_round_trip(self) -> None:
        for action in (Move("s1", "A"), Drill("s1"), Deposit("s1", "ice"), BuildRobot("s1", "r9"),
                       BuildGates("s1", "g1", "g2"), Place("s1", "g1"), Wait("s1"), Mine("u1")):
            assert action_from_json(action.to_json()) == action
        with pytest.raises(GameFormatError) as caught:
            action_from_json({"type": "fly", "actor": "s1"}, "history[3]")
        assert caught.value.path == "history[3].type"


class TestHub:
    def test_legal_actions_on_a_500_neighbour_hub(self) -> None:
        game = Game.empty()
        game.add_asteroid("hub", mantle=0)
        for i in range(500):
            game.add_asteroid(f"n{i}")
        game.link("hub", *(f"n{i}" for i in range(500)))
        game.add_settler("s1", "hub", {"ice": 1})
        actions = game.legal_actions("s1")
        assert len([a for a in actions if isinstance(a, Move)]) == 500
        assert Deposit("s1", "ice") in actions and Wait("s1") in actions
        assert all(game.check(a) is None for a in actions)


@given(period=st.integers(1, 12), data=st.data())
def test_orbit_schedule_matches_the_formula(period: int, data: st.DataObject) -> None:
    orbit = Orbit(period, data.draw(st.integers(0, period)), data.draw(st.integers(0, period - 1)))
    r = data.draw(st.integers(1, 100))
    nearest = next((x for x in range(r, r + period + 1) if orbit.is_near(x)), None)
    assert orbit.next_near(r) == nearest
    change = next((x for x in range(r + 1, r + period + 1) if orbit.is_near(x) != orbit.is_near(r)), None)
    assert orbit.next_change(r) == change


def test_option_errors_are_sentences() -> None:
    game = Game.empty()
    with pytest.raises(SetupError, match="unknown option 'fuse'"):
        game.set_option("fuse", "3")
    with pytest.raises(SetupError, match="uranium_fuse must be a whole number of at least 1"):
        game.set_option("uranium_fuse", "0")
    with pytest.raises(SetupError, match="unknown rules preset"):
        game.set_preset("hard")

