"""The variables of the send form: one input for each entry of the template's `variables_schema` (by its type:
text, number, a checkbox for a boolean, date; JSON text for an array or an object), read back into the
submission's `variables` as `POST /api/submissions` takes them. The variables are in the order of their names
(a schema stored by Postgres keeps no order of its own), an input's id their position in it (`variable-0`), so
that any variable name makes a valid id."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from multidict import MultiDictProxy

from signsvc.http.web.console.forms import text
from signsvc.infra import errors

# The input each type of entry is shown as; any other type is text.
KINDS = {"number": "number", "boolean": "checkbox", "date": "date", "array": "array", "object": "object"}
# The JSON an array's or an object's text must be, and the catalogue key of the message when it is not.
JSON_KINDS = {
    "array": (list, "console.send.variables.not_array"),
    "object": (dict, "console.send.variables.not_object"),
}


@dataclass(frozen=True)
class Variable:
    """A variable's input as shown and as posted: its value as typed ("on" for a ticked box)."""

    name: str
    kind: str  # text, number, checkbox, date, array or object
    required: bool
    value: str = ""
    description: str = ""


class Unreadable(Exception):
    """A value the form cannot turn into the variable's type: the input's id and the catalogue key saying why."""

    def __init__(self, input_id: str, key: str) -> None:
        super().__init__(key)
        self.input_id, self.key = input_id, key


def input_id(index: int) -> str:
    return f"variable-{index}"


def blank(schema: dict[str, Any]) -> list[Variable]:
    return [_variable(name, schema[name], "") for name in sorted(schema)]


def posted(schema: dict[str, Any], form: MultiDictProxy[Any]) -> list[Variable]:
    return [
        _variable(name, schema[name], text(form, input_id(index), strip=False))
        for index, name in enumerate(sorted(schema))
    ]


def values(variables: list[Variable]) -> dict[str, Any]:
    """The `variables` of the submission: every filled input as its type, a box as true or false; an
    `Unreadable` for a number or JSON text that is not one."""
    found: dict[str, Any] = {}
    for index, variable in enumerate(variables):
        typed = variable.value.strip()
        if variable.kind == "checkbox":
            found[variable.name] = typed == "on"
        elif typed:
            found[variable.name] = _typed(variable.kind, typed, input_id(index))
    return found


def input_of(schema: dict[str, Any], location: errors.Location) -> str | None:
    """The input of the variable a refusal is about (`variables.company.name`: the `company` input)."""
    match location:
        case ("variables", str(name), *_) if name in schema:
            return input_id(sorted(schema).index(name))
    return None


def _variable(name: str, entry: Any, value: str) -> Variable:
    entry = entry if isinstance(entry, dict) else {}
    description = entry.get("description")
    return Variable(
        name,
        KINDS.get(str(entry.get("type")), "text"),
        entry.get("required") is True,
        value,
        description if isinstance(description, str) else "",
    )


def _typed(kind: str, typed: str, at: str) -> Any:
    if kind == "number":
        return _number(typed, at)
    if kind in JSON_KINDS:
        try:
            value = json.loads(typed)
        except (ValueError, RecursionError):
            value = None
        expected, problem = JSON_KINDS[kind]
        if not isinstance(value, expected):
            raise Unreadable(at, problem)
        return value
    return typed


def _number(typed: str, at: str) -> int | float:
    try:
        return int(typed)
    except ValueError:
        pass
    try:
        number = float(typed)
    except ValueError:
        number = math.nan
    if not math.isfinite(number):
        raise Unreadable(at, "console.send.variables.not_number")
    return number
