"""The public view (R17) as the server's messages carry it, and its diff, as pydantic models.

The server sends the engine's `Game.view()` as plain JSON (see `diff`); these models describe it for the
generated TypeScript types and for the tests, which validate real views and diffs against them (unknown fields
are errors). They are derived from the records the engine declares beside the functions that write the view
(`rules/view.py`: each field's type and meaning), so a view field needs no edit here. Every message leaves out
each asteroid's `near` and `next_change` (clients derive them from `orbit`, `pinned` and the round;
`diff.with_sun`).
"""

from __future__ import annotations

import ast
from dataclasses import fields as dataclass_fields
from functools import reduce
from importlib import resources
from operator import or_
from typing import Annotated, Any, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, create_model

from ..rules import Event


class Record(BaseModel):
    """A record of the protocol: every field is described, and no other may appear."""

    model_config = ConfigDict(extra="forbid")


def _absent_not_null(schema: dict[str, Any]) -> None:
    """A field left out when it has no value, never sent as null: its schema says only the type."""
    branches = schema.pop("anyOf", None)
    if branches is not None:
        rest = [b for b in branches if b.get("type") != "null"]
        if len(rest) == 1:
            schema.update(rest[0])
        else:
            schema["anyOf"] = rest
    schema.pop("default", None)


def absent(description: str = "") -> Any:
    """The `Field` of a value that messages leave out when there is none (never null)."""
    return Field(None, description=description or None, json_schema_extra=_absent_not_null)


# ----- the view: derived from the records `rules/view.py` declares -----
VIEW_NAMES: Final[dict[str, str]] = {
    "CargoView": "Cargo", "UfoCargoView": "UfoCargo", "OptionsView": "Options", "AsteroidView": "Asteroid",
    "DestroyedAsteroidView": "DestroyedAsteroid", "SettlerView": "SettlerRecord", "RobotView": "RobotRecord",
    "UfoView": "UfoRecord", "GateView": "GateRecord", "ForecastView": "ForecastRecord", "PlayerView": "GameView",
}
"""The protocol's name of each record of the view (the names the client's generated types carry)."""
LEFT_OUT: Final[dict[str, tuple[str, ...]]] = {"AsteroidView": ("near", "next_change")}
"""Fields of the view no message carries: clients derive them from `orbit`, `pinned` and the round
(`diff.with_sun`)."""


def _record_sources(source: str) -> list[tuple[str, str, list[tuple[str, ast.expr, str]]]]:
    """Each typed dict of `source` in order: its name, its docstring, and each field's name, annotation and
    meaning (the string under it, if any)."""
    out: list[tuple[str, str, list[tuple[str, ast.expr, str]]]] = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.ClassDef) or not any(ast.unparse(b) == "TypedDict" for b in node.bases):
            continue
        fields: list[tuple[str, ast.expr, str]] = []
        for item, after in zip(node.body, [*node.body[1:], None], strict=True):
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                meaning = ""
                if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant) \
                        and isinstance(after.value.value, str):
                    meaning = " ".join(after.value.value.split())
                fields.append((item.target.id, item.annotation, meaning))
        out.append((node.name, ast.get_docstring(node) or "", fields))
    return out


def view_models(source: str | None = None) -> dict[str, type[Record]]:
    """A model of each record of the view, by its protocol name: its fields as `rules/view.py` declares them (a
    `NotRequired` one left out when it has no value, never null), but those messages leave out (`LEFT_OUT`).

    Read from the source (`source`: that text instead), as the events are: the compiled engine keeps no
    docstrings. TypeError naming a record that has no name in the protocol."""
    if source is None:
        source = resources.files("asteroid_mining.rules").joinpath("view.py").read_text(encoding="utf-8")
    names: dict[str, Any] = {"Literal": Literal, "list": list, "tuple": tuple, "str": str, "int": int,
                             "bool": bool, "float": float, "None": None}
    models: dict[str, type[Record]] = {}
    for cls, doc, declared in _record_sources(source):
        name = VIEW_NAMES.get(cls)
        if name is None:
            raise TypeError(f"rules/view.py: {cls} has no name in the protocol (server/view_schemas.py VIEW_NAMES)")
        fields: dict[str, Any] = {}
        for field, annotation, meaning in declared:
            if field in LEFT_OUT.get(cls, ()):
                continue
            optional = isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) == "NotRequired"
            if isinstance(annotation, ast.Subscript) and optional:
                annotation = annotation.slice
            kind = eval(ast.unparse(annotation), {"__builtins__": {}}, names)  # names of this table only
            if optional:
                fields[field] = (kind | None, absent(meaning))
            else:
                fields[field] = (kind, Field(description=meaning) if meaning else ...)
        models[name] = names[cls] = create_model(name, __base__=Record, __doc__=doc, **fields)
    return models


VIEW_MODELS: dict[str, type[Record]] = view_models()
"""Each record of the view as messages carry it, by its protocol name (`VIEW_NAMES`)."""
GameView: Any = VIEW_MODELS["GameView"]
"""The public view (R17) of a game, as messages carry it (no `near`, `next_change`: see the module)."""
AsteroidRecord: Any = VIEW_MODELS["Asteroid"] | VIEW_MODELS["DestroyedAsteroid"]
"""An asteroid of the view."""

def _of_view(field: str) -> Any:
    """The type of a field of the view (`GameView`), without its meaning."""
    return GameView.model_fields[field].annotation


_DIFF_FIELDS: dict[str, Any] = {
    **{name: (_of_view(name), ...) for name in ("round", "status", "turn", "winnable")},
    "forecasts": (_of_view("forecasts") | None, absent("the whole list, when it changed")),
    **{name: (_of_view(name) | None, absent()) for name in ("asteroids", "settlers", "robots", "ufos", "gates")},
}
ViewDiff: Any = create_model(
    "ViewDiff",
    __base__=Record,
    __doc__="What changed in the view after a command: the scalars always; a list's changed or new records (whole),\n"
            "and `forecasts` (the whole list), only when they changed.",
    **_DIFF_FIELDS,
)
"""What changed in the view after a command (`diff`)."""


def _event_sources(source: str) -> dict[str, tuple[str, dict[str, str]]]:
    """Each event class's docstring and field annotations, as written in the engine's source (`rules/events.py`).

    The compiled engine keeps only the outer class of an annotation (`str | None` becomes `type`) and no
    docstrings, so both are read from the source the engine is built from: the same whichever build runs.
    """
    out: dict[str, tuple[str, dict[str, str]]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = (ast.get_docstring(node) or "", {
                item.target.id: ast.unparse(item.annotation) for item in node.body
                if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                and "ClassVar" not in ast.unparse(item.annotation)})
    return out


_TYPES = {"str": str, "int": int, "bool": bool, "float": float, "tuple": tuple, "None": None}
"""The names an event field's annotation may use."""


def _event_model(cls: type, doc: str, annotations: dict[str, str]) -> type[Record]:
    """The model of one event class: its `type` and its fields, each always present (null when it has no value:
    `event.to_json()` writes every field)."""
    fields: dict[str, Any] = {"type": (Literal[cls.type], ...)}  # type: ignore[attr-defined]
    for name in (f.name for f in dataclass_fields(cls)):
        if name not in annotations:
            raise TypeError(f"rules/events.py: {cls.__name__}.{name} has no annotation in the source")
        fields[name] = (eval(annotations[name], {"__builtins__": {}}, _TYPES), ...)
    return create_model(f"{cls.__name__}Event", __base__=Record, __doc__=doc, **fields)


def _event_models() -> tuple[type[Record], ...]:
    source = resources.files("asteroid_mining.rules").joinpath("events.py").read_text(encoding="utf-8")
    sources = _event_sources(source)
    return tuple(_event_model(cls, *sources.get(cls.__name__, ("", {}))) for cls in get_args(Event))


EVENT_MODELS: tuple[type[Record], ...] = _event_models()
"""One model per kind of event, derived from the engine's event records (`rules.Event`): a new event needs no
edit here."""
GameEvent: Any = Annotated[reduce(or_, EVENT_MODELS), Field(discriminator="type")]
"""An event as the engine writes it (`event.to_json()`, docs/engine.md): its `type` and its fields."""
