"""The tutorial's lessons are data: every shipped lesson is valid, and following its steps' `press` wins it;
the REST endpoints list lessons, start their games and report their goals; a bad lesson file is named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from asteroid_mining.rules import Game, action_from_json
from asteroid_mining.server.belts import checked_belt
from asteroid_mining.server.config import Settings
from asteroid_mining.server.lessons import LESSONS, Lesson, LessonError, _expects, holds, lessons, read_lesson
from asteroid_mining.server.meta import GameMeta, MetaError
from asteroid_mining.server.options import game_options
from asteroid_mining.server.seats import Seat


def _game(lesson: Lesson) -> Game:
    spec = lesson.game
    resolved, _ = checked_belt(spec["belt"], spec["seed"], Settings())
    options = game_options("classic", spec.get("options", {}), resolved.options_for("classic"))
    return Game.new(resolved.belt, options, spec["seed"], spec["seats"] * spec["settlers_per_seat"])


def _action(press: str) -> dict[str, Any]:
    name, _, arg = press.partition(":")
    if name == "move":
        return {"type": "move", "actor": "s1", "target": arg}
    if name == "deposit":
        return {"type": "deposit", "actor": "s1", "kind": arg}
    if name == "place":
        return {"type": "place", "actor": "s1", "gate": arg}
    return {"type": name, "actor": "s1"}


PLAYABLE = [lesson for lesson in lessons().values() if all(s["press"] for s in lesson.public["steps"])]


def test_the_tutorial_has_every_lesson_in_order() -> None:
    ids = list(lessons())
    assert ids[:9] == ["fly", "drill", "mine", "deposit", "sun", "storms", "robots", "gates", "first-game"]
    assert [lesson.id for lesson in PLAYABLE] == ids[:8]
    assert [x.id for x in lessons().values() if x.public["kind"] == "puzzle"] == ["puzzle-gates", "puzzle-storm"]


def _play(lesson: Lesson) -> tuple[Game, list[str]]:
    """Plays a lesson's presses; the goal must not hold before the last one (the lesson ends only once it has
    taught its last step), and holds after it. Returns the game and the events' names, in order."""
    game = _game(lesson)
    events: list[str] = []
    steps = list(zip(lesson.public["steps"], lesson.steps, strict=True))
    for step, expects in steps:
        assert not holds(game, lesson.goal), (lesson.id, "the goal holds before", step["press"])
        assert not holds(game, expects), step
        events += [repr(e) for e in game.apply(action_from_json(_action(step["press"]), "press"))]
        assert holds(game, expects), (lesson.id, step["press"])
    assert holds(game, lesson.goal), lesson.id
    return game, events


@pytest.mark.parametrize("lesson", PLAYABLE, ids=lambda x: x.id)
def test_pressing_what_each_step_highlights_reaches_the_goal(lesson: Lesson) -> None:
    game, _ = _play(lesson)
    assert game.round - 1 <= lesson.public["par"]


def test_each_lesson_ends_once_what_it_names_has_happened() -> None:
    """The storm hits while the settler shelters; the robot drills on its own; a built gate pair is placed at two
    asteroids and crossed; the first lesson says how the game is won."""
    every = lessons()
    game, events = _play(every["storms"])
    hit = next(i for i, e in enumerate(events) if e.startswith("StormHit") and "Bunker" in e)
    assert hit >= 0 and game.status == "running"
    assert holds(game, _expects(["s1.alive == true", "s1.at == Bunker", "Bunker.shelter == true"], "t"))
    _, events = _play(every["robots"])
    built = next(i for i, e in enumerate(events) if e.startswith("RobotBuilt"))
    assert any(e.startswith("Drilled") and "robot1" in e for e in events[built:])
    _, events = _play(every["gates"])
    order = [e.split("(")[0] for e in events if e.split("(")[0] in ("GatesBuilt", "GatePlaced")]
    assert order == ["GatesBuilt", "GatePlaced", "GatePlaced"]
    assert "via='gate2'" in [e for e in events if e.startswith("Moved")][-1]
    intro = every["fly"].public["intro"]
    assert "3 ice, 3 iron, 3 carbon and 3 uranium" in intro["en"] and "3 uránt" in intro["hu"]
    for lesson in every.values():
        assert all(lesson.public["learned"][lang] for lang in ("en", "hu")), lesson.id


def test_a_bad_lesson_file_is_named(tmp_path: Path) -> None:
    good = json.loads((LESSONS / "01-fly.json").read_text())
    bad = tmp_path / "99-bad.json"
    bad.write_text(json.dumps({**good, "steps": [{**good["steps"][0], "expect": ["s1.at === Vesta"]}]}))
    with pytest.raises(LessonError, match=r"99-bad.json: steps\[0\].expect\[0\]"):
        read_lesson(bad)
    bad.write_text(json.dumps({**good, "title": {"en": "Fly"}}))
    with pytest.raises(LessonError, match=r"99-bad\.json: title: needs a text in each of en, hu"):
        read_lesson(bad)


def test_lessons_over_rest(client: Any) -> None:
    listed = client.get("/api/lessons").json()["lessons"]
    assert [x["id"] for x in listed][:2] == ["fly", "drill"]
    assert listed[0]["goal"]["en"] == "Fly to Vesta." and "belt" in listed[0]
    made = client.post("/api/lessons/fly/games")
    assert made.status_code == 201, made.text
    game = made.json()
    goals = client.get(f"/api/games/{game['id']}/goals", params={"lesson": "fly"}).json()
    assert goals["steps"] == [False, False] and goals["goal"] is False
    assert client.post("/api/lessons/nope/games").status_code == 404
    assert client.get(f"/api/games/{game['id']}/goals", params={"lesson": "nope"}).status_code == 404


def test_the_event_history_over_rest(client: Any, two_seats: dict[str, Any]) -> None:
    answer = client.get(f"/api/games/{two_seats['id']}/events")
    assert answer.status_code == 200
    assert answer.json()["steps"] == [] and answer.json()["seq"] == 0
    assert client.get("/api/games/nope/events").status_code == 404


def test_a_lessons_game_is_not_listed_in_the_lobby(client: Any) -> None:
    """A lesson is one person's practice: its game is played as any other but never listed among the games."""
    lesson = client.post("/api/lessons/fly/games").json()
    ordinary = client.post("/api/games", json={"seats": 1}).json()
    listed = [g["id"] for g in client.get("/api/games").json()["games"]]
    assert ordinary["id"] in listed and lesson["id"] not in listed
    assert client.get(f"/api/games/{lesson['id']}").status_code == 200


def test_the_lesson_mark_is_kept_in_the_games_meta() -> None:
    seat = Seat(1, "human", ("s1",), "digest", None)
    meta = GameMeta("classic", "Lesson: Fly", None, "addr", (seat,), "fly")
    assert meta.to_json()["lesson"] == "fly" and GameMeta.from_json(meta.to_json()) == meta
    plain = GameMeta("classic", "tutorial", None, "addr", (seat,))
    assert "lesson" not in plain.to_json() and GameMeta.from_json(plain.to_json()).lesson is None
    with pytest.raises(MetaError, match=r"meta\.lesson: expected a lesson's id or null, not 3"):
        GameMeta.from_json({**meta.to_json(), "lesson": 3})
