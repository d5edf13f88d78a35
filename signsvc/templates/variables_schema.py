"""A template's `variables_schema`: the variables its DOCX documents read, JSON-schema-like, as creation finds them
(`docx_variables.variables_schema`) or as `PUT /templates/{id}` sets them; and the check that a submission gives
the variables the schema marks `"required": true`.

    {"name": {"type": "string", "required": true},
     "items": {"type": "array", "items": {"type": "object", "properties": {"price": {"type": "number"}}}}}

An entry has a `type` (string, number, boolean, date, array, object) and may have `required` (a boolean),
`properties` (an object's entries), `items` (an array's element entry); other keys (`form_type`, `format`,
`default_value`, `options`, `description`...) are kept as given.

A template made of several (`POST /templates/merge`) has the `union` of their schemas.
"""

from __future__ import annotations

from typing import Any

from signsvc.infra import errors, json_fields
from signsvc.templates.docx_variables.schema import merged

TYPES = ("string", "number", "boolean", "date", "array", "object")


def checked(raw: Any, where: errors.Location = ("variables_schema",)) -> dict[str, Any]:
    """The schema `PUT /templates/{id}` sets, or a 422 naming what is wrong and where."""
    if not isinstance(raw, dict):
        raise errors.at(where, "must be an object of variables by name")
    if (problem := json_fields.free_object_problem(raw)) is not None:
        raise errors.at(where, problem)
    for name, entry in raw.items():
        _check_entry(entry, (*where, name))
    return raw


def _check_entry(entry: Any, where: errors.Location) -> None:
    if not isinstance(entry, dict):
        raise errors.at(where, "must be an object with a type")
    if entry.get("type") not in TYPES:
        raise errors.at((*where, "type"), f"must be one of {', '.join(TYPES)}")
    if "required" in entry and not isinstance(entry["required"], bool):
        raise errors.at((*where, "required"), "must be true or false")
    if "properties" in entry:
        checked(entry["properties"], (*where, "properties"))
    if "items" in entry:
        _check_entry(entry["items"], (*where, "items"))


def union(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    """Every variable of the schemas, in order. A variable several name: the wider type's entry (array and object
    over number, boolean and date, those over string; on a tie the first schema's), its properties and its
    elements' entry merged alike, required when any marks it required."""
    found: dict[str, Any] = {}
    for schema in schemas:
        found = merged(found, schema)
    return found


def require(schema: dict[str, Any], variables: dict[str, Any]) -> None:
    """A 422 naming the first variable the schema marks required that `variables` does not give (missing, null or
    empty text); an object's required properties are checked when the object is given."""
    missing = _missing(schema, variables, ("variables",))
    if missing:
        raise errors.at(missing, "is required by the template's variables_schema")


def _missing(schema: dict[str, Any], given: dict[str, Any], where: errors.Location) -> errors.Location | None:
    for name, entry in schema.items():
        if not isinstance(entry, dict):
            continue
        value = given.get(name)
        if entry.get("required") is True and (value is None or (isinstance(value, str) and not value.strip())):
            return (*where, name)
        inner = entry.get("properties")
        if isinstance(value, dict) and isinstance(inner, dict) and (found := _missing(inner, value, (*where, name))):
            return found
    return None
