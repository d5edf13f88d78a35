"""Template roles and fields from API input: checked, then stored as
`{uuid, submitter_uuid, name, type, required, areas: [{x, y, w, h, attachment_uuid, page}] ...}`.

Pages are 1-based in creation input and 0-based in update input; storage keeps them 0-based. Areas are fractions
of the page from its top-left corner; in creation input (where the pages' sizes are known) an area with any of
x, y, w, h above 1 is in PDF points from the page's top-left corner instead, and stored as fractions.
"""

from __future__ import annotations

import uuid as uuids
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, cast

from signsvc.infra import errors, json_fields
from signsvc.templates import field_option_rules, patterns, signature_preferences
from storage.shapes import Area, Field, Option, Role, Validation

FIELD_TYPES = (
    "text",
    "signature",
    "initials",
    "date",
    "number",
    "checkbox",
    "radio",
    "select",
    "multiple",
    "image",
    "file",
    "stamp",
    "cells",
    "phone",
)
WITH_OPTIONS = {"select", "radio", "multiple"}
DEFAULT_ROLE = "First Party"
# Far beyond any real form (long government forms have a few hundred); a template's fields are copied into
# each of its submissions, and the signing form shows them all.
MAX_FIELDS = 1000
_TEXTS: tuple[Literal["title", "description"], ...] = ("title", "description")
_EPSILON = 1e-9


def new_uuid() -> str:
    return str(uuids.uuid4())


class Roles:
    """The template's submitter roles, in order; asking for a role that does not exist adds it."""

    def __init__(self, roles: list[Role] | None = None) -> None:
        self.items: list[Role] = [role.copy() for role in roles or []]

    def uuid_for(self, name: str | None) -> str:
        if name is None:
            if not self.items:
                self.items.append({"name": DEFAULT_ROLE, "uuid": new_uuid()})
            return self.items[0]["uuid"]
        for role in self.items:
            if role["name"].lower() == name.lower():
                return role["uuid"]
        self.items.append({"name": name, "uuid": new_uuid()})
        return self.items[-1]["uuid"]

    def has_uuid(self, role_uuid: str) -> bool:
        return any(role["uuid"] == role_uuid for role in self.items)


@dataclass(frozen=True)
class Page:
    """Where areas may go: a document (by uuid) and how many pages it has; with the size of each page in points
    (width, height, as displayed), areas may also be given in points."""

    document_uuid: str
    page_count: int
    sizes: tuple[tuple[float, float], ...] = ()


def fields(raw: Any, roles: Roles, documents: list[Page], where: errors.Location, *, first_page: int) -> list[Field]:
    """Checked fields; areas name their document by `attachment_uuid` (the first document when absent
    and there is only one choice) and their page counting from `first_page`."""
    if not isinstance(raw, list):
        raise errors.at(where, errors.must_be(list))
    if len(raw) > MAX_FIELDS:
        raise errors.at(where, f"has {len(raw)} fields: a template has at most {MAX_FIELDS}")
    return [field(item, roles, documents, (*where, index), first_page=first_page) for index, item in enumerate(raw)]


def field(raw: Any, roles: Roles, documents: list[Page], where: errors.Location, *, first_page: int) -> Field:
    _require_object(raw, where)
    kind = raw.get("type", "text")
    if kind not in FIELD_TYPES:
        raise errors.at((*where, "type"), f"must be one of: {', '.join(FIELD_TYPES)}")
    role_uuid = raw.get("submitter_uuid")
    if not (isinstance(role_uuid, str) and roles.has_uuid(role_uuid)):
        role_uuid = roles.uuid_for(json_fields.text(raw, "role", where=where))
    result: Field = {
        "uuid": raw["uuid"] if isinstance(raw.get("uuid"), str) and raw["uuid"] else new_uuid(),
        "submitter_uuid": role_uuid,
        "name": json_fields.text(raw, "name", where=where) or "",
        "type": kind,
        "required": json_fields.flag(raw, "required", True, where=where),
        "readonly": json_fields.flag(raw, "readonly", False, where=where),
        "preferences": _object(raw, "preferences", where),
    }
    signature_preferences.check(result["preferences"], kind, (*where, "preferences"))
    field_option_rules.check_preferences(result["preferences"], kind, (*where, "preferences"))
    for key in _TEXTS:
        if (value := json_fields.text(raw, key, where=where)) is not None:
            field_option_rules.check_length(key, value, (*where, key))
            result[key] = value
    if "default_value" in raw and raw["default_value"] is not None:
        result["default_value"] = raw["default_value"]
    if "validation" in raw and raw["validation"] is not None:
        result["validation"] = validation(_object(raw, "validation", where), (*where, "validation"))
    options = _options(raw, kind, where)
    if options is not None:
        result["options"] = options
    if raw.get("conditions") is not None:  # checked against the other fields once all are read: condition_rules
        result["conditions"] = raw["conditions"]
    result["areas"] = _areas(raw.get("areas", []), options, documents, (*where, "areas"), first_page)
    return result


def validation(rules: Mapping[str, object], where: errors.Location) -> Validation:
    """A field's `validation`, its `pattern` (if any) in the syntax `patterns` accepts."""
    pattern = rules.get("pattern")
    if pattern is not None and not isinstance(pattern, str):
        raise errors.at((*where, "pattern"), errors.must_be(str))
    if pattern and (problem := patterns.problem(pattern)):
        raise errors.at((*where, "pattern"), f"is invalid: it {problem}")
    field_option_rules.check_validation(rules, where)
    return cast(Validation, rules)  # its pattern checked; the rest is read as any object


def refuse_stored_patterns(fields: list[Field], where: errors.Location) -> None:
    """422 naming the first field whose stored pattern is no longer accepted (saved before patterns were checked)."""
    for index, field in enumerate(fields):
        if isinstance(field.get("validation"), dict):
            validation(field["validation"], (*where, index, "validation"))


def _options(raw: dict[str, Any], kind: str, where: errors.Location) -> list[Option] | None:
    options = raw.get("options")
    if kind not in WITH_OPTIONS:
        return None
    if not isinstance(options, list) or not options:
        raise errors.at((*where, "options"), f"must be a non-empty array for a {kind} field")
    result: list[Option] = []
    for index, option in enumerate(options):
        value = option.get("value") if isinstance(option, dict) else option
        if not isinstance(value, (str, int, float)) or isinstance(value, bool) or str(value) == "":
            raise errors.at((*where, "options", index), "must be a text or an object with a value")
        given = option.get("uuid") if isinstance(option, dict) else None
        uuid = given if isinstance(given, str) else new_uuid()
        result.append({"uuid": uuid, "value": str(value)})
    return result


def _areas(
    raw: Any, options: list[Option] | None, documents: list[Page], where: errors.Location, first_page: int
) -> list[Area]:
    if not isinstance(raw, list):
        raise errors.at(where, errors.must_be(list))
    return [_area(item, options, documents, (*where, index), first_page) for index, item in enumerate(raw)]


def _area(
    raw: Any, options: list[Option] | None, documents: list[Page], where: errors.Location, first_page: int
) -> Area:
    _require_object(raw, where)
    document = _document(raw, documents, where)
    page = raw.get("page", first_page)
    if not isinstance(page, int) or isinstance(page, bool):
        raise errors.at((*where, "page"), "must be an integer")
    if not first_page <= page < first_page + document.page_count:
        pages = f"{document.page_count} page{'s' if document.page_count != 1 else ''}"
        raise errors.at(
            (*where, "page"), f"{page} does not exist: the document has {pages} (pages start at {first_page})"
        )
    sizes = document.sizes
    x, y, w, h = _box(raw, where, sizes[page - first_page] if len(sizes) == document.page_count else None)
    area: Area = {"x": x, "y": y, "w": w, "h": h, "attachment_uuid": document.document_uuid, "page": page - first_page}
    if "cell_w" in raw:
        area["cell_w"] = _fraction(raw, "cell_w", where)
    option = raw.get("option", raw.get("option_uuid"))
    if options is not None and option is not None:
        match = next((o for o in options if option in (o["value"], o["uuid"])), None)
        if match is None:
            raise errors.at((*where, "option"), "must be one of the field's options")
        area["option_uuid"] = match["uuid"]
    return area


def _document(raw: dict[str, Any], documents: list[Page], where: errors.Location) -> Page:
    wanted = raw.get("attachment_uuid")
    if wanted is None and len(documents) == 1:
        return documents[0]
    found = next((document for document in documents if document.document_uuid == wanted), None)
    if found is None:
        raise errors.at((*where, "attachment_uuid"), "must name one of the template's documents")
    return found


def _box(raw: dict[str, Any], where: errors.Location, size: tuple[float, float] | None) -> tuple[float, ...]:
    """x, y, w, h as fractions of the page: as given, or from points when any is above 1 and the size is known."""
    keys = ("x", "y", "w", "h")
    if size is None or all(not _number(raw.get(key)) or raw[key] <= 1 for key in keys):
        x, y, w, h = (_fraction(raw, key, where) for key in keys)
        if x + w > 1 + _EPSILON or y + h > 1 + _EPSILON:
            raise errors.at(where, "must lie inside the page: x + w and y + h must not exceed 1")
        return x, y, w, h
    width, height = size
    for key in keys:
        if not _number(raw.get(key)) or raw[key] < 0:
            raise errors.at(
                (*where, key), "must be a number of points from 0 (the area is in points: a value is above 1)"
            )
    x, y, w, h = (float(raw[key]) for key in keys)
    if x + w > width + _EPSILON or y + h > height + _EPSILON:
        raise errors.at(
            where, f"must lie inside the page, {width:g} x {height:g} points: x + w and y + h must not exceed them"
        )
    return x / width, y / height, w / width, h / height


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _fraction(raw: dict[str, Any], key: str, where: errors.Location) -> float:
    value = raw.get(key)
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 1:
        raise errors.at((*where, key), "must be a number from 0 to 1")
    return float(value)


def _object(raw: dict[str, Any], key: str, where: errors.Location) -> dict[str, Any]:
    value = raw.get(key) or {}
    if not isinstance(value, dict):
        raise errors.at((*where, key), errors.must_be(dict))
    if problem := json_fields.free_object_problem(value):
        raise errors.at((*where, key), problem)
    return value


def _require_object(raw: Any, where: errors.Location) -> None:
    if not isinstance(raw, dict):
        raise errors.at(where, errors.must_be(dict))
