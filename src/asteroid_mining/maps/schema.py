"""The JSON Schema of the belt format, and the structural check the loader makes with it.

The schema (`belt.schema.json`, shipped in the package; `docs/belt.schema.json` is a copy for readers) describes
the whole format and is what editors and other tools should use. The loader validates the document's
*structure* with it through jsonschema — every top-level field and its type — but checks the elements of the
arrays (`asteroids`, `links`, `gates`) and every id by hand in `checks.py`: jsonschema takes seconds over the
hundreds of thousands of links of a huge belt (and half a millisecond a gate pair), the hand checks a fraction of
that, with the same verdicts (tests hold the two to agreement).
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from importlib import resources
from typing import Any

from .problems import Problem, json_path

SCHEMA_RESOURCE = "belt.schema.json"

_JSON_TYPES = {
    "object": "an object",
    "array": "an array",
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


@cache
def belt_schema() -> dict[str, Any]:
    """The full JSON Schema of the belt format (a fresh copy is not made: do not modify it)."""
    text = resources.files(__package__).joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@cache
def _structure_validator() -> Any:
    from jsonschema import Draft202012Validator

    schema = copy.deepcopy(belt_schema())
    # Elements of the arrays (asteroids, links, gates) and ids are checked by hand (checks.py): see the module
    # docstring.
    del schema["properties"]["asteroids"]["items"]
    del schema["properties"]["links"]["items"]
    del schema["properties"]["gates"]["items"]
    schema["$defs"]["id"] = {"type": "string"}
    return Draft202012Validator(schema)


def json_type(value: object) -> str:
    """The JSON type of a decoded value, for messages (`a string`, `a whole number`, ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def structure_problems(doc: dict[str, Any]) -> list[Problem]:
    """Problems of the document's structure, found with the schema (big arrays' elements excepted)."""
    problems: list[Problem] = []
    for error in _structure_validator().iter_errors(doc):
        problems.extend(_explain(error))
    return sorted(set(problems), key=lambda p: _order(doc, p.path))


def _order(doc: dict[str, Any], path: str) -> tuple[int, str]:
    keys = list(belt_schema()["properties"])
    head = path.split(".")[0].split("[")[0]
    return (keys.index(head) if head in keys else len(keys), path)


def _explain(error: Any) -> list[Problem]:
    """Turn one jsonschema error into sentences for people, each at the path of what is wrong."""
    parts = list(error.absolute_path)
    where = json_path(parts)
    kind, value, instance = error.validator, error.validator_value, error.instance
    if kind == "required":
        return [
            Problem(json_path([*parts, name]), "missing (this field is required)")
            for name in value
            if isinstance(instance, dict) and name not in instance
        ]
    if kind == "additionalProperties" and isinstance(instance, dict):
        known = error.schema.get("properties", {})
        return [Problem(json_path([*parts, name]), "unknown field") for name in instance if name not in known]
    if kind == "type":
        wanted = " or ".join(_JSON_TYPES.get(t, t) for t in ([value] if isinstance(value, str) else value))
        return [Problem(where, f"must be {wanted}, not {json_type(instance)}")]
    if kind == "const":
        return [Problem(where, f"must be {json.dumps(value)}, not {json.dumps(instance)}")]
    if kind == "enum":
        return [Problem(where, f"{instance!r} is not one of {', '.join(map(str, value))}")]
    if kind == "minItems" and value == 1:
        return [Problem(where, "must not be empty")]
    if kind in ("minItems", "maxItems"):
        return [Problem(where, f"must have {'at least' if kind == 'minItems' else 'at most'} {value} items")]
    if kind == "pattern" and parts in (["name"], ["description"]) and isinstance(instance, str):
        at = next(i for i, c in enumerate(instance) if not re.fullmatch(value, c))
        return [Problem(where, f"must not hold control characters nor characters that change the direction of "
                               f"text (U+{ord(instance[at]):04X} at character {at + 1})")]
    if kind == "maxLength":
        return [Problem(where, f"is too long (at most {value} characters)")]
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        relation = {
            "minimum": "at least",
            "exclusiveMinimum": "more than",
            "maximum": "at most",
            "exclusiveMaximum": "less than",
        }[kind]
        return [Problem(where, f"must be {relation} {value}, not {instance}")]
    return [Problem(where, str(error.message))]
