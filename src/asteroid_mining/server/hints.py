"""`POST /api/games/{id}/hint`: what a good player would do now — the planner bot's choice for the settler whose
step it is, with a one-line reason, for the seat that plays that settler.

The planner sees only what the players may know (R17): it is given an `Observation` of a copy of the game, in
which a core nobody has surveyed reads as unknown, so a hint never tells what a hidden core holds. The copy is
made on the event loop (the live game is only ever changed there) and the planner runs on it in a worker thread,
at most `HINT_WORKERS` at once, within `HINT_SECONDS`; its own searches are bounded (`planner.MAX_NODES`). A hint
costs a search of the belt, so asking is rate-limited per address like the replays and logs.

The answer (`Hint`) names the action as updates carry it and a reason as a code with values, which the client
words in the player's language (`hint.reason.<code>` in its translations).
"""

from __future__ import annotations

import asyncio
import importlib
import math
from collections import OrderedDict
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from pydantic import Field

from ..rules import Action, BuildGates, BuildRobot, Drill, Game, Mine, Move, Place, Wait
from ..rules.materials import MATERIALS
from .action_schemas import ActionJson
from .errors import ServerError
from .lobby import BAD_TOKEN, _body_doc, _game, bearer_token, charge_load, client_of, json_body, refuse_unknown_token
from .schemas import ErrorBody, _StrictBody
from .security import TokenBucket
from .view_schemas import Record

router = APIRouter(prefix="/api")

HINT_SECONDS = 5.0
"""How long one hint may take before the answer is `503 hint_unavailable` (its thread then finishes unheard)."""
HINT_WORKERS = 2
"""Hints computed at once on the whole server; more wait their turn (the machine's cores are the game's too)."""
HINT_RATE = 2.0
"""Hints one address may ask for a second, on average."""
HINT_BURST = 10
"""Hints one address may ask for at once."""
HINT_ADDRESSES = 4096
"""Addresses whose buckets are kept (the least recently used forgotten: it then starts with a full bucket)."""

Reason = Literal["hazard", "storm", "gather", "robot", "gates", "place", "collect", "survey", "drill", "mine",
                 "window", "join", "wait"]


class HintRequest(_StrictBody):
    """The body of `POST /api/games/{id}/hint` (or send the token as `Authorization: Bearer TOKEN`)."""

    token: Annotated[str, Field(max_length=256)] | None = Field(
        None, description="The token of the seat that plays the settler whose step it is.")


class Hint(Record):
    """What a good player would do now: the planner bot's choice for the settler whose step it is."""

    settler: str = Field(description="the settler whose step it is")
    seq: int = Field(description="the number of commands played when the hint was made")
    action: ActionJson = Field(description="the action, as updates carry it")
    reason: Reason = Field(description="why, as a code the client words (`hint.reason.<code>`)")
    params: dict[str, str | int] = Field(description="the reason's values (an asteroid, a kind, a count)")


class _Limiter:
    """A token bucket per client address (`HINT_RATE`, `HINT_BURST`)."""

    def __init__(self) -> None:
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def check(self, client: str) -> None:
        bucket = self._buckets.get(client)
        if bucket is None:
            bucket = self._buckets[client] = TokenBucket(HINT_RATE, HINT_BURST)
            if len(self._buckets) > HINT_ADDRESSES:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(client)
        if not bucket.take():
            wait = max(1, math.ceil(1 / HINT_RATE))
            raise ServerError(429, "rate_limited", f"too many hints asked for: at most {HINT_RATE:g} a second from "
                              f"one address; try again in {wait} s", headers={"retry-after": str(wait)})


def _state(request: Request) -> tuple[_Limiter, asyncio.Semaphore]:
    """The app's hint limiter and worker slots (made on first use: the module keeps no state of its own)."""
    app_state = request.app.state
    limiter = getattr(app_state, "hint_limiter", None)
    if limiter is None:
        limiter = app_state.hint_limiter = _Limiter()
        app_state.hint_slots = asyncio.Semaphore(HINT_WORKERS)
    slots: asyncio.Semaphore = app_state.hint_slots
    return limiter, slots


def best_action(game: Game, settler: str) -> tuple[Action, Reason, dict[str, str | int]]:
    """The planner's action for `settler` in `game`, seen as the players see it (R17), and why.

    Raises ServerError 503 when the server has no bots (the ai package is missing).
    """
    try:
        ai: Any = importlib.import_module("asteroid_mining.ai")
    except ImportError:
        raise ServerError(503, "hint_unavailable", "hints are not available on this server (it has no bots)") from None
    bot = ai.make_bot("planner", 0)
    obs = ai.Observation(game)
    action: Action = bot.choose(obs, settler)
    if game.check(action) is not None:  # never show an action the rules refuse
        action = Wait(settler)
    reason, params = _reason(ai, bot, obs, settler, action)
    return action, reason, params


def _reason(ai: Any, bot: Any, obs: Any, settler: str, action: Action) -> tuple[Reason, dict[str, str | int]]:
    """Why the planner chose `action`: the first of its concerns (in its own order of urgency) that holds."""
    me = obs.settler(settler)
    here = obs.asteroid(me.at)
    core = here.core
    target = action.target if isinstance(action, Move) else None
    to: dict[str, str | int] = {"here": here.id}
    if target:
        to["target"] = target
    if here.mantle == 0 and core in MATERIALS and MATERIALS[core].radioactive and obs.reacts_at(here.id) == obs.round:
        return "hazard", to
    if here.storm_round is not None and not here.shelter and not isinstance(action, Wait):
        return "storm", {**to, "rounds": max(0, here.storm_round - obs.round)}
    if isinstance(action, BuildRobot):
        return "robot", to
    if isinstance(action, BuildGates):
        return "gates", to
    if isinstance(action, Place):
        return "place", to
    needs = importlib.import_module("asteroid_mining.ai.team").team_needs(obs)
    if not any(needs.values()) and isinstance(action, Move):
        return "gather", to
    claim = _claim(bot, obs, settler)
    if isinstance(action, Move):
        if claim is not None and claim.target != here.id:
            where = {**to, "goal": claim.target}
            return ("survey", where) if claim.kind is None else ("collect", {**where, "kind": claim.kind})
        return "join", to
    if isinstance(action, Drill):
        return "drill", {**to, "kind": core}
    if isinstance(action, Mine):
        return "mine", {**to, "kind": core}
    if here.mantle == 1 and core != "hollow":
        return "window", {**to, "kind": core}
    return "wait", to


def _claim(bot: Any, obs: Any, settler: str) -> Any:
    """What the planner is heading for with `settler` (its claim), if it says."""
    try:
        return bot._games[obs.key[0]].claims.get(settler)
    except (AttributeError, KeyError, TypeError):  # a planner that keeps its plans otherwise: no goal named
        return None


@router.post("/games/{game_id}/hint", response_model=Hint, openapi_extra=_body_doc(HintRequest, False), responses={
    401: {"model": ErrorBody, "description": "No token was given"},
    403: {"model": ErrorBody, "description": "The token plays no human seat of this game"},
    404: {"model": ErrorBody, "description": "No such game"},
    409: {"model": ErrorBody, "description": "The game is not running, or the step is not this seat's"},
    429: {"model": ErrorBody, "description": "`rate_limited`: this address asked for too many (`Retry-After`)"},
    503: {"model": ErrorBody, "description": "No hint now: no bots on this server, or it took too long"}})
async def game_hint(game_id: str, request: Request) -> Hint:
    """What a good player would do now, for the settler whose step it is, with a seat's token that plays it."""
    body = json_body(request, HintRequest)
    token = body.token if body is not None and body.token is not None else bearer_token(request)
    if token is None:
        raise ServerError(401, "token_required", "send a seat's token: {\"token\": …} or Authorization: Bearer",
                          "token")
    limiter, slots = _state(request)
    # a finished game is loaded from the store to be refused: charged as every read that loads one (it cost 27 ms
    # of CPU on the `large` belt, asked for in a loop with any token)
    await refuse_unknown_token(request, game_id, token)  # (a game let go: told without loading it)
    await charge_load(request, game_id)
    async with _game(request, game_id) as live:
        seat = live.seat_for(token)
        if seat is None or seat.kind != "human":
            raise ServerError(403, "bad_token", BAD_TOKEN, "token")
        limiter.check(client_of(request))
        game = live.game
        settler = game.turn
        if not live.running or settler is None:  # (an abandoned game's engine still says `running`)
            raise ServerError(409, "game_over", f"this game is not running ({live.status})")
        if settler not in seat.settlers:
            raise ServerError(409, "not_your_turn", f"it is {settler}'s step, which this seat does not play")
        seq = live.seq
        # a copy taken here, on the event loop: the live game changes only there, never under the planner
        document = game.to_json()
    async with slots:
        try:
            action, reason, params = await asyncio.wait_for(
                asyncio.to_thread(lambda: best_action(Game.from_json(document), settler)), HINT_SECONDS)
        except TimeoutError:
            raise ServerError(503, "hint_unavailable", "the hint took too long: try again") from None
    return Hint(settler=settler, seq=seq, action=action.to_json(), reason=reason, params=params)
