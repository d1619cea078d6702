"""Hypothesis strategies for the values a JSON Schema describes (the subset our schemas use).

Covers what pydantic writes for the server's messages and what the belt schema holds: `type` (one or a list),
`enum`, `const`, `anyOf` / `oneOf`, `$ref` into `$defs`, `properties` / `required` / `additionalProperties` /
`patternProperties` / `propertyNames`, `items` / `prefixItems` / `minItems` / `maxItems`, string `pattern` and
lengths, number bounds. `hints` replace the strategy of a property by its name (ids that exist, say), so that
generated documents reach the code behind validation, not only validation.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
"""Any JSON scalar (finite numbers: the non-finite ones are added by the mutations)."""
ANY_JSON = st.recursive(JSON_SCALARS, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)
"""Any small JSON value."""


def from_schema(schema: dict[str, Any], hints: dict[str, st.SearchStrategy[Any]] | None = None,
                root: dict[str, Any] | None = None) -> st.SearchStrategy[Any]:
    """Values valid (or nearly: cross-field rules are not known to a schema) for `schema`."""
    return _strategy(schema, hints or {}, root or schema, depth=0)


def _strategy(schema: dict[str, Any], hints: dict[str, st.SearchStrategy[Any]], root: dict[str, Any],
              depth: int) -> st.SearchStrategy[Any]:
    if depth > 8:
        return JSON_SCALARS
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return _strategy(root["$defs"][name], hints, root, depth + 1)
    if "const" in schema:
        return st.just(schema["const"])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return st.one_of([_strategy(s, hints, root, depth + 1) for s in schema[key]])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of([_strategy({**schema, "type": k}, hints, root, depth) for k in kind])
    if kind == "object" or "properties" in schema:
        return _object(schema, hints, root, depth)
    if kind == "array":
        return _array(schema, hints, root, depth)
    if kind == "string":
        if "pattern" in schema:
            text = st.from_regex(schema["pattern"], fullmatch=True)
            return text.filter(lambda t: len(t) <= schema.get("maxLength", 10**6))
        return st.text(min_size=schema.get("minLength", 0), max_size=min(schema.get("maxLength", 24), 80))
    if kind == "integer":
        low = schema.get("minimum", -(2**70))
        high = schema.get("maximum", 2**70)
        return st.integers(low, high) | st.sampled_from([low, high])
    if kind == "number":
        low = schema.get("minimum", schema.get("exclusiveMinimum"))
        high = schema.get("maximum", schema.get("exclusiveMaximum"))
        return st.floats(low, high, allow_nan=False, allow_infinity=False,
                         exclude_min="exclusiveMinimum" in schema, exclude_max="exclusiveMaximum" in schema)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    return ANY_JSON


def _object(schema: dict[str, Any], hints: dict[str, st.SearchStrategy[Any]], root: dict[str, Any],
            depth: int) -> st.SearchStrategy[dict[str, Any]]:
    properties = schema.get("properties", {})
    required = set(schema.get("required", ()))
    fields = {name: hints[name] if name in hints else _strategy(sub, hints, root, depth + 1)
              for name, sub in properties.items()}
    extra: st.SearchStrategy[dict[str, Any]] = st.just({})
    if schema.get("patternProperties"):
        pattern, sub = next(iter(schema["patternProperties"].items()))
        extra = st.dictionaries(st.from_regex(pattern, fullmatch=True), _strategy(sub, hints, root, depth + 1),
                                max_size=3)
    elif isinstance(schema.get("additionalProperties"), dict):
        names = st.text(max_size=schema.get("propertyNames", {}).get("maxLength", 16))
        extra = st.dictionaries(names, _strategy(schema["additionalProperties"], hints, root, depth + 1),
                                max_size=3)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out: dict[str, Any] = dict(draw(extra))
        for name, strategy in fields.items():
            if name in required or draw(st.booleans()):
                out[name] = draw(strategy)
        return out

    return build()


def _array(schema: dict[str, Any], hints: dict[str, st.SearchStrategy[Any]], root: dict[str, Any],
           depth: int) -> st.SearchStrategy[list[Any]]:
    if "prefixItems" in schema:
        return st.tuples(*(_strategy(s, hints, root, depth + 1) for s in schema["prefixItems"])).map(list)
    items = schema.get("items", {})
    return st.lists(_strategy(items, hints, root, depth + 1), min_size=schema.get("minItems", 0),
                    max_size=min(schema.get("maxItems", 6), 6))
