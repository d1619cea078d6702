"""The guided tutorial and the puzzles: lessons are data files (`server/lessons/*.json`), each a belt plus goals
written as scenario-language expectations (`s1.at == Vesta`), checked by the server with the scenario checks.

- `GET /api/lessons`: every lesson and puzzle, in order, without its belt (titles, goals, hints, par).
- `POST /api/lessons/{id}/games`: a new game of that lesson (its belt, seats, bots, options and seed).
- `GET /api/games/{id}/goals?lesson=ID`: whether each step's expectations and the lesson's goal hold now.

A lesson file: `id`, `kind` (`lesson` or `puzzle`), `order`, `title`, `goal`, `intro` (shown as the lesson
opens), `learned` (the "You learned" summary shown at its end) (each `{"en", "hu"}`),
`par` (rounds), `belt` (a belt document or a shipped belt's name), `seats`, `settlers_per_seat`, `bots`,
`options`, `seed`, `steps` (each a `hint`, an optional `press` — `move:ID`, `drill`, `deposit:ice`, … — the
control the screen highlights, and `expect`: expectations) and `expect` (the lesson's goal).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Query, Request

from ..rules import Game
from ..script.checks import evaluate
from ..script.lexer import ScriptError
from ..script.parser import Expect, parse
from .action_schemas import SPEC_OF
from .errors import ServerError
from .lobby import charge_load, create_charged
from .schemas import CreatedGame, CreateGame

LESSONS = Path(__file__).with_name("lessons")
LANGS = ("en", "hu")
PRESSES: tuple[str, ...] = tuple(SPEC_OF)
"""What a step may ask to press: a settler action, from the engine's specs (as the client's action table)."""

router = APIRouter(prefix="/api")


class LessonError(ValueError):
    """A lesson file that cannot be used; the message names the file and the JSON path."""


@dataclass(frozen=True, slots=True)
class Lesson:
    """One lesson or puzzle: its public description, its game and its parsed goals."""

    id: str
    public: dict[str, Any]
    game: dict[str, Any]
    steps: tuple[tuple[Expect, ...], ...]
    goal: tuple[Expect, ...]


def _texts(doc: dict[str, Any], key: str, where: str) -> dict[str, str]:
    value = doc.get(key)
    if not isinstance(value, dict) or any(not isinstance(value.get(lang), str) or not value[lang] for lang in LANGS):
        raise LessonError(f"{where}: {key}: needs a text in each of {', '.join(LANGS)}")
    return {lang: value[lang] for lang in LANGS}


def _expects(lines: Any, where: str) -> tuple[Expect, ...]:
    if not isinstance(lines, list) or not lines or not all(isinstance(x, str) for x in lines):
        raise LessonError(f"{where}: needs a list of expectations such as \"s1.at == Vesta\"")
    out = []
    for i, text in enumerate(lines):
        try:
            statements = list(parse(f"expect {text}\n"))
        except ScriptError as bad:
            raise LessonError(f"{where}[{i}]: {bad}") from None
        if len(statements) != 1 or not isinstance(statements[0], Expect):
            raise LessonError(f"{where}[{i}]: not one expectation: {text!r}")
        out.append(statements[0])
    return tuple(out)


def read_lesson(path: Path) -> Lesson:
    """A lesson file read and checked; LessonError names the file and the field of any problem."""
    where = path.name
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as bad:
        raise LessonError(f"{where}: {bad}") from None
    if not isinstance(doc, dict):
        raise LessonError(f"{where}: a lesson is a JSON object")
    lesson_id = doc.get("id")
    if not isinstance(lesson_id, str) or not lesson_id:
        raise LessonError(f"{where}: id: needs a name")
    kind = doc.get("kind", "lesson")
    if kind not in ("lesson", "puzzle"):
        raise LessonError(f"{where}: kind: 'lesson' or 'puzzle', not {kind!r}")
    for key in ("order", "par"):
        if not isinstance(doc.get(key), int) or doc[key] < 0:
            raise LessonError(f"{where}: {key}: needs a whole number")
    steps_doc = doc.get("steps")
    if not isinstance(steps_doc, list) or not steps_doc:
        raise LessonError(f"{where}: steps: needs at least one step")
    steps, public_steps = [], []
    for i, step in enumerate(steps_doc):
        at = f"{where}: steps[{i}]"
        if not isinstance(step, dict):
            raise LessonError(f"{at}: a step is an object")
        press = step.get("press")
        if press is not None and (not isinstance(press, str) or press.split(":")[0] not in PRESSES):
            raise LessonError(f"{at}.press: one of {', '.join(PRESSES)} (with ':ID' or ':KIND'), not {press!r}")
        steps.append(_expects(step.get("expect"), f"{at}.expect"))
        public_steps.append({"hint": _texts(step, "hint", at), "press": press})
    game = {key: doc[key] for key in ("belt", "seats", "settlers_per_seat", "bots", "options", "seed") if key in doc}
    try:
        CreateGame(**game)
    except ValueError as bad:
        raise LessonError(f"{where}: the game: {bad}") from None
    public = {"id": lesson_id, "kind": kind, "order": doc["order"], "par": doc["par"],
              "title": _texts(doc, "title", where), "goal": _texts(doc, "goal", where),
              "intro": _texts(doc, "intro", where), "learned": _texts(doc, "learned", where), "steps": public_steps,
              "belt": doc["belt"] if isinstance(doc["belt"], str) else None}
    return Lesson(lesson_id, public, game, tuple(steps), _expects(doc.get("expect"), f"{where}: expect"))


@cache
def lessons() -> dict[str, Lesson]:
    """Every lesson and puzzle shipped, by id, in their order."""
    found = sorted((read_lesson(p) for p in LESSONS.glob("*.json")), key=lambda x: (x.public["order"], x.id))
    return {lesson.id: lesson for lesson in found}


def holds(game: Game, expects: tuple[Expect, ...]) -> bool:
    """Whether every expectation holds in `game` now (one that cannot be asked, of a dead settler, does not, nor
    one of a core the players have not surveyed: R17)."""
    for e in expects:
        if _unsurveyed_core(game, e.path):
            return False
        try:
            ok, _ = evaluate(game, e.path, e.op, e.value)
        except ScriptError:
            return False
        if not ok:
            return False
    return True


def _unsurveyed_core(game: Game, path: tuple[str, ...]) -> bool:
    """Whether `path` reads the core of an asteroid the players do not know (R17). The expectations are judged on
    the whole game, and `GET …/goals` asks them of any game: `Home.core == ice` told whether a `Home` nobody had
    surveyed held ice."""
    if len(path) != 2 or path[1] != "core":
        return False
    asteroid = game.asteroids.get(path[0])
    return asteroid is not None and not asteroid.surveyed and asteroid.mantle > 0


def progress(game: Game, lesson: Lesson) -> dict[str, Any]:
    """Which steps' expectations hold now, and whether the lesson's goal does."""
    return {"lesson": lesson.id, "round": game.round, "status": game.status,
            "steps": [holds(game, s) for s in lesson.steps], "goal": holds(game, lesson.goal)}


def _lesson(lesson_id: str) -> Lesson:
    found = lessons().get(lesson_id)
    if found is None:
        raise ServerError(404, "lesson_not_found", f"there is no lesson {lesson_id!r}")
    return found


@router.get("/lessons")
async def list_lessons() -> dict[str, Any]:
    """Every lesson and puzzle, in order (without their belts)."""
    return {"lessons": [lesson.public for lesson in lessons().values()]}


@router.post("/lessons/{lesson_id}/games", status_code=201, response_model=CreatedGame)
async def new_lesson_game(lesson_id: str, request: Request) -> CreatedGame:
    """A new game of a lesson; the answer holds the seats' tokens, as for any new game. It is not listed in the
    lobby (its meta names the lesson)."""
    lesson = _lesson(lesson_id)
    live, seats = await create_charged(request, CreateGame(**lesson.game), lesson.id)  # (as any new game)
    return CreatedGame(id=live.id, seats=seats)


@router.get("/games/{game_id}/goals")
async def game_goals(game_id: str, request: Request, lesson: str = Query(..., max_length=64)) -> dict[str, Any]:
    """Whether each step of `lesson` and its goal hold in the game now."""
    found = _lesson(lesson)
    await charge_load(request, game_id)  # a finished game is loaded from the store for it
    async with request.app.state.hub.acquire(game_id) as live:  # released however the request ends
        if live is None:
            raise ServerError(404, "game_not_found", f"there is no game {game_id!r}")
        return progress(live.game, found)
