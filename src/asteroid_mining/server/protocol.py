"""The play protocol as types: what the server sends (the public view, diffs, choices, messages) as pydantic models.

The server builds its WebSocket messages as plain JSON, since they are sent many times a second; these models are
their reference. They give the browser client its TypeScript types (`web/src/protocol.ts`, written by
`make protocol` from `protocol_schema()`), and the tests validate real messages and views against them, so
neither can drift from what the server sends. The client → server messages and the REST bodies are the models of
`schemas`; the actions' and choices' shapes are derived from the engine's action specs (`ACTION_SPECS`), so a
new action needs no edit here.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model
from pydantic.json_schema import models_json_schema

from ..rules import ACTION_SPECS, CARGO_LIMIT, GATE_LIMIT, KINDS, MATERIALS, WIN_TARGET, ActionSpec
from .schemas import (
    ActMessage,
    CreatedGame,
    CreateGame,
    ErrorBody,
    GameDetail,
    GameLog,
    GameView,
    Health,
    Lobby,
    SeatInfo,
    SyncMessage,
    action_model,
    pascal,
)

Ref = str | int
"""The client's `ref` of an `act` or `sync`, echoed in the answer."""


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _absent_not_null(schema: dict[str, Any]) -> None:
    """A field that is left out when it has no value, and never sent as null."""
    branches = schema.pop("anyOf", None)
    if branches is not None:
        rest = [b for b in branches if b.get("type") != "null"]
        if len(rest) == 1:
            schema.update(rest[0])
        else:
            schema["anyOf"] = rest
    schema.pop("default", None)


def absent(description: str) -> Any:
    """The `Field` of a value that messages leave out when there is none (never null)."""
    return Field(None, description=description, json_schema_extra=_absent_not_null)


# ----- refusals and choices (the engine's `Refusal`, `Choices`) -----
class Refusal(_Message):
    """Why the rules refuse an action: a stable code, the values its sentence needs, and the English sentence.

    The codes and their params are listed in docs/engine.md; a client translates from `code` and `params`."""

    code: str
    params: dict[str, str | int]
    message: str


class Danger(_Message):
    """A drill that would expose a reactive core near the Sun: now (`in_rounds` 0) or in `in_rounds` rounds."""

    core: Literal["ice", "uranium"]
    in_rounds: int


class Reaction(_Message):
    """An exposed reactive core that will react at the end of the round `in_rounds` from now (0: this one's)."""

    core: Literal["ice", "uranium"]
    effect: Literal["explodes", "sublimates"]
    in_rounds: int


class StormOutlook(_Message):
    """A forecast storm as it concerns a settler: hits at the end of `round`; `in_path` when it covers the
    settler's asteroid, `sheltered` when that asteroid is a shelter."""

    round: int
    in_rounds: int
    in_path: bool
    sheltered: bool


def _choice_model(spec: ActionSpec) -> type[BaseModel]:
    """One entry of `choices` for the action `spec`: the action's name and arguments, and its refusal."""
    fields: dict[str, Any] = {"action": (Literal[spec.name], ...)}  # type: ignore[valid-type]
    for field in spec.fields:
        if field.required:
            fields[field.name] = (str, Field(description=field.meaning))
        else:
            fields[field.name] = (str | None, absent(field.meaning))
    fields["refusal"] = (Refusal | None, Field(description="null when the rules accept the action now"))
    if spec.name == "drill":
        fields["danger"] = (Danger | None, absent("what the drill would set off, when it would"))
    return create_model(f"{pascal(spec.name)}Choice", __base__=_Message, __doc__=f"Whether to {spec.doc[:1].lower()}"
                        f"{spec.doc[1:]}", **fields)


SETTLER_SPECS = tuple(spec for spec in ACTION_SPECS if "settler" in spec.actors)
"""The actions a settler can be offered (robots and UFOs act by themselves)."""
CHOICE_MODELS = tuple(_choice_model(spec) for spec in SETTLER_SPECS)
Choice = Annotated[Any, Field(discriminator="action")]  # narrowed below: one model per action
Choice = Annotated[  # type: ignore[misc]
    CHOICE_MODELS[0] if len(CHOICE_MODELS) == 1 else _union(CHOICE_MODELS) if False else Any,  # noqa: SIM222
    Field(discriminator="action"),
]
