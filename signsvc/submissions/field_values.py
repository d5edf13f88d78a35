"""Values of a submitter's fields: API input matched to fields, checked and normalised per type.

Pure and quick to import: files given as values come back as `Upload`s, decoded later in the pool,
and typed signatures as `Typed`, drawn there.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TypeGuard

from signsvc.infra import errors, pdf_calls
from signsvc.templates import formulas, patterns
from signsvc.templates.template_fields import MAX_FIELDS
from storage.shapes import Field

TODAY = "{{date}}"  # kept as is: filled with the completion date
TYPED_LIMIT = 60  # a signature text shorter than this is drawn, not decoded (DocuSeal's rule)
DEFAULT_DATE_FORMAT = "DD/MM/YYYY"
LINKED = {"signature", "initials", "image", "stamp"}
FILE_TYPES = LINKED | {"file"}  # whose values (and defaults) name stored files by id
MAX_VALUES = MAX_FIELDS  # values in one input: one for each field a template may have
MAX_FILES = 100  # in one file field's value: each is decoded in the pool and recorded in the transaction
_TRUE = {"1", "true", "yes"}
_FALSE = {"0", "false", "no"}
_FILE_ID = re.compile(r"[0-9a-f]{32}")  # a stored file's uuid, as links show it
_PHONE = re.compile(r"\+?[0-9\s().-]*[0-9][0-9\s().-]*")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_SCHEME = re.compile(r"[a-z][a-z0-9+.-]*://", re.IGNORECASE)
# Either alphabet and line breaks, as `pdf_calls.decode` takes them; never spaces: a long name has them.
_BASE64_START = re.compile(r"[A-Za-z0-9+/\-_\r\n]*={0,2}\s*")
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_DATE_TOKENS = re.compile(r"YYYY|YY|MMMM|MMM|MM|M|DD|D")
_STRPTIME = {"YYYY": "%Y", "YY": "%y", "MMMM": "%B", "MMM": "%b", "MM": "%m", "M": "%m", "DD": "%d", "D": "%d"}
_WORDY_DATES = ("D MMMM YYYY", "MMMM D, YYYY", "D MMM YYYY", "MMM D, YYYY")


@dataclass(frozen=True)
class Upload:
    """A file given as an https:// URL or as base64 text (not decoded here: it may be megabytes)."""

    source: str

    @property
    def is_url(self) -> bool:
        return self.source[:8].lower() == "https://"


@dataclass(frozen=True)
class FileId:
    """A file already stored, named by its id: whose it is and whether it may be named is checked when stored."""

    uuid: str


@dataclass(frozen=True)
class Typed:
    """A signature given as plain text, to be drawn in a handwriting-like font."""

    text: str


def prefill(fields: list[Field], values: object, where: errors.Location) -> dict[str, object]:
    """`{field_uuid: normalised value}` of one role's `values` input, keyed by field uuid, name,
    snake_case name, name in any case, or "<Type> Field <n>" for an unnamed field. Null is no value."""
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise errors.located(f"{where[-1]} {errors.must_be(dict)}", where[:-1], where[-1])
    if len(values) > MAX_VALUES:
        raise errors.located(
            f"Too many values: {len(values)}, at most {MAX_VALUES} (a template has at most {MAX_FIELDS} fields)", where
        )
    index = FieldIndex(named(fields))
    result: dict[str, object] = {}
    for key, value in values.items():
        matches = index.matching(str(key))
        if not matches:
            raise errors.located(f"Unknown field: {key}", where)
        for field in matches:
            if formulas.is_formula(field):  # the service computes it at completion: a value given is ignored
                continue
            if field["uuid"] in result:
                raise errors.located(f"{field['name']} is given twice", where)
            result[field["uuid"]] = normalize(field, value, where)
    return result


def normalize(field: Field, value: object, where: errors.Location) -> object:
    """The stored form of one field's value; a 422 naming the field (and `where`) when it does not fit."""
    if value is None:
        return None
    return _NORMALIZERS[field["type"]](field, value, where)


def display(field: Field, stored: object, link: Callable[[str], str | None]) -> object:
    """A stored value as the API shows it: files as links, the rest as stored. `link` answers None for a file it
    will not link (not the account's): nothing is shown for it."""
    if stored is None:
        return None
    if field["type"] in LINKED:
        return link(str(stored))
    if field["type"] == "file":
        return [shown for uuid in (stored if isinstance(stored, list) else [stored]) if (shown := link(str(uuid)))]
    return stored


def named_files(field: Field, stored: object) -> list[object]:
    """What a stored value or a default of a file field names as files (ids, or anything else found there)."""
    if field["type"] not in FILE_TYPES or stored is None or stored == "":
        return []
    return list(stored) if isinstance(stored, list) else [stored]


def is_file_id(value: object) -> bool:
    return isinstance(value, str) and _FILE_ID.fullmatch(value) is not None


def form_rules(fields: list[Field]) -> list[Field]:
    """The fields as the signing form checks them: a pattern the service refuses (stored before patterns were
    checked) is no pattern, there as in `patterns.first_mismatch`, so the form and the service agree."""
    return [_without_refused_pattern(field) for field in fields]


def _without_refused_pattern(field: Field) -> Field:
    rules = field.get("validation")
    if not (isinstance(rules, dict) and isinstance(rules.get("pattern"), str) and patterns.problem(rules["pattern"])):
        return field
    kept = rules.copy()
    del kept["pattern"]
    return {**field, "validation": kept}


def missing_required(fields: list[Field], values: Mapping[str, object]) -> Field | None:
    """The first required, editable field with neither a value nor a default value."""
    for field in fields:
        # A stamp is made at completion: the submitter never gives it.
        if not field.get("required") or field.get("readonly") or field["type"] == "stamp" or formulas.is_formula(field):
            continue
        if _is_empty(values.get(field["uuid"])) and _is_empty(field.get("default_value")):
            return field
    return None


def find(fields: list[Field], key: str) -> list[Field]:
    """The fields a name, uuid or snake_case name refers to (the rules `prefill` uses)."""
    return FieldIndex(named(fields)).matching(key)


class FieldIndex:
    """Fields by the keys a value may name them with, tried from the most exact: uuid, name, snake_case
    name, name in any case; a name may belong to several fields. Each kind of key is indexed when first
    tried, so matching many values takes one pass over the fields, not one per value."""

    def __init__(self, fields: list[Field]) -> None:
        self.fields = fields
        self._indexes: dict[int, dict[str | None, list[Field]]] = {}

    def matching(self, key: str) -> list[Field]:
        for rule, probe in enumerate((key, key, key, key.casefold())):
            if found := self._index(rule).get(probe):
                return found
        return []

    def _index(self, rule: int) -> dict[str | None, list[Field]]:
        if rule not in self._indexes:
            index: dict[str | None, list[Field]] = {}
            for field in self.fields:
                index.setdefault(_KEYS[rule](field), []).append(field)
            self._indexes[rule] = index
        return self._indexes[rule]


def named(fields: list[Field]) -> list[Field]:
    """The fields, each unnamed one as a copy called "<Type> Field <n>" (counted per type), as the API shows it."""
    if all(field.get("name") for field in fields):  # as most are: nothing to count
        return list(fields)
    counts: Counter[str] = Counter()
    result = []
    for field in fields:
        counts[field["type"]] += 1
        result.append(field if field.get("name") else {**field, "name": f"{_label(field)} {counts[field['type']]}"})
    return result


def role_fields(fields: list[Field], role_uuid: str) -> list[Field]:
    """A role's fields, unnamed ones called "<Type> Field <n>" counting over the whole template."""
    return [f for f in named(fields) if f.get("submitter_uuid") == role_uuid]


def _label(field: Field) -> str:
    return field.get("name") or f"{field['type'].capitalize()} Field"


_KEYS: tuple[Callable[[Field], str | None], ...] = (  # what each of FieldIndex's rules reads
    lambda field: field["uuid"],
    lambda field: field["name"],
    lambda field: _snake(field["name"]) or None,  # an empty snake_case name names nothing
    lambda field: field["name"].casefold(),
)


def _snake(name: str) -> str:
    """Rails' `name.parameterize.underscore`: "Full Name" -> "full_name"."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "_", ascii_name.lower()).strip("_")


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_empty(value: object) -> bool:
    if isinstance(value, str):
        return not value.strip()
    return value is None or value is False or value == [] or value == {}


def _invalid(field: Field, problem: str, where: errors.Location) -> errors.Invalid:
    return errors.located(f"{_label(field)} {problem}", where)


def _checkbox(field: Field, value: object, where: errors.Location) -> bool:
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower() if isinstance(value, (str, int)) else None
    if word in _TRUE or word in _FALSE:
        return word in _TRUE
    raise _invalid(field, "must be true or false (or 1/0, yes/no)", where)


def _text(field: Field, value: object, where: errors.Location) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise _invalid(field, errors.must_be(str), where)


def _phone(field: Field, value: object, where: errors.Location) -> str:
    text = _text(field, value, where).strip()
    if text and not _PHONE.fullmatch(text):
        raise _invalid(field, "must be a phone number: digits, spaces, +, - and parentheses", where)
    return text


def _number(field: Field, value: object, where: errors.Location) -> int | float:
    number: int | float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        number = int(value)
    elif isinstance(value, str) and _DECIMAL.fullmatch(value.strip()):
        number = float(value)
    if number is None or not math.isfinite(number):
        raise _invalid(field, "must be a number", where)
    return int(number) if isinstance(number, float) and number.is_integer() else number


def _date(field: Field, value: object, where: errors.Location) -> str:
    if isinstance(value, str) and value.strip() == TODAY:
        return TODAY
    format = (field.get("preferences") or {}).get("format") or DEFAULT_DATE_FORMAT
    day = _parsed_date(value, format)
    if day is None:
        accepted = f"YYYY-MM-DD or {format} (or an ISO timestamp, or Unix seconds)"
        raise _invalid(field, f"must be a date as {accepted}", where)
    return day.isoformat()


def _parsed_date(value: object, format: str) -> date | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, UTC).date()
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str):
        return None
    text = value.strip()
    return _iso_date(text) or next(filter(None, (_formatted_date(text, f) for f in (format, *_WORDY_DATES))), None)


def _iso_date(text: str) -> date | None:
    try:
        return date.fromisoformat(text)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return (moment.astimezone(UTC) if moment.tzinfo else moment).date()


def _formatted_date(text: str, format: str) -> date | None:
    """`text` read with a format such as "DD/MM/YYYY" or "MMMM D, YYYY" (month names in English)."""
    pattern = _DATE_TOKENS.sub(lambda token: _STRPTIME[token.group()], format.replace("%", "%%"))
    try:
        return datetime.strptime(text, pattern).date()
    except ValueError:
        return None


def _option(field: Field, value: object, where: errors.Location) -> str:
    return _chosen(field, _Options(field), value, where)


def _multiple(field: Field, value: object, where: errors.Location) -> list[str]:
    options = _Options(field)
    if isinstance(value, str):
        # An option may itself hold a comma: the whole text is tried as one option first.
        chosen = [value] if value.strip().casefold() in options.loose else value.split(",")
        value = [each.strip() for each in chosen]
    if not isinstance(value, list):
        raise _invalid(field, "must be an array of options or a comma-separated string", where)
    return list(dict.fromkeys(_chosen(field, options, each, where) for each in value))


class _Options:
    """A field's options by their text, exactly and in any case (the first option of each text), so that
    choosing many of them takes one pass over the options."""

    def __init__(self, field: Field) -> None:
        self.exact: dict[str, str] = {}
        self.loose: dict[str, str] = {}
        for option in field.get("options", []):
            self.exact.setdefault(option["value"], option["value"])
            self.loose.setdefault(option["value"].casefold(), option["value"])


def _chosen(field: Field, options: _Options, value: object, where: errors.Location) -> str:
    text = str(value) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None
    found = None if text is None else options.exact.get(text) or options.loose.get(text.casefold())
    if found is None:
        raise _invalid(field, f"must be one of: {', '.join(options.exact)}", where)
    return found


def _signature(field: Field, value: object, where: errors.Location) -> Upload | FileId | Typed:
    upload = _upload_or_none(field, value, where)
    if upload is not None:
        return upload
    if not isinstance(value, str) or not 0 < len(value.strip()) < TYPED_LIMIT:
        raise _not_a_file(field, value, where, "url, base64 or text < 60 chars")
    return Typed(" ".join(value.split()))


def _image(field: Field, value: object, where: errors.Location) -> Upload | FileId:
    upload = _upload_or_none(field, value, where)
    if upload is None:
        raise _not_a_file(field, value, where, "url or base64")
    return upload


def _files(field: Field, value: object, where: errors.Location) -> list[Upload | FileId]:
    files = value if isinstance(value, list) else [value]
    if len(files) > MAX_FILES:
        raise _invalid(field, f"takes at most {MAX_FILES} files, not {len(files)}", where)
    return [_image(field, each, where) for each in files]


def _upload_or_none(field: Field, value: object, where: errors.Location) -> Upload | FileId | None:
    """An https:// URL, a stored file's id, or text that starts as base64 does; base64 is checked in full when
    decoded."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if is_file_id(text):
        return FileId(text)
    if scheme := _SCHEME.match(text):
        if scheme.group().lower() != "https://":
            problem = f"only https:// URLs are allowed, not {scheme.group()}"
            raise errors.located(f"{_label(field)}: {problem}", where)
        return Upload(text)
    if pdf_calls.DATA_URI.match(text) or (len(text) >= TYPED_LIMIT and _BASE64_START.fullmatch(text[:256])):
        return Upload(text)
    return None


def _not_a_file(field: Field, value: object, where: errors.Location, expected: str) -> errors.Invalid:
    shown = str(value)
    shown = f"{shown[:50]}..." if len(shown) > 50 else shown
    return errors.located(f"{_label(field)}: Invalid value, {expected} is expected: {shown}", where)


_NORMALIZERS: dict[str, Callable[[Field, object, errors.Location], object]] = {
    "text": _text,
    "cells": _text,
    "phone": _phone,
    "number": _number,
    "checkbox": _checkbox,
    "date": _date,
    "select": _option,
    "radio": _option,
    "multiple": _multiple,
    "signature": _signature,
    "initials": _signature,
    "image": _image,
    "stamp": _image,
    "file": _files,
}
