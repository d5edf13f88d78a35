"""Rows become records at the storage edge: each value brought to its field's type, whatever the backend
returned (SQLite keeps timestamps as text, booleans as integers and JSON as text)."""

from __future__ import annotations

import dataclasses
import enum
import json
import operator
import types
import typing
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import orjson

T = TypeVar("T")
# orjson reads an integer beyond 64 bits as a float: JSON holding a run of 19 digits is read the standard way. The
# run is looked for in the text's bytes with digits turned to 1 and the rest to 0 (a regular expression takes longer
# than the parse).
_DIGITS = bytes(48 <= byte <= 57 for byte in range(256))
_LONG_NUMBER = b"\x01" * 19


def json_time(moment: datetime) -> str:
    """A time as SQLite stores it (fixed-width ISO 8601 UTC text, so that times compare as text); also how a time
    goes inside a JSON parameter, which Postgres reads as well."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def record(cls: type[T], row: dict[str, Any] | None) -> T | None:
    """The row as a `cls`, its values brought to the field types (SQLite keeps text and integers)."""
    if row is None:
        return None
    reading = _READINGS.get(cls) or _reading(cls)
    values = list(reading.columns(row))
    for position, convert in reading.converted:
        values[position] = convert(values[position])
    return cls(*values)


def required(cls: type[T], row: dict[str, Any] | None) -> T:
    """The row as a `cls`, for a row that must exist (one just written, or one a foreign key holds)."""
    found = record(cls, row)
    if found is None:
        raise LookupError(f"no {cls.__name__} row where one must exist")
    return found


def records(cls: type[T], rows: list[dict[str, Any]]) -> list[T]:
    return [required(cls, row) for row in rows]


def from_json(text: str) -> Any:
    """A JSON column's text as Python values, the same the standard library reads, in a fraction of its time (orjson);
    what orjson refuses (a lone surrogate, NaN, deep nesting) or reads otherwise (long integers) goes the standard
    library's way."""
    try:
        data = text.encode()
        if _LONG_NUMBER not in data.translate(_DIGITS):
            return orjson.loads(data)
    except (UnicodeEncodeError, orjson.JSONDecodeError):
        pass
    return json.loads(text)


def to_datetime(value: datetime | str | None) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) else value


@dataclasses.dataclass(frozen=True)
class _Reading:
    """How a row becomes a record of one type, worked out once per type."""

    columns: Callable[[dict[str, Any]], tuple[Any, ...]]  # the row's values in the order of the record's fields
    converted: tuple[tuple[int, Callable[[Any], Any]], ...]  # the position and converter of each value that needs one


_READINGS: dict[type[Any], _Reading] = {}


def _reading(cls: type[Any]) -> _Reading:
    fields = dataclasses.fields(cls)
    if len(fields) < 2 or not all(field.init and not field.kw_only for field in fields):
        raise TypeError(f"{cls.__name__} is not a record: rows fill records of two fields or more, all positional")
    hints = typing.get_type_hints(cls)
    converters = [_converter(hints[field.name]) for field in fields]
    _READINGS[cls] = _Reading(
        operator.itemgetter(*(field.name for field in fields)),
        tuple((n, convert) for n, convert in enumerate(converters) if convert is not None),
    )
    return _READINGS[cls]


def _converter(hint: Any) -> Callable[[Any], Any] | None:
    """None for a value the record takes as the backend returns it."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        hint = next(a for a in typing.get_args(hint) if a is not type(None))
    base = typing.get_origin(hint) or hint
    if base is datetime:
        return to_datetime
    if base is bool:
        return lambda v: None if v is None else bool(v)
    if base in (dict, list) or typing.is_typeddict(base):
        return lambda v: from_json(v) if isinstance(v, str) else v
    if isinstance(base, type) and issubclass(base, enum.Enum):
        return lambda v: None if v is None else base(v)
    return None
