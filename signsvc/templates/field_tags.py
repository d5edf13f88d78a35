"""Field tags: `{{Name;type=signature;role=Client;required=false}}` written in a document's text (PDF, DOCX) or
as the attributes of an HTML field element, read into the field input that `documents[].fields[]` items take
(`template_fields.field`), so that tag fields pass the same checks as explicit ones.

    body      := [name] {";" key "=" value} [";"]      (empty segments are skipped)

Keys are read in any case, `-` as `_` (`font-size` is `font_size`). An unknown key or a bad value is a 422
naming the tag as written and the attribute.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from signsvc.infra import errors
from signsvc.pdf.boxes import Box
from signsvc.templates import field_option_rules, signature_preferences, template_fields

TYPES = (*template_fields.FIELD_TYPES, "datenow")
KEYS = (
    "name",
    "type",
    "role",
    "default",
    "required",
    "readonly",
    "hidden",
    "title",
    "description",
    "options",
    "option",
    "condition",
    "pattern",
    "format",
    "min",
    "max",
    "font",
    "font_size",
    "font_type",
    "color",
    "align",
    "valign",
    "mask",
    "price",
    "currency",
    "method",
    "width",
    "height",
)
_PREFERENCES = ("font", "font_type", "color", "align", "valign", "format", "currency")
_METHODS = ("aes", "qes")
_SHOWN = 120  # characters of a tag quoted in a message
SOURCE = "tag"  # a tag field's key for its first tag as written, for messages (`template_fields` ignores it)


@dataclass(frozen=True)
class PlacedTag:
    """A tag as found in a document: as written (for messages), its attributes and its box."""

    text: str
    attributes: Mapping[str, str]
    box: Box


def attributes(body: str, *, tag: str | None = None, where: errors.Location = ()) -> dict[str, str]:
    """The attributes of a tag body (the text between `{{` and `}}`): the first segment without `=` is `name`.
    `tag` is the tag as written, quoted in messages (the body in braces when not given)."""
    tag = tag if tag is not None else f"{{{{{body}}}}}"
    found: dict[str, str] = {}
    for index, segment in enumerate(body.split(";")):
        if not segment.strip():
            continue
        key, equals, value = segment.partition("=")
        if not equals:
            if index != 0:
                raise refused(tag, segment.strip(), "is not an attribute: write key=value", where)
            key, value = "name", segment
        key = normal_key(key)
        if key in found:
            raise refused(tag, key, "is given twice", where)
        found[key] = value.strip()
    return found


def normal_key(key: str) -> str:
    return key.strip().lower().replace("-", "_")


def field_input(attributes: Mapping[str, str], *, tag: str = "", where: errors.Location = ()) -> dict[str, Any]:
    """One field input, as a `documents[].fields[]` item but without `areas`, from a tag's attributes.
    `datenow` is a read-only date whose default is the day of signing; `option=` (a radio or multiple tag's one
    option) is left to `fields_of_tags`."""
    given = {normal_key(key): value for key, value in attributes.items()}
    tag = tag or _written(given)
    for key in given:
        if key not in KEYS:
            raise refused(tag, key, f"is not a tag attribute: use {', '.join(KEYS)}", where)
    kind = given.get("type", "text").lower() or "text"
    if kind not in TYPES:
        raise refused(tag, "type", f"must be one of: {', '.join(TYPES)}", where)
    field: dict[str, Any] = {"name": given.get("name", ""), "type": "date" if kind == "datenow" else kind}
    field["required"] = _flag(given, "required", True, tag, where)
    field["readonly"] = _flag(given, "readonly", kind == "datenow", tag, where)
    for key, target in (("role", "role"), ("title", "title"), ("description", "description")):
        if given.get(key):
            field[target] = given[key]
    if "default" in given:
        field["default_value"] = given["default"]
    elif kind == "datenow":
        field["default_value"] = "{{date}}"
    if given.get("condition"):
        field["conditions"] = given["condition"]
    options = _options(given)
    if field["type"] in template_fields.WITH_OPTIONS and not options and not given.get("option"):
        raise refused(tag, "options", f"is required for a {field['type']} tag: options=A,B or option=A", where)
    if options:
        field["options"] = options
    field["preferences"] = _preferences(given, field["type"], tag, where)
    validation = {key: given[key] for key in ("pattern", "min", "max") if given.get(key)}
    if validation:
        _checked(lambda: template_fields.validation(validation, ()), tag, where)
        field["validation"] = validation
    return field


def fields_of_tags(tags: Sequence[PlacedTag], *, where: errors.Location = ()) -> list[dict[str, Any]]:
    """Field inputs with areas (pages 1-based, as in creation input) from the tags of a document, in the order
    found. Tags with the same name and role make one field with an area each (the first tag's attributes win);
    each `option=` of a radio or multiple field is one of its options, and the area of that tag is the option's.
    A `hidden=true` field has no area. Names are compared in any case, as roles are. Each field holds its first
    tag as written under `SOURCE`, to quote in a later refusal (`naming_the_tag`)."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    hidden: set[int] = set()  # the fields (by id) whose first tag says hidden=true
    result: list[dict[str, Any]] = []
    for tag in tags:
        field = field_input(tag.attributes, tag=tag.text, where=where)
        given = {normal_key(key): value for key, value in tag.attributes.items()}
        key = (field["name"].casefold(), field.get("role", "").casefold())
        if field["name"] and key in found:
            field = found[key]
        else:
            field["areas"], field[SOURCE] = [], tag.text
            result.append(field)
            found[key] = field
            if _flag(given, "hidden", False, tag.text, where):
                hidden.add(id(field))
        option = given.get("option")
        if option and field["type"] in template_fields.WITH_OPTIONS and option not in field.setdefault("options", []):
            field["options"].append(option)
        if id(field) not in hidden:
            field["areas"].append(_area(tag.box, given, option, tag.text, where))
    return result


def without_named(tag_fields: Iterable[dict[str, Any]], names: Iterable[str]) -> list[dict[str, Any]]:
    """The tag fields whose name is none of `names` (explicit fields win over tags of the same name)."""
    taken = {name.casefold() for name in names if name}
    return [field for field in tag_fields if not field["name"] or field["name"].casefold() not in taken]


def naming_the_tag(
    error: errors.Invalid, inputs: Iterable[tuple[errors.Location, Mapping[str, Any]]]
) -> errors.Invalid:
    """A refusal about a tag field (given at its place in `inputs`) that also quotes its tag; others as they are."""
    for place, given in inputs:
        if error.location[: len(place)] == place and isinstance(given.get(SOURCE), str):
            return errors.Invalid(f"{error.message} (tag {_quoted(given[SOURCE])})", location=error.location)
    return error


@contextlib.contextmanager
def naming_tags(inputs: Iterable[tuple[errors.Location, Mapping[str, Any]]]) -> Iterator[None]:
    """A refusal about a tag field, raised within, quotes its tag (`naming_the_tag`)."""
    try:
        yield
    except errors.Invalid as error:
        raise naming_the_tag(error, inputs) from None


def refused(tag: str, attribute: str, problem: str, where: errors.Location = ()) -> errors.Invalid:
    """A 422 naming the tag as written and the attribute: `documents[0]: tag {{Sign;type=seal}}: type must be ...`."""
    place = f"{errors.written(where)}: " if where else ""
    return errors.Invalid(f"{place}tag {_quoted(tag)}: {attribute} {problem}", location=where)


def _quoted(tag: str) -> str:
    return tag if len(tag) <= _SHOWN else f"{tag[:_SHOWN]}..."


def _area(box: Box, given: Mapping[str, str], option: str | None, tag: str, where: errors.Location) -> dict[str, Any]:
    w = _points(given, "width", tag, where) / box.page_width if "width" in given else box.w
    h = _points(given, "height", tag, where) / box.page_height if "height" in given else box.h
    x, y = _within(box.x, 1), _within(box.y, 1)
    area: dict[str, Any] = {"x": x, "y": y, "w": _within(w, 1 - x), "h": _within(h, 1 - y), "page": box.page + 1}
    if option:
        area["option"] = option
    return area


def _within(value: float, most: float) -> float:
    return min(max(value, 0.0), max(most, 0.0))


def _points(given: Mapping[str, str], key: str, tag: str, where: errors.Location) -> float:
    number = field_option_rules.number_of(given[key])
    if number is None or number <= 0:
        raise refused(tag, key, f"must be a number of points above 0, not {given[key]!r}", where)
    return number


def _options(given: Mapping[str, str]) -> list[str]:
    values = [value.strip() for value in given.get("options", "").split(",")]
    return list(dict.fromkeys(value for value in values if value))


def _preferences(given: Mapping[str, str], kind: str, tag: str, where: errors.Location) -> dict[str, Any]:
    preferences: dict[str, Any] = {key: given[key] for key in _PREFERENCES if given.get(key)}
    for key in ("font_size", "price"):
        if given.get(key):
            preferences[key] = _number(given, key, tag, where)
    if given.get("mask"):
        preferences["mask"] = _mask(given["mask"], tag, where)
    if given.get("method"):
        if given["method"].lower() not in _METHODS:
            raise refused(tag, "method", f"must be one of: {', '.join(_METHODS)}", where)
        preferences["method"] = given["method"].lower()
    _checked(lambda: field_option_rules.check_preferences(preferences, kind, ()), tag, where)
    _checked(lambda: signature_preferences.check(preferences, kind, ()), tag, where)
    return preferences


def _number(given: Mapping[str, str], key: str, tag: str, where: errors.Location) -> int | float:
    number = field_option_rules.number_of(given[key])
    if number is None:
        raise refused(tag, key, f"must be a number, not {given[key]!r}", where)
    return int(number) if number.is_integer() else number


def _mask(value: str, tag: str, where: errors.Location) -> bool | int:
    word = value.strip().lower()
    if word in ("true", "false"):
        return word == "true"
    try:
        return int(word)
    except ValueError:
        raise refused(tag, "mask", "must be true, false or an integer", where) from None


def _flag(given: Mapping[str, str], key: str, default: bool, tag: str, where: errors.Location) -> bool:
    word = given.get(key, "").strip().lower()
    if not word:
        return default
    if word not in ("true", "false"):
        raise refused(tag, key, f"must be true or false, not {given[key]!r}", where)
    return word == "true"


def _checked(check: Callable[[], object], tag: str, where: errors.Location) -> None:
    """Runs a check of the explicit fields' rules, its 422 (`format must be ...`) naming the tag."""
    try:
        check()
    except errors.Invalid as exc:
        raise refused(tag, exc.path, exc.message.removeprefix(exc.path).strip(), where) from None


def _written(given: Mapping[str, str]) -> str:
    parts = [given.get("name", "")] + [f"{key}={value}" for key, value in given.items() if key != "name"]
    return "{{" + ";".join(parts) + "}}"
