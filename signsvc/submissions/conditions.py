"""Conditions: whether a field (or a whole document) applies, given the values entered so far.

The signing form runs the same rules in the browser (pages/static/conditions.js); both answer the cases of
tests/files/condition_cases.json. A list of conditions folds left to right: a condition with `operation: "or"`
joins the one before it, any other starts a new term, and every term must hold, so OR binds tighter than AND
(`[A, B or, C]` is `(A or B) and C`). A field hidden by its conditions counts as having no value for the
conditions that name it (transitive hiding), and so does a field all of whose areas lie on hidden documents.
Pure: values in, field uuids out.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from decimal import Decimal
from typing import Any

from storage.shapes import Condition, Field

ACTIONS = (
    "checked",
    "unchecked",
    "equal",
    "not_equal",
    "contains",
    "does_not_contain",
    "empty",
    "not_empty",
    "greater_than",
    "less_than",
)
WITH_VALUE = frozenset({"equal", "not_equal", "contains", "does_not_contain", "greater_than", "less_than"})
OPTION_TYPES = frozenset({"select", "radio", "multiple"})
EPSILON = 1e-9
_BLANK = " \t\n\r\f\v"
_NUMBER = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


class Visibility:
    """Which fields and documents apply for `values` (by field uuid; a field without one counts its default)."""

    def __init__(
        self, fields: Iterable[Field], values: Mapping[str, object], documents: Iterable[Mapping[str, Any]] = ()
    ) -> None:
        self.fields = {field["uuid"]: field for field in fields}
        self.values = values
        self.documents = {str(d.get("uuid")): list(d.get("conditions") or []) for d in documents}
        self._known: dict[str, bool] = {}

    def hidden_fields(self) -> list[str]:
        """The uuids of the fields that do not apply, in field order."""
        return [uuid for uuid in self.fields if not self.field_applies(uuid)]

    def hidden_documents(self) -> list[str]:
        return [uuid for uuid in self.documents if not self.document_applies(uuid)]

    def field_applies(self, uuid: str) -> bool:
        return self._resolved(f"field:{uuid}")

    def document_applies(self, uuid: str) -> bool:
        return self._resolved(f"document:{uuid}")

    def _resolved(self, key: str) -> bool:
        """Whether `key` applies, found without recursion: a depth-first walk over what it depends on, each node
        decided once all it depends on is. A node met again while its own walk is under way (a cycle, refused
        when saved) counts as not applying for the one that met it, as the form counts it."""
        if key in self._known:
            return self._known[key]
        under_way: set[str] = set()
        stack: list[tuple[str, bool]] = [(key, False)]
        while stack:
            node, ready = stack.pop()
            if node in self._known:
                continue
            if ready:
                self._known[node] = self._decided(node)
                under_way.discard(node)
                continue
            if node in under_way:
                continue
            under_way.add(node)
            stack.append((node, True))
            stack += [(each, False) for each in reversed(self._depends(node)) if each not in self._known]
        return self._known[key]

    def _depends(self, node: str) -> list[str]:
        kind, uuid = node.split(":", 1)
        if kind == "document":
            return [
                f"field:{c.get('field_uuid')}"
                for c in self.documents.get(uuid, [])
                if c.get("field_uuid") in self.fields
            ]
        field = self.fields[uuid]
        named = [
            f"field:{c.get('field_uuid')}" for c in field.get("conditions") or [] if c.get("field_uuid") in self.fields
        ]
        return named + [f"document:{each}" for each in _area_documents(field)]

    def _decided(self, node: str) -> bool:
        kind, uuid = node.split(":", 1)
        if kind == "document":
            return holds(self.documents.get(uuid, []), self._condition_holds)
        field = self.fields[uuid]
        on_documents = _area_documents(field)
        return holds(field.get("conditions") or [], self._condition_holds) and (
            not on_documents or any(self._known.get(f"document:{each}", False) for each in on_documents)
        )

    def _condition_holds(self, condition: Condition) -> bool:
        field = self.fields.get(str(condition.get("field_uuid")))
        value = self._value(field) if field is not None else None
        return action_holds(condition, field, value)

    def value_of(self, field: Field) -> object:
        """The field's value as conditions read it: none while the field itself does not apply."""
        self.field_applies(field["uuid"])
        return self._value(field)

    def _value(self, field: Field) -> object:
        # Read while deciding: what the field depends on is decided; a field still under way (a cycle) has none.
        if not self._known.get(f"field:{field['uuid']}", False):
            return None
        value = self.values.get(field["uuid"])
        return field.get("default_value") if value is None else value


def holds(conditions: list[Condition], check: Callable[[Condition], bool]) -> bool:
    """Whether a list of conditions holds: OR joins a condition to the one before it, the terms are ANDed."""
    terms: list[bool] = []
    for condition in conditions:
        result = check(condition)
        if condition.get("operation") == "or" and terms:
            terms[-1] = terms[-1] or result
        else:
            terms.append(result)
    return all(terms)


def action_holds(condition: Condition, field: Field | None, value: object) -> bool:
    action, expected = condition.get("action"), condition.get("value")
    kind = field["type"] if field is not None else ""
    if action in ("empty", "unchecked"):
        return is_blank(value)
    if action in ("not_empty", "checked"):
        return not is_blank(value)
    if action in ("equal", "contains", "not_equal", "does_not_contain"):
        return _compares(action, kind, field, value, expected)
    if action in ("greater_than", "less_than"):
        a, b = number_of(value), number_of(expected)
        if a is None or b is None:
            return False
        return a > b if action == "greater_than" else a < b
    return True  # an action this service does not know (never stored: refused when saved)


def _compares(action: str, kind: str, field: Field | None, value: object, expected: object) -> bool:
    negated = action in ("not_equal", "does_not_contain")
    if kind == "number" and action in ("equal", "not_equal"):
        a, b = number_of(value), number_of(expected)
        if a is None or b is None:
            return False
        return (abs(a - b) < EPSILON) != negated
    if kind in OPTION_TYPES and field is not None:
        return (option_text(field, expected) in _texts(value)) != negated
    return False if negated else text_of(expected) in _texts(value)


def option_text(field: Field, wanted: object) -> str | None:
    """The text of the option a condition names by uuid (an option without text reads "Option <n>")."""
    for index, option in enumerate(field.get("options", [])):
        if option.get("uuid") == wanted:
            return option.get("value") or f"Option {index + 1}"
    return text_of(wanted)


def _texts(value: object) -> list[str | None]:
    if is_blank(value):
        return []
    return [text_of(item) for item in (value if isinstance(value, list) else [value])]


def text_of(value: object) -> str | None:
    """A value as text, the same in the browser: true/false, whole numbers without a point."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and abs(value) < 10**21:
        return str(value)
    if isinstance(value, (int, float)) and math.isfinite(value):
        return _as_script_writes(float(value))
    return value if isinstance(value, str) else None


def _as_script_writes(number: float) -> str:
    """A number as the browser's String(number) writes it: the shortest digits, in plain notation from 1e-7 up to
    1e21 (exclusive), else as `1.5e+21` / `1e-7`."""
    if number == 0:
        return "0"
    if number < 0:
        return "-" + _as_script_writes(-number)
    _, digit_tuple, exponent = Decimal(repr(number)).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    point = len(digits) + int(exponent)  # the number is 0.<digits> times 10 ** point
    if len(digits) <= point <= 21:
        return digits + "0" * (point - len(digits))
    if 0 < point <= 21:
        return f"{digits[:point]}.{digits[point:]}"
    if -6 < point <= 0:
        return "0." + "0" * -point + digits
    mantissa = digits[0] + (f".{digits[1:]}" if len(digits) > 1 else "")
    return f"{mantissa}e{'+' if point - 1 >= 0 else '-'}{abs(point - 1)}"


def number_of(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str) and _NUMBER.fullmatch(text := value.strip(_BLANK)):
        number = float(text)
        return number if math.isfinite(number) else None
    return None


def is_blank(value: object) -> bool:
    if isinstance(value, str):
        return not value.strip(_BLANK)
    return value is None or value is False or value == [] or value == {}


def _area_documents(field: Field) -> list[str]:
    return [area["attachment_uuid"] for area in field.get("areas", []) if area.get("attachment_uuid")]


def hidden_fields(
    fields: Iterable[Field], values: Mapping[str, object], documents: Iterable[Mapping[str, Any]] = ()
) -> set[str]:
    """The uuids of the fields that do not apply for `values`."""
    return set(Visibility(fields, values, documents).hidden_fields())
