"""A template's formulas (`preferences.formula`) checked when its fields are saved: each read once, its references
found by uuid or name and stored by uuid, refused (422 naming the field) when it cannot be read, names no field or
a field of a kind it cannot use, refers to itself, or nests too deeply; and all of them together short enough that
reading them never holds the service up."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from signsvc.infra import errors
from signsvc.templates import formula_syntax as syntax
from signsvc.templates import formulas
from signsvc.templates.formula_syntax import FormulaError
from signsvc.templates.formulas import MAX_NESTED, REFERENCE, name_of
from storage.shapes import Field

TEXT_SOURCES = ("text", "number", "select", "radio", "cells", "phone")
MAX_TOTAL = 20_000  # characters of a template's formulas in all, not counting what their references name


@dataclass
class _Checked:
    height: int
    references: list[str]  # uuids


def checked(fields: list[Field]) -> list[Field]:
    """The fields, each formula's references stored by uuid; a 422 naming the field whose formula cannot be read,
    names no field or a field of a kind it cannot use, refers to itself (through others or not), nests formulas more
    than 10 deep or more than 200 operations high; a 422 when the formulas are too long in all."""
    _refuse_too_long(fields)
    index = formulas.Fields(fields)
    found: dict[str, _Checked] = {}
    result = [_normalised(field, index, found) for field in fields]
    known: dict[str, tuple[int, int]] = {}
    for field in result:
        if field["uuid"] in found:
            deep, high = _nesting(field["uuid"], index.by_uuid, found, [], known)
            if deep > MAX_NESTED:
                raise _refused(field, f"nests formulas more than {MAX_NESTED} deep")
            if high > syntax.MAX_HEIGHT:
                raise _refused(field, f"is more than {syntax.MAX_HEIGHT} operations high with the formulas inside it")
    return result


def renamed(fields: list[Field], fresh: Mapping[str, str]) -> list[Field]:
    """The fields with the uuids their formulas name replaced by their new ones (a template's copy)."""
    return [_renamed(field, fresh) if formulas.formula_of(field) else field for field in fields]


def _renamed(field: Field, fresh: Mapping[str, str]) -> Field:
    formula = formulas.formula_of(field) or ""
    changed = REFERENCE.sub(lambda found: "{{" + fresh.get(found.group(1).strip(), found.group(1)) + "}}", formula)
    return {**field, "preferences": {**field["preferences"], "formula": changed}}


def _refuse_too_long(fields: list[Field]) -> None:
    total = sum(syntax.written_length(formula) for field in fields if (formula := formulas.formula_of(field)))
    if total > MAX_TOTAL:
        raise errors.Invalid(
            f"the fields' formulas have {total} characters in all: a template's have at most {MAX_TOTAL} "
            "(not counting the names and uuids inside {{ }})"
        )


def _normalised(field: Field, index: formulas.Fields, found: dict[str, _Checked]) -> Field:
    preferences = field.get("preferences") or {}
    formula = preferences.get("formula")
    if formula is None:
        return field
    if not isinstance(formula, str):
        raise _refused(field, errors.must_be(str))
    if not formula.strip():
        return field
    if field["type"] not in formulas.KINDS:
        return field  # kept as given and not computed: only number and text fields have formulas
    if syntax.written_length(formula) > syntax.MAX_LENGTH:
        raise _refused(field, f"is longer than {syntax.MAX_LENGTH} characters")
    height, named = _read(field, formula)  # as written: the reason's place is where the writer sees it
    uuids = [_uuid(field, index, reference) for reference in named]
    for uuid in uuids:
        _refuse_source(field, index.by_uuid[uuid])
    found[field["uuid"]] = _Checked(height, uuids)
    stored = REFERENCE.sub(lambda each: "{{" + _uuid(field, index, each.group(1).strip()) + "}}", formula)
    return {**field, "preferences": {**preferences, "formula": stored}}


def _read(field: Field, formula: str) -> tuple[int, list[str]]:
    if field["type"] == "text":
        return 1, [each.group(1).strip() for each in REFERENCE.finditer(formula)]
    try:
        tree, height = syntax.read(formula)
    except FormulaError as error:
        raise _refused(field, f"cannot be read: {error.message}") from None
    return height, syntax.references(tree)


def _uuid(owner: Field, index: formulas.Fields, reference: str) -> str:
    found = index.named(reference)
    if not found:
        raise _refused(owner, f"refers to an unknown field: {{{{{reference}}}}}")
    if len(found) > 1:
        raise _refused(owner, f"refers to {{{{{reference}}}}}, the name of {len(found)} fields: use a uuid")
    return found[0]["uuid"]


def _refuse_source(owner: Field, source: Field) -> None:
    if owner["type"] == "text" and source["type"] not in TEXT_SOURCES:
        raise _refused(
            owner,
            f"refers to {name_of(source)}, a {source['type']} field: a text formula may refer to text, number, "
            "select, radio, cells and phone fields",
        )
    if owner["type"] == "number" and not _numeric(source):
        raise _refused(
            owner,
            f"refers to {name_of(source)}, a {source['type']} field: a number formula may refer to number fields, "
            "and to radio and select fields whose options are all numbers",
        )


def _numeric(field: Field) -> bool:
    if field["type"] == "number":
        return True
    options = field.get("options") or []
    return (
        field["type"] in ("radio", "select")
        and bool(options)
        and all(formulas.is_decimal(option["value"]) for option in options)
    )


def _nesting(
    uuid: str, by_uuid: dict[str, Field], found: dict[str, _Checked], path: list[str], known: dict[str, tuple[int, int]]
) -> tuple[int, int]:
    """How many formulas deep the formula of `uuid` goes below itself, and how high it and the formulas inside it
    stand at most, one on top of the other; a 422 for a formula that refers to itself."""
    if uuid in known:
        return known[uuid]
    if uuid in path:
        loop = [*path[path.index(uuid) :], uuid]
        raise _refused(by_uuid[uuid], f"refers to itself: {' → '.join(name_of(by_uuid[each]) for each in loop)}")
    if len(path) > MAX_NESTED:
        raise _refused(by_uuid[path[0]], f"nests formulas more than {MAX_NESTED} deep")
    path.append(uuid)
    deepest, highest = 0, 0
    for reference in found[uuid].references:
        if reference in found:
            deep, high = _nesting(reference, by_uuid, found, path, known)
            deepest, highest = max(deepest, 1 + deep), max(highest, high)
    path.pop()
    known[uuid] = (deepest, found[uuid].height + highest)
    return known[uuid]


def _refused(field: Mapping[str, Any], problem: str) -> errors.Invalid:
    return errors.Invalid(f"{name_of(field)}: preferences.formula {problem}")
