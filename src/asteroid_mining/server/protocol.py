"""The whole protocol as types: every message and answer of the server, for the browser client's TypeScript.

The server builds its WebSocket messages as plain JSON, since they are sent many times a second; the models here
(with those of `schemas`, `view_schemas` and `action_schemas`) are their reference. `protocol_schema()` is one
JSON Schema document of them all, with the rules' constants a client needs, and
`python -m asteroid_mining.server.protocol` prints it: `make protocol` turns it into `web/src/protocol.ts` with
json-schema-to-typescript (`web/protocol.mjs`), and a test fails when that file is stale. Other tests validate
real messages against these models, so the types cannot drift from what the server sends.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Literal

from pydantic import BaseModel, Field
from pydantic.json_schema import models_json_schema

from ..rules import CARGO_LIMIT, KINDS, MATERIALS, WIN_TARGET
from ..rules.materials import GATES_COST, ROBOT_COST
from .action_schemas import (
    ACT_MODELS,
    ACTION_MODELS,
    CHOICE_HINTS,
    CHOICE_MODELS,
    ActionJson,
    Choices,
    Ref,
    action_slots,
)
from .action_schemas import Refusal as Refusal
from .catalog import Belts, Bots
from .hints import Hint, HintRequest
from .schemas import (
    AbandonGame,
    By,
    CreatedGame,
    CreateGame,
    ErrorBody,
    GameDetail,
    GameEvents,
    GameLog,
    GameSummary,
    Health,
    LessonInfo,
    LessonProgress,
    Lessons,
    Lobby,
    SeatInfo,
    SyncMessage,
)
from .view_schemas import EVENT_MODELS, GameEvent, GameView, Record, ViewDiff, absent


class You(Record):
    """Who the client is: its seat and the settlers it may move."""

    seat: int
    settlers: list[str]


class StateMessage(Record):
    """The whole game: on connecting, and in answer to a `sync` that updates cannot answer."""

    type: Literal["state"]
    seq: int = Field(description="the number of commands played so far")
    game: str
    status: Literal["open", "running", "won", "lost", "abandoned"] = Field(
        description="`abandoned`: a player ended the game, or the server after `max_game_rounds` rounds (its "
        "view's own status stays as the rules left it)")
    you: You | None = Field(description="null for a spectator")
    seats: list[SeatInfo]
    turn_seconds: float | None
    deadline: float | None = Field(description="when (seconds since the epoch) the server plays the turn itself")
    state: GameView
    choices: dict[str, Choices | None] = Field(
        description="the choices of each settler the client may move (none for a spectator, or a client that "
                    "connected with `choices=false`); null for a settler that cannot act now (the view says why)")


class UpdateMessage(Record):
    """One accepted command: to every client, in `seq` order."""

    type: Literal["update"]
    seq: int
    action: ActionJson
    by: By
    ref: Ref | None = absent("the sender's `ref`, to the sender and everyone else")
    events: list[GameEvent]
    diff: ViewDiff
    deadline: float | None
    choices: dict[str, Choices | None] | None = absent(
        "the choices of the client's settlers that changed (null: the settler cannot act now)")


class ErrorMessage(Record):
    """A message or command refused: to its sender only; nothing has changed."""

    type: Literal["error"]
    code: str = Field(description="a refusal code of the engine, or the server's (docs/server.md)")
    params: dict[str, str | int] | None = absent("a refusal's values (an act the rules refuse)")
    message: str
    field: str | None = absent("the field at fault")
    ref: Ref | None = absent("the `ref` of the message answered")
    retry_after: float | None = absent("`rate_limited`: seconds until the connection may send again")


class AckMessage(Record):
    """An `act` whose `ref` its seat had sent before, and that was played then — once, as `seq` (sent again after a
    reconnect, when its answer was lost; on a single server as on a cluster)."""

    type: Literal["ack"]
    ref: Ref
    seq: int = Field(description="the command the act was played as")


class EndedBy(Record):
    """The seat that ended the game."""

    seat: int = Field(description="0: the server ended it, the game having played its `max_game_rounds` rounds")


class EndedMessage(Record):
    """The game ended without a command: a player abandoned it (`POST /api/games/{id}/abandon`), or the server did
    once it had played `max_game_rounds` rounds. The last message of every connection, closed after it with code
    1000; the game is over, as a won or lost one."""

    type: Literal["ended"]
    seq: int = Field(description="the number of commands played: the log ends there")
    status: Literal["abandoned"]
    by: EndedBy


class ReplayStep(Record):
    """One accepted command of a replay: what an `update` carried for it."""

    seq: int
    action: ActionJson
    by: By
    events: list[GameEvent]
    diff: ViewDiff


class Replay(Record):
    """`GET /api/games/{id}/replay`: the view before the first command, and every step after it."""

    id: str
    status: str
    seq: int
    seats: list[SeatInfo]
    belt: str
    state: GameView
    steps: list[ReplayStep]


class Constants(BaseModel):
    """The rules' numbers a client shows (rules/materials.py)."""

    kinds: list[str]
    cargo_limit: int
    win_target: int
    robot_cost: dict[str, int]
    gates_cost: dict[str, int]
    reactive: list[str]
    reactions: dict[str, Literal["explodes", "sublimates"]] = Field(
        description="what each reactive material's exposed core does when the Sun reaches it (R6)")


SERVER_MESSAGES: tuple[type[BaseModel], ...] = (StateMessage, UpdateMessage, ErrorMessage, AckMessage,
                                                EndedMessage)
"""What the server sends over the WebSocket."""
MODELS: tuple[type[BaseModel], ...] = (
    *SERVER_MESSAGES, *ACT_MODELS, SyncMessage, *ACTION_MODELS, *CHOICE_MODELS, Choices, *EVENT_MODELS, Replay,
    CreateGame, CreatedGame, AbandonGame, Lobby, GameSummary, GameDetail, GameLog, GameEvents, Lessons,
    LessonInfo, LessonProgress, Health, ErrorBody, Belts, Bots, HintRequest, Hint,
)
"""Every model of the protocol, in the order the generated file lists them."""


def constants() -> dict[str, Any]:
    """The rules' constants a client needs, from the engine."""
    return Constants(
        kinds=list(KINDS), cargo_limit=CARGO_LIMIT, win_target=WIN_TARGET,
        robot_cost=dict(ROBOT_COST), gates_cost=dict(GATES_COST),
        reactive=[kind for kind in KINDS if MATERIALS[kind].reactive],
        reactions={kind: "sublimates" if MATERIALS[kind].sublimates else "explodes"
                   for kind in KINDS if MATERIALS[kind].reactive},
    ).model_dump()


def actions() -> dict[str, Any]:
    """The settler actions as the client offers them (`action_schemas.action_slots`), and the fields of a choice
    that are hints rather than the action (`CHOICE_HINTS`)."""
    return {"slots": action_slots(), "hints": list(CHOICE_HINTS)}


def protocol_schema() -> dict[str, Any]:
    """One JSON Schema document: every model in `definitions` (with `ServerMessage` and `ClientMessage`, any
    WebSocket message of either side), and the rules' constants (`x-constants`)."""
    _, document = models_json_schema([(model, "serialization") for model in MODELS],
                                     ref_template="#/definitions/{model}")
    defs = document["$defs"]
    defs["ClientMessage"] = {"description": "Any message a client sends over the WebSocket.",
                             "anyOf": [*({"$ref": f"#/definitions/{m.__name__}"} for m in ACT_MODELS),
                                       {"$ref": "#/definitions/SyncMessage"}]}
    defs["ActMessage"] = {"description": "Play one action for one of the seat's settlers.",
                          "anyOf": [{"$ref": f"#/definitions/{m.__name__}"} for m in ACT_MODELS]}
    defs["Action"] = {"description": "A settler's action as updates and logs carry it.",
                      "anyOf": [{"$ref": f"#/definitions/{m.__name__}"} for m in ACTION_MODELS]}
    defs["Choice"] = {"description": "One entry of a settler's choices.",
                      "anyOf": [{"$ref": f"#/definitions/{m.__name__}"} for m in CHOICE_MODELS]}
    defs["GameEvent"] = {"description": "An event as the engine writes it (`event.to_json()`, docs/engine.md): "
                                        "its `type` and its fields.",
                         "anyOf": [{"$ref": f"#/definitions/{m.__name__}"} for m in EVENT_MODELS]}
    named = {frozenset(ref["$ref"] for ref in defs[name]["anyOf"]): name
             for name in ("ActMessage", "Action", "Choice", "GameEvent")}
    for definition in defs.values():
        _name_unions(definition, named)
        _for_typescript(definition)
    defs["ServerMessage"] = {"description": "Any message the server sends over the WebSocket.",
                             "anyOf": [{"$ref": f"#/definitions/{m.__name__}"} for m in SERVER_MESSAGES]}
    return {  # an object at the top, since the generator declares every definition only under one
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Protocol",
        "description": "The WebSocket messages, by who sends them; every other type is declared beside it.",
        "type": "object",
        "properties": {"server": {"$ref": "#/definitions/ServerMessage"},
                       "client": {"$ref": "#/definitions/ClientMessage"}},
        "required": ["server", "client"],
        "additionalProperties": False,
        "definitions": dict(sorted(defs.items())),
        "x-constants": constants(),
        "x-actions": actions(),
    }


def _name_unions(schema: Any, named: dict[frozenset[str], str]) -> None:
    """Refer to a named union (`GameEvent`, `Choice`...) where pydantic wrote its members out in place, so that
    the generated types say `GameEvent[]` rather than the list of every event."""
    if isinstance(schema, list):
        for item in schema:
            _name_unions(item, named)
        return
    if not isinstance(schema, dict):
        return
    for key, value in list(schema.items()):
        if isinstance(value, dict) and "oneOf" in value and "discriminator" in value:
            refs = frozenset(branch.get("$ref", "") for branch in value["oneOf"])
            if refs in named:
                schema[key] = {"$ref": f"#/definitions/{named[refs]}"}
                continue
        _name_unions(value, named)


def _for_typescript(schema: Any, top: bool = True) -> None:
    """Say what json-schema-to-typescript understands: no titles but the models' own (it would make a named type
    of every field), and tuples as draft-07 `items` lists rather than `prefixItems`."""
    if isinstance(schema, list):
        for item in schema:
            _for_typescript(item, top=False)
        return
    if not isinstance(schema, dict):
        return
    if not top:
        schema.pop("title", None)
    if "$ref" in schema:  # a reference with a description beside it would be declared again under a new name
        for key in [k for k in schema if k != "$ref"]:
            del schema[key]
    if "prefixItems" in schema:
        items = schema.pop("prefixItems")
        schema.update(items=items, minItems=len(items), maxItems=len(items))
    for key, value in schema.items():
        if key == "properties":
            for field in value.values():
                _for_typescript(field, top=False)
        elif not key.startswith("x-"):
            _for_typescript(value, top=False)


def main() -> None:
    """Print the protocol's JSON Schema (for `make protocol`)."""
    json.dump(protocol_schema(), sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
