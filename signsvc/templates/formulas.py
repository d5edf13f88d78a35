"""Fields whose value is a formula (`preferences.formula`): checked when a template's fields are saved, and computed
from the other fields' values, as the signing form computes them (pages/static/formulas.js, tested on the same
table of cases, tests/files/formula_cases.json).

A number field's formula is read by the calculator grammar (`formula_syntax`); a text field's is text in which
each `{{field}}` is replaced by that field's value. A field is referred to by `{{uuid}}`; saving also takes
`{{Field name}}` and stores the uuid. A formula may refer to formula fields, up to 10 deep, never to itself.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

from signsvc.infra import errors
from signsvc.templates import formula_calculator as calculator
from signsvc.templates import formula_syntax as syntax
from signsvc.templates.formula_syntax import FormulaError
from storage.shapes import Field

KINDS = ("number", "text")  # the fields that may have a formula
TEXT_SOURCES = ("text", "number", "select", "radio", "cells", "phone")
MAX_NESTED = 10  # formulas inside a formula: the one computed, then 10 more at most
_REFERENCE = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_LOOP = f"formulas refer to themselves or nest more than {MAX_NESTED} deep"


def formula_of(field: Mapping[str, Any]) -> str | None:
    """The field's formula, if it has one (a blank text is none)."""
    formula = (field.get("preferences") or {}).get("formula")
    return formula if isinstance(formula, str) and formula.strip() else None


def is_formula(field: Mapping[str, Any]) -> bool:
    return field["type"] in KINDS and formula_of(field) is not None


# Saving


def checked(fields: list[Field]) -> list[Field]:
    """The fields, each formula's references stored by uuid and its field read-only (the signer never types it);
    a 422 naming the field whose formula cannot be read, names no field or a field of a kind it cannot use, or
    refers to itself (through others or not) or nests formulas more than 10 deep."""
    index = _Names(fields)
    result = [_normalised(field, index) for field in fields]
    by_uuid = {field["uuid"]: field for field in result}
    nesting: dict[str, int] = {}
    for field in result:
        if is_formula(field) and _nesting(field["uuid"], by_uuid, [], nesting) > MAX_NESTED:
            raise _refused(field, f"nests formulas more than {MAX_NESTED} deep")
    return result


def renamed(fields: list[Field], fresh: Mapping[str, str]) -> list[Field]:
    """The fields with the uuids their formulas name replaced by their new ones (a template's copy)."""
    return [_renamed(field, fresh) if formula_of(field) else field for field in fields]


def _renamed(field: Field, fresh: Mapping[str, str]) -> Field:
    formula = formula_of(field) or ""
    changed = _REFERENCE.sub(lambda found: "{{" + fresh.get(found.group(1).strip(), found.group(1)) + "}}", formula)
    return {**field, "preferences": {**field["preferences"], "formula": changed}}


class _Names:
    """Fields by uuid, by name, by name in any case: a reference is tried in that order."""

    def __init__(self, fields: list[Field]) -> None:
        self.by_uuid = {field["uuid"]: field for field in fields}
        self.by_name: dict[str, list[Field]] = {}
        self.by_folded: dict[str, list[Field]] = {}
        for field in fields:
            if field.get("name"):
                self.by_name.setdefault(field["name"], []).append(field)
                self.by_folded.setdefault(field["name"].casefold(), []).append(field)

    def uuid(self, owner: Field, reference: str) -> str:
        if reference in self.by_uuid:
            return reference
        found = self.by_name.get(reference) or self.by_folded.get(reference.casefold()) or []
        if not found:
            raise _refused(owner, f"refers to an unknown field: {{{{{reference}}}}}")
        if len(found) > 1:
            raise _refused(owner, f"refers to {{{{{reference}}}}}, the name of {len(found)} fields: use a uuid")
        return found[0]["uuid"]


def _normalised(field: Field, index: _Names) -> Field:
    preferences = field.get("preferences") or {}
    formula = preferences.get("formula")
    if formula is None:
        return field
    if not isinstance(formula, str):
        raise _refused(field, errors.must_be(str))
    if not formula.strip():
        return field
    if field["type"] not in KINDS:
        raise _refused(field, f"is for number and text fields, not a {field['type']} field")
    if len(formula) > syntax.MAX_LENGTH:
        raise _refused(field, f"is longer than {syntax.MAX_LENGTH} characters")
    if field["type"] == "number":
        _references("number", formula, field)  # read as written: the reason's place is where the writer sees it
    stored = _REFERENCE.sub(lambda found: "{{" + index.uuid(field, found.group(1).strip()) + "}}", formula)
    for uuid in _references(field["type"], stored, field):
        _refuse_source(field, index.by_uuid[uuid])
    return {**field, "readonly": True, "preferences": {**preferences, "formula": stored}}


def references_of(field: Mapping[str, Any]) -> list[str]:
    """The uuids a formula field's formula names (none when it cannot be read)."""
    try:
        return _references(field["type"], formula_of(field) or "")
    except FormulaError:
        return []


def _references(kind: str, formula: str, owner: Field | None = None) -> list[str]:
    if kind == "text":
        return [found.group(1).strip() for found in _REFERENCE.finditer(formula)]
    try:
        return syntax.references(_parsed(formula))
    except FormulaError as error:
        if owner is None:
            raise
        raise _refused(owner, f"cannot be read: {error.message}") from None


def _refuse_source(owner: Field, source: Field) -> None:
    if owner["type"] == "text" and source["type"] not in TEXT_SOURCES:
        raise _refused(
            owner,
            f"refers to {_name(source)}, a {source['type']} field: a text formula may refer to text, number, "
            "select, radio, cells and phone fields",
        )
    if owner["type"] == "number" and not _numeric(source):
        raise _refused(
            owner,
            f"refers to {_name(source)}, a {source['type']} field: a number formula may refer to number fields, "
            "and to radio and select fields whose options are all numbers",
        )


def _numeric(field: Field) -> bool:
    if field["type"] == "number":
        return True
    options = field.get("options") or []
    return field["type"] in ("radio", "select") and bool(options) and all(_is_decimal(o["value"]) for o in options)


def _nesting(uuid: str, by_uuid: dict[str, Field], path: list[str], known: dict[str, int]) -> int:
    """How many formulas deep the formula of `uuid` goes below itself; a 422 for a formula that refers to itself."""
    if uuid in known:
        return known[uuid]
    if uuid in path:
        loop = [*path[path.index(uuid) :], uuid]
        owner = by_uuid[uuid]
        raise _refused(owner, f"refers to itself: {' → '.join(_name(by_uuid[each]) for each in loop)}")
    if len(path) > MAX_NESTED:
        raise _refused(by_uuid[path[0]], f"nests formulas more than {MAX_NESTED} deep")
    path.append(uuid)
    field = by_uuid[uuid]
    deepest = 0
    for reference in _references(field["type"], formula_of(field) or ""):
        if reference in by_uuid and is_formula(by_uuid[reference]):
            deepest = max(deepest, 1 + _nesting(reference, by_uuid, path, known))
    path.pop()
    known[uuid] = deepest
    return deepest


def _refused(field: Mapping[str, Any], problem: str) -> errors.Invalid:
    return errors.Invalid(f"{_name(field)}: preferences.formula {problem}")


# Computing


def compute(fields: list[Field], values: Mapping[str, object], uuid: str) -> int | float | str:
    """The value of the formula field `uuid` from the other fields' `values` (their defaults where none): a number
    as stored (`calculator.stored`) or a text; `FormulaError` when it has none."""
    result = _Computation(fields, values).result(uuid)
    return calculator.stored(result) if isinstance(result, float) else result


def calculate(expression: str) -> object:
    """The value of an expression without fields, as stored: what `docs/formulas.md` shows for its examples."""
    found = calculator.evaluate(_parsed(expression), _no_field)
    return calculator.stored(found) if isinstance(found, float) else found


def _no_field(uuid: str) -> float:
    raise FormulaError(f"{{{{{uuid}}}}} names no field")


class _Computation:
    """One computation: each formula field computed once, however many formulas refer to it."""

    def __init__(self, fields: list[Field], values: Mapping[str, object]) -> None:
        self.fields = {field["uuid"]: field for field in fields}
        self.values = values
        self.done: dict[str, float | str] = {}
        self.stack: list[str] = []

    def result(self, uuid: str) -> float | str:
        if uuid in self.done:
            return self.done[uuid]
        if uuid in self.stack or len(self.stack) > MAX_NESTED:
            raise FormulaError(_LOOP)
        field = self.fields[uuid]
        self.stack.append(uuid)
        try:
            found = self._text(field) if field["type"] == "text" else self._number(field)
        finally:
            self.stack.pop()
        self.done[uuid] = found
        return found

    def _number(self, field: Field) -> float:
        found = calculator.evaluate(_parsed(formula_of(field) or ""), self._number_of)
        if not isinstance(found, float):
            raise FormulaError("the result is not a number")
        return found

    def _text(self, field: Field) -> str:
        found = _REFERENCE.sub(lambda match: self._text_of(match.group(1).strip()), formula_of(field) or "")
        if len(found) > calculator.MAX_TEXT:
            raise FormulaError(f"a text is longer than {calculator.MAX_TEXT} characters")
        return found

    def _source(self, uuid: str) -> Field:
        if uuid not in self.fields:
            raise FormulaError(f"{{{{{uuid}}}}} names no field")
        return self.fields[uuid]

    def _value(self, field: Field) -> object:
        value = self.values.get(field["uuid"])
        return field.get("default_value") if value is None else value

    def _number_of(self, uuid: str) -> float:
        field = self._source(uuid)
        value = self.result(uuid) if is_formula(field) else self._value(field)
        if value is None or value == "":
            return 0.0
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > calculator.LIMIT:
            raise FormulaError(calculator.OUT_OF_RANGE)  # an integer beyond any float, too
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return calculator.checked(float(value))
        if isinstance(value, str) and _is_decimal(value):
            return calculator.checked(float(value))
        raise FormulaError(f"{_name(field)} is not a number")

    def _text_of(self, uuid: str) -> str:
        field = self._source(uuid)
        value = self.result(uuid) if is_formula(field) else self._value(field)
        if isinstance(value, list):
            return ", ".join(_shown(item) for item in value)
        return _shown(value)


def _shown(value: object) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return calculator.text(float(value))
    return calculator.text(value)


@functools.lru_cache(maxsize=256)
def _parsed(formula: str) -> syntax.Tree:
    return syntax.parse(formula)


def _is_decimal(text: str) -> bool:
    return _DECIMAL.fullmatch(text.strip()) is not None


def _name(field: Mapping[str, Any]) -> str:
    return str(field.get("name") or field["uuid"])
