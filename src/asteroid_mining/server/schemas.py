"""The server's messages, validated by pydantic: REST bodies and answers, and WebSocket client messages.

Server→client WebSocket messages are built as plain JSON (they are sent many times a second); their shapes are
the models of `protocol`, and documented in `docs/server.md`. The `act` message is derived from the engine's
action specs (`action_schemas`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, TypeAdapter

from .action_schemas import INT64_MAX, ActBase, ActionJson, ActMessage, Ref
from .view_schemas import GameEvent, GameView, absent

OPTION_MAX = 1_000_000
"""The largest number any rule option may be given in a request (each option has its own, smaller limit)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ----- REST -----
class _StrictBody(_Strict):
    """A REST body: no coercion at all (`"5"` is no number, `2.0` no whole number, `true` not 1), as JSON says."""

    model_config = ConfigDict(extra="forbid", strict=True)


class StandIn(_StrictBody):
    """`CreateGame.stand_in`: a bot that plays the turn of a seat that has not acted in time."""

    bot: Annotated[str, Field(min_length=1, max_length=32)] = Field(
        description="A bot's name from `GET /api/bots`.")
    after: float = Field(gt=0, le=86_400, allow_inf_nan=False, description="Seconds a turn may last before the bot "
                         "plays it; the server's `min_turn_seconds` (1 by default) is the least it takes.")


class CreateGame(_StrictBody):
    """The body of `POST /api/games`; every field is optional."""

    seats: StrictInt = Field(1, ge=1, le=8, description="How many players (seats) share the team.")
    settlers_per_seat: StrictInt = Field(3, ge=1, le=6, description="How many settlers each seat plays.")
    belt: Annotated[str, Field(max_length=64)] | dict[str, Any] = Field(
        "tutorial",
        description="A belt's name from `GET /api/belts` (a shipped belt, or a generator preset generated from the "
        "game's seed; a shipped belt wins over a preset of the same name), or a whole belt document. The belt's "
        "recommended options (its storm interval) are set over the rules preset, under `options`.",
    )
    difficulty: Annotated[str, Field(max_length=16)] | None = Field(
        None, description="A difficulty level (`easy`, `normal`, `hard`, `brutal`; `GET /api/belts` lists them): "
        "its belt-generator parameters and recommended options. Null: the belt as it is made.",
    )
    rules: Literal["classic", "extended"] = Field("classic", description="The rules preset.")
    options: dict[Annotated[str, Field(max_length=32)],
                  Annotated[StrictInt, Field(ge=0, le=OPTION_MAX)] | StrictBool] = Field(
        default_factory=dict,
        description="Rule options set one by one over the preset: uranium_fuse, ufos, haywire_gates (true/false), "
        "storm_warning, storm_interval (RULES.md, Options). Turns are always strict.",
    )
    seed: StrictInt | None = Field(None, ge=0, le=INT64_MAX, description="The game's seed (R18); random when left out.")
    turn_seconds: float | None = Field(
        None, gt=0, le=86_400, allow_inf_nan=False,
        description="A settler that has not acted this long waits; null: no timer. The server's "
        "`min_turn_seconds` (1 by default) is the least it takes.",
    )
    bots: dict[Annotated[str, Field(pattern=r"^[1-8]$")], Annotated[str, Field(min_length=1, max_length=32)]] = Field(
        default_factory=dict, description='Seats played by the server: `{"2": "planner"}` (seat → bot name).'
    )
    programs: Annotated[list[Annotated[StrictInt, Field(ge=1, le=8)]], Field(max_length=8)] = Field(
        default_factory=list, description="Seats played by programs over the WebSocket (`[2, 3]`): their "
        "connections have the server's `program_rate_per_second` message budget instead of `rate_per_second`. "
        "When every seat the server does not play is a program's, the game has a turn timer by default "
        "(`program_turn_seconds`).")
    stand_in: StandIn | None = Field(
        None, description="What a silent seat does: the named bot plays a person's or program's turn once it has "
        "not acted for `after` seconds (instead of `turn_seconds`, which makes it wait).")


class AbandonGame(_StrictBody):
    """The body of `POST /api/games/{id}/abandon` (or send the token as `Authorization: Bearer TOKEN`)."""

    token: Annotated[str, Field(max_length=256)] | None = Field(
        None, description="A human seat's token: whoever plays a seat may end the game for everyone.")


class SeatInfo(BaseModel):
    """A seat as everyone may see it (never its token)."""

    seat: int
    kind: Literal["human", "bot"]
    bot: str | None = None
    settlers: list[str]
    connected: int = Field(0, description="Connections currently open with this seat's token.")


class CreatedSeat(BaseModel):
    """A seat as its creator receives it, with the token that plays it."""

    seat: int
    kind: Literal["human", "bot"]
    bot: str | None = None
    token: str | None = Field(description="The seat's secret: whoever has it plays the seat. None for bots.")
    settlers: list[str]
    invite: str | None = Field(
        default=None,
        description="The seat's invite link (`…/#/game/ID?seat=N&token=T`), as the lobby shows it: the program or "
                    "person given it plays the seat. None for bots.")


class CreatedGame(BaseModel):
    """The answer to `POST /api/games`."""

    id: str
    seats: list[CreatedSeat]
    watch: str | None = Field(
        default=None, description="The spectator link (`…/#/watch/ID`): it shows the game to anyone.")


class GameSummary(BaseModel):
    """A game as the lobby lists it."""

    id: str
    status: Literal["open", "running", "won", "lost", "abandoned", "damaged"] = Field(
        description="`abandoned`: a player ended it (`POST /api/games/{id}/abandon`), or the server after "
        "`max_game_rounds` rounds, it is over as won and lost games are; `damaged`: a stored game that cannot be "
        "loaded any more (it is refused, its log kept).")
    seq: int
    round: int
    turn: str | None
    rules: str
    belt: str
    asteroids: int
    turn_seconds: float | None
    created: float
    seats: list[SeatInfo]


class Lobby(BaseModel):
    """The answer to `GET /api/games`: one page of the lobby, open games first, then games in play, then damaged
    ones, each group newest first."""

    games: list[GameSummary]
    total: int = Field(description="how many games the lobby lists (of the `status` asked for, when one is)")
    next: str | None = Field(description="the `cursor` of the next page; null: this page is the last")


class GameDetail(GameSummary):
    """The answer to `GET /api/games/{id}`: the summary and the public view (R17) after command `seq`."""

    state: GameView


class By(BaseModel):
    """Who played a command: a seat, or the server for it (`auto`: its timer ran out, or its bot played)."""

    seat: int
    auto: Literal["timer", "bot"] | None = absent("`timer`: the seat's time ran out; `bot`: its bot played")
    ref: Ref | None = absent("the sender's `ref`, kept with the command so that the command sent again is "
                             "answered with an `ack`, not played twice (docs/server.md)")


class LoggedCommand(BaseModel):
    """One accepted command."""

    seq: int
    action: ActionJson
    by: By
    at: float


class GameLog(BaseModel):
    """The answer to `GET /api/games/{id}/log`: everything `Game.replay` needs, and more."""

    id: str
    belt: dict[str, Any]
    options: dict[str, Any]
    seed: int
    settlers: int
    seats: list[SeatInfo]
    status: str
    seq: int
    commands: list[LoggedCommand]


class EventStep(BaseModel):
    """One accepted command's events, as the `update` for it carried them."""

    seq: int
    by: By
    events: list[GameEvent]


class GameEvents(BaseModel):
    """The answer to `GET /api/games/{id}/events`: every accepted command's events (after `after`), oldest first."""

    id: str
    status: str
    seq: int
    steps: list[EventStep]


class LessonStep(BaseModel):
    """One step of a lesson: its hint in every language, and what it asks the player to press (null: nothing
    in particular)."""

    hint: dict[str, str]
    press: str | None


class LessonInfo(BaseModel):
    """A lesson or puzzle as `GET /api/lessons` lists it: its texts in every language and its steps."""

    id: str
    kind: Literal["lesson", "puzzle"]
    order: int
    par: int = Field(description="the rounds a puzzle can be solved in")
    title: dict[str, str]
    goal: dict[str, str]
    intro: dict[str, str]
    learned: dict[str, str] = Field(description="what the lesson taught, shown at its end")
    steps: list[LessonStep]
    belt: str | None = Field(description="the shipped belt it is played on; null: a belt of its own")


class Lessons(BaseModel):
    """The answer to `GET /api/lessons`: every lesson and puzzle, in order."""

    lessons: list[LessonInfo]


class LessonProgress(BaseModel):
    """The answer to `GET /api/games/{id}/goals?lesson=ID`: which of the lesson's steps hold now, and its goal."""

    lesson: str
    round: int
    status: str
    steps: list[bool]
    goal: bool


class Health(BaseModel):
    """The answer to `GET /api/health`."""

    status: Literal["ok"]


class ErrorDetail(BaseModel):
    """What went wrong: a stable code, a sentence, and the field at fault when there is one."""

    code: str
    message: str
    field: str | None = None


class ErrorBody(BaseModel):
    """Every 4xx/5xx answer of the REST API."""

    error: ErrorDetail


# ----- WebSocket, client → server (`act`: `action_schemas.ActMessage`) -----
class SyncMessage(_Strict):
    """Resend what came after `after` (the seq of the last update the client has)."""

    type: Literal["sync"]
    after: Annotated[StrictInt, Field(ge=0, le=INT64_MAX)]
    ref: Ref | None = None


ClientMessage = Annotated[ActMessage | SyncMessage, Field(discriminator="type")]
"""Any message a client may send."""
CLIENT_MESSAGE: TypeAdapter[ActBase | SyncMessage] = TypeAdapter(ClientMessage)
"""Validates a decoded client message."""
