"""Actions in the protocol, derived from the engine's action specs (`rules.ACTION_SPECS`), and choices.

An action's fields are said once, by the engine's rule of that action: the `act` message a client sends, the
action as updates and logs carry it, and the entry of `choices` are models built here from each spec, and the
one decoder of actions is the engine's `action_from_json`. A new action needs no edit to the server.
"""

from __future__ import annotations

from functools import reduce
from operator import or_
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, create_model

from ..rules import ACTION_SPECS, ActionSpec
from .view_schemas import Record, absent

Ident = Annotated[StrictStr, Field(min_length=1, max_length=64)]
"""An id as clients send it."""
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
"""The range of every whole number the server takes in a message: what its JSON encoder and its store hold."""
Ref = Annotated[StrictStr, Field(max_length=64)] | Annotated[StrictInt, Field(ge=INT64_MIN, le=INT64_MAX)]
"""A client's reference for a message, echoed in the answer: a short string or a 64-bit whole number (a larger
one could be stored with its action and then not be sent to anyone)."""

SETTLER_SPECS: tuple[ActionSpec, ...] = tuple(spec for spec in ACTION_SPECS if "settler" in spec.actors)
"""The actions a settler can take (robots and UFOs act by themselves, R13, E2)."""
SPEC_OF: dict[str, ActionSpec] = {spec.name: spec for spec in SETTLER_SPECS}
"""Each settler action's spec by its name."""
ARGUMENTS: frozenset[str] = frozenset(field.name for spec in SETTLER_SPECS for field in spec.fields)
"""Every field any settler action takes besides `type` and `actor`."""


def action_slots() -> list[dict[str, Any]]:
    """Every settler action for the client: its name, the key of its button on the action bar (null: no button;
    `Rule.key`, which the engine holds to one letter each), its fields, in the bar's order (the order the
    engine offers them, `Rule.offered`). `make protocol` writes them into the client's generated action table
    (web/src/generated/actions.ts)."""
    return [{"name": spec.name, "key": spec.key, "fields": [field.name for field in spec.fields]}
            for spec in SETTLER_SPECS]


def pascal(name: str) -> str:
    """`build_robot` → `BuildRobot`."""
    return "".join(part.capitalize() for part in name.split("_"))


def _union(models: list[type[BaseModel]], discriminator: str) -> Any:
    """The discriminated union of `models` (a single model as it is)."""
    if len(models) == 1:
        return models[0]
    return Annotated[reduce(or_, models), Field(discriminator=discriminator)]


def _first_lower(text: str) -> str:
    return text[:1].lower() + text[1:]


# ----- client → server: act -----
class ActBase(BaseModel):
    """What every `act` message has: play one action for one of the seat's settlers."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["act"]
    settler: Ident = Field(description="the settler that acts: one of the seat's")
    action: str
    ref: Ref | None = absent("echoed in the answer (the update or the error), for the client's bookkeeping")

    def arguments(self) -> dict[str, str]:
        """The action's own fields that were given (as the engine's action JSON has them)."""
        out: dict[str, str] = {}
        for field in SPEC_OF[self.action].fields:
            value = getattr(self, field.name)
            if value is not None:
                out[field.name] = value
        return out


def _act_model(spec: ActionSpec) -> type[ActBase]:
    fields: dict[str, Any] = {"action": (Literal[spec.name], ...)}
    for field in spec.fields:
        if field.required:
            fields[field.name] = (Ident, Field(description=field.meaning))
        else:
            fields[field.name] = (Ident | None, absent(field.meaning))
    return create_model(f"Act{pascal(spec.name)}", __base__=ActBase, __doc__=spec.doc, **fields)


ACT_MODELS: tuple[type[ActBase], ...] = tuple(_act_model(spec) for spec in SETTLER_SPECS)
"""One `act` message model per settler action."""
ActMessage: Any = _union(list(ACT_MODELS), "action")
"""An `act` message (one of `ACT_MODELS`, by its `action`)."""


# ----- an action as updates and logs carry it (`action.to_json()`) -----
def _action_model(spec: ActionSpec) -> type[BaseModel]:
    fields: dict[str, Any] = {"type": (Literal[spec.name], ...), "actor": (str, ...)}
    for field in spec.fields:
        if field.required:
            fields[field.name] = (str, Field(description=field.meaning))
        else:
            fields[field.name] = (str | None, Field(None, description=field.meaning))
    return create_model(f"{pascal(spec.name)}Action", __base__=Record, __doc__=spec.doc, **fields)


ACTION_MODELS: tuple[type[BaseModel], ...] = tuple(_action_model(spec) for spec in SETTLER_SPECS)
"""One model per settler action, as the engine writes it (`Action.to_json()`)."""
ActionJson: Any = _union(list(ACTION_MODELS), "type")
"""A settler's action as the engine writes it."""


# ----- choices (`Game.choices(settler).to_json()`) -----
class Refusal(Record):
    """Why the rules refuse an action: a stable `code` and the values its sentence needs.

    The codes and their params are listed in docs/engine.md; a client words the refusal from `code` and `params`
    (the choices' refusals carry nothing else; an `error` adds the English sentence as its `message`).
    """

    code: str
    params: dict[str, str | int]
    message: str | None = absent("the English sentence (the engine's `Refusal.to_json()`; the server's choices "
                                 "leave it out)")


class Danger(Record):
    """A drill that would expose a reactive core near the Sun: now (`in_rounds` 0) or in `in_rounds` rounds."""

    core: Literal["ice", "uranium"]
    in_rounds: int


class Reaction(Record):
    """An exposed reactive core that will react at the end of the round `in_rounds` from now (0: this one)."""

    core: Literal["ice", "uranium"]
    effect: Literal["explodes", "sublimates"]
    in_rounds: int


class StormOutlook(Record):
    """A forecast storm as it concerns a settler: it hits at the end of `round`; `in_path` when it covers the
    settler's asteroid, `sheltered` when that asteroid is a shelter (drilled through and hollow)."""

    round: int
    in_rounds: int
    in_path: bool
    sheltered: bool


CHOICE_HINTS: tuple[str, ...] = ("refusal", "danger")
"""The fields of a choice that are hints for the player, not part of the action: a client sends the rest back as
its `act`, exactly as the server offered it."""


def _choice_model(spec: ActionSpec) -> type[BaseModel]:
    fields: dict[str, Any] = {"action": (Literal[spec.name], ...)}
    for field in spec.fields:
        if field.required:
            fields[field.name] = (str, Field(description=field.meaning))
        else:
            fields[field.name] = (str | None, absent(field.meaning))
    hints: dict[str, Any] = {
        "refusal": (Refusal | None, Field(description="null when the rules accept the action now")),
        "danger": (Danger | None, absent("what the action would set off near the Sun (a drill), and when")),
    }
    fields.update((name, hints[name]) for name in CHOICE_HINTS)
    return create_model(f"{pascal(spec.name)}Choice", __base__=Record,
                        __doc__=f"Whether the settler may {_first_lower(spec.doc)}", **fields)


CHOICE_MODELS: tuple[type[BaseModel], ...] = tuple(_choice_model(spec) for spec in SETTLER_SPECS)
"""One model per settler action, for its entries of `choices`."""
ChoiceEntry: Any = _union(list(CHOICE_MODELS), "action")
"""One entry of `choices`."""

Choices: Any = create_model(
    "Choices",
    __base__=Record,
    __doc__="Every action a settler could take now, legal or refused, in a stable order, with the hints a "
            "player needs (`Game.choices`). The server sends the choices of a settler that may act now; for one "
            "that cannot (not its turn, dead, the game over) it sends null.",
    settler=(str, ...),
    round=(int, ...),
    refusal=(Refusal | None, Field(description="why the settler cannot act now (every entry would be refused with "
                                               "it), or null when it may")),
    choices=(list[ChoiceEntry], Field(description="every action it could take, legal or refused; empty when "
                                                  "`refusal` is not null")),
    reactions=(dict[str, Reaction], Field(description="the settler's asteroid and each asteroid one move away "
                                                      "whose exposed reactive core will react")),
    storms=(list[StormOutlook], Field(description="every storm forecast")),
)
"""The choices of one settler."""
