"""The variables a document's tags read, JSON-schema-like:

    {"name": {"type": "string"}, "is_vip": {"type": "boolean"}, "total": {"type": "number"},
     "company": {"type": "object", "properties": {"name": {"type": "string"}}},
     "items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}}}

A value written is a string; a condition's path tested alone a boolean; one compared with a literal has the
literal's type; a loop's path an array, whose elements are objects when the loop reads their parts (`item.name`),
strings when it writes them whole (`item`). A path with parts (`company.name`) is an object. When uses disagree,
array and object win over the plain types, and number, boolean or date over string. Two schemas merge by the
same rule (`merged`); on a tie the first one's entry stays, and an entry either marks `"required": true` is
required.
"""

from __future__ import annotations

from typing import Any

import signsvc.templates.docx_variables.expressions as expressions
from signsvc.templates.docx_variables.tags import Tag

_ITEMS = "[]"  # the step from an array to its elements
_RANK = {None: 0, "string": 1, "number": 2, "boolean": 2, "date": 2, "object": 3, "array": 3}


def of_tags(top: list[Tag]) -> dict[str, Any]:
    schema: dict[str, Any] = {}
    _walk(top, (), schema)
    return schema


def merged(one: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    """Two documents' schemas as one (a template of several documents)."""
    result = {name: dict(entry) for name, entry in one.items()}
    for name, entry in other.items():
        result[name] = _merged_entry(result[name], entry) if name in result else entry
    return result


def _merged_entry(one: dict[str, Any], other: dict[str, Any]) -> dict[str, Any]:
    entry = dict(one) if _RANK.get(one.get("type"), 0) >= _RANK.get(other.get("type"), 0) else dict(other)
    if "properties" in one or "properties" in other:
        entry["properties"] = merged(one.get("properties", {}), other.get("properties", {}))
    if "items" in one and "items" in other:
        entry["items"] = _merged_entry(one["items"], other["items"])
    if one.get("required") is True or other.get("required") is True:
        entry["required"] = True
    return entry


def _walk(tags: list[Tag], loops: tuple[tuple[str, tuple[str, ...]], ...], schema: dict[str, Any]) -> None:
    """`loops`: the names the open loops bind, innermost first, with the steps to their elements."""
    for tag in tags:
        if tag.kind == "value":
            _note(schema, _steps(tag.path, loops), "string")
        elif tag.kind == "if" and tag.condition is not None:
            for path, kind in expressions.paths(tag.condition):
                _note(schema, _steps(path, loops), kind or "string")
        elif tag.kind == "for":
            steps = _steps(tag.path, loops)
            _note(schema, steps, "array")
            _walk(tag.inside, ((tag.element, (*steps, _ITEMS)), *loops), schema)
            continue
        if tag.kind == "if":
            _walk(tag.inside, loops, schema)


def _steps(path: str, loops: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[str, ...]:
    first, *rest = path.split(".")
    bound = next((steps for name, steps in loops if name == first), None)
    return (*bound, *rest) if bound is not None else (first, *rest)


def _note(schema: dict[str, Any], steps: tuple[str, ...], kind: str) -> None:
    """Records that the value at `steps` is used as a `kind`; the steps on the way are objects and arrays."""
    if not steps or steps[0] == _ITEMS:
        return
    entry = schema.setdefault(steps[0], {})
    for step in steps[1:]:
        if step == _ITEMS:
            _set_type(entry, "array")
            entry = entry.setdefault("items", {})
        else:
            _set_type(entry, "object")
            entry = entry.setdefault("properties", {}).setdefault(step, {})
    _set_type(entry, kind)


def _set_type(entry: dict[str, Any], kind: str) -> None:
    current = entry.get("type")
    if current not in ("array", "object") and _RANK[kind] > _RANK[current]:
        entry["type"] = kind
