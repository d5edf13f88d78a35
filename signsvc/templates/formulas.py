"""Fields whose value is a formula (`preferences.formula`), computed from the other fields' values as the signing
form computes them (pages/static/formulas.js, tested on the same table of cases, tests/files/formula_cases.json).
Saving checks them first (`formula_checks`).

A number field's formula is read by the calculator grammar (`formula_syntax`); a text field's is text in which
each `{{field}}` is replaced by that field's value. A field is referred to by `{{uuid}}`; a formula stored before
saving checked formulas may name a field (`{{Total}}`): it is found as saving would have found it. A formula may
refer to formula fields, up to 10 deep, their heights (`formula_syntax.MAX_HEIGHT`) adding up to at most 200.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from signsvc.templates import formula_calculator as calculator
from signsvc.templates import formula_syntax as syntax
from signsvc.templates.formula_syntax import FormulaError
from storage.shapes import Field

KINDS = ("number", "text")  # the fields that may have a formula
MAX_NESTED = 10  # formulas inside a formula: the one computed, then 10 more at most
REFERENCE = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_LOOP = f"formulas refer to themselves or nest more than {MAX_NESTED} deep"


def formula_of(field: Mapping[str, Any]) -> str | None:
    """The field's formula, if it has one (a blank text is none)."""
    formula = (field.get("preferences") or {}).get("formula")
    return formula if isinstance(formula, str) and formula.strip() else None


def is_formula(field: Mapping[str, Any]) -> bool:
    return field["type"] in KINDS and formula_of(field) is not None


def compute(fields: list[Field], values: Mapping[str, object], uuid: str) -> int | float | str:
    """The value of the formula field `uuid` from the other fields' `values` (their defaults where none): a number
    as stored (`calculator.stored`) or a text; `FormulaError` when it has none."""
    return Computation(fields, values).stored(uuid)


def calculate(expression: str) -> object:
    """The value of an expression without fields, as stored: what `docs/formulas.md` shows for its examples."""
    found = calculator.evaluate(syntax.parse(expression), _no_field)
    return calculator.stored(found) if isinstance(found, float) else found


def _no_field(uuid: str) -> float:
    raise FormulaError(f"{{{{{uuid}}}}} names no field")


class Fields:
    """The fields of a template or submission, found by uuid or, for an older formula, by name (exact, then in any
    case, one field only)."""

    def __init__(self, fields: list[Field]) -> None:
        self.by_uuid = {field["uuid"]: field for field in fields}
        self.by_name: dict[str, list[Field]] = {}
        self.by_folded: dict[str, list[Field]] = {}
        for field in fields:
            if field.get("name"):
                self.by_name.setdefault(field["name"], []).append(field)
                self.by_folded.setdefault(field["name"].casefold(), []).append(field)

    def named(self, reference: str) -> list[Field]:
        """The fields a reference may mean: one, none, or several that share a name."""
        if reference in self.by_uuid:
            return [self.by_uuid[reference]]
        return self.by_name.get(reference) or self.by_folded.get(reference.casefold()) or []

    def find(self, reference: str) -> Field:
        found = self.named(reference)
        if len(found) != 1:
            raise FormulaError(f"{{{{{reference}}}}} names no field")
        return found[0]


class Reading:
    """A formula field's formula read once: its tree (number) or text, its height and its references."""

    def __init__(self, field: Field) -> None:
        self.formula = formula_of(field) or ""
        if field["type"] == "text":
            self.tree: syntax.Tree | None = None
            self.height = 1
            self.references = [found.group(1).strip() for found in REFERENCE.finditer(self.formula)]
        else:
            self.tree, self.height = syntax.read(self.formula)
            self.references = syntax.references(self.tree)


class Computation:
    """One computation over a list of fields: each formula read once and computed once, however many formulas
    refer to it."""

    def __init__(self, fields: list[Field], values: Mapping[str, object]) -> None:
        self.fields = Fields(fields)
        self.values = values
        self.readings: dict[str, Reading] = {}
        self.done: dict[str, float | str] = {}
        self.stack: list[str] = []
        self.height = 0  # the heights of the formulas being computed, one inside the other

    def stored(self, uuid: str) -> int | float | str:
        """The result of the formula field `uuid`, a number as stored."""
        try:
            result = self.result(uuid)
        except RecursionError:  # a backstop: the heights' bound keeps the computation well within the stack
            raise FormulaError(syntax.TOO_DEEP) from None
        return calculator.stored(result) if isinstance(result, float) else result

    def reading(self, field: Field) -> Reading:
        if field["uuid"] not in self.readings:
            self.readings[field["uuid"]] = Reading(field)
        return self.readings[field["uuid"]]

    def references(self, uuid: str) -> Iterator[str]:
        """The uuids of the fields the formula of `uuid` names (none when it cannot be read)."""
        try:
            named = self.reading(self.fields.by_uuid[uuid]).references
        except FormulaError:
            return
        for reference in named:
            found = self.fields.named(reference)
            if len(found) == 1:
                yield found[0]["uuid"]

    def as_stored(self, uuid: str) -> str:
        """The formula of `uuid` with every field it names by name named by uuid."""
        formula = formula_of(self.fields.by_uuid[uuid]) or ""
        return REFERENCE.sub(lambda found: "{{" + self._uuid_of(found.group(1).strip()) + "}}", formula)

    def _uuid_of(self, reference: str) -> str:
        found = self.fields.named(reference)
        return found[0]["uuid"] if len(found) == 1 else reference

    def result(self, uuid: str) -> float | str:
        if uuid in self.done:
            return self.done[uuid]
        if uuid in self.stack or len(self.stack) > MAX_NESTED:
            raise FormulaError(_LOOP)
        reading = self.reading(self.fields.by_uuid[uuid])
        if self.height + reading.height > syntax.MAX_HEIGHT:
            raise FormulaError(syntax.TOO_DEEP)
        self.stack.append(uuid)
        self.height += reading.height
        try:
            found = self._number(reading) if reading.tree is not None else self._text(reading)
        finally:
            self.stack.pop()
            self.height -= reading.height
        self.done[uuid] = found
        return found

    def _number(self, reading: Reading) -> float:
        assert reading.tree is not None
        found = calculator.evaluate(reading.tree, self._number_of)
        if not isinstance(found, float):
            raise FormulaError("the result is not a number")
        return found

    def _text(self, reading: Reading) -> str:
        """The text, each reference replaced, refused as soon as it grows beyond the longest text."""
        parts: list[str] = []
        size, at = 0, 0
        for found in REFERENCE.finditer(reading.formula):
            for part in (reading.formula[at : found.start()], self._text_of(found.group(1).strip())):
                size += len(part)
                if size > calculator.MAX_TEXT:
                    raise FormulaError(f"a text is longer than {calculator.MAX_TEXT} characters")
                parts.append(part)
            at = found.end()
        parts.append(reading.formula[at:])
        if size + len(parts[-1]) > calculator.MAX_TEXT:
            raise FormulaError(f"a text is longer than {calculator.MAX_TEXT} characters")
        return "".join(parts)

    def _value(self, field: Field) -> object:
        if is_formula(field):
            return self.result(field["uuid"])
        value = self.values.get(field["uuid"])
        return field.get("default_value") if value is None else value

    def _number_of(self, reference: str) -> float:
        field = self.fields.find(reference)
        value = self._value(field)
        if value is None or value == "":
            return 0.0
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return _number(value)
        if isinstance(value, str) and is_decimal(value):
            return calculator.checked(float(value))
        raise FormulaError(f"{name_of(field)} is not a number")

    def _text_of(self, reference: str) -> str:
        value = self._value(self.fields.find(reference))
        if isinstance(value, list):
            return ", ".join(_shown(item) for item in value)
        return _shown(value)


def _number(value: int | float) -> float:
    """A number value as a formula sees it: within ±1e15 (an integer beyond any float, too)."""
    if isinstance(value, int) and abs(value) > calculator.LIMIT:
        raise FormulaError(calculator.OUT_OF_RANGE)
    return calculator.checked(float(value))


def _shown(value: object) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return calculator.text(_number(value))
    return calculator.text(value)


def is_decimal(text: str) -> bool:
    return _DECIMAL.fullmatch(text.strip()) is not None


def name_of(field: Mapping[str, Any]) -> str:
    return str(field.get("name") or field["uuid"])
