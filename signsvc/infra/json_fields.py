"""Fields of a JSON request body: a value of the wrong type is a 422 that names the field; free-form objects the API
stores as given (preferences, metadata, values, variables) are bounded in depth and size."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from signsvc.infra import errors

# Levels of objects and arrays in a free-form object (the object itself is the first): a stored value is copied,
# rendered and encoded by code that recurses, and no client nests its settings this deep.
MAX_OBJECT_DEPTH = 32
# A free-form object's size as JSON (about: escapes not counted); values, which carry files as base64, are bounded
# by the body's size instead.
MAX_OBJECT_BYTES = 64 * 1024
_PATH_PARTS_SHOWN = 6


def text(
    body: dict[str, Any], key: str, *, where: errors.Location = (), label: str | None = None, limit: int | None = None
) -> str | None:
    """A string or null of `body`, which is at `where` in the request; `label`, when given, names the field in the
    message instead (a place the caller writes out itself; the refusal then carries no location)."""
    value = body.get(key)
    if value is not None and not isinstance(value, str):
        raise _refused((*where, key), errors.must_be(str), label)
    if value is not None and limit is not None and len(value) > limit:
        raise _refused((*where, key), f"is too long: at most {limit} characters", label)
    return value


def flag(
    body: dict[str, Any],
    key: str,
    default: bool | None = None,
    *,
    where: errors.Location = (),
    label: str | None = None,
) -> bool:
    """A JSON boolean; absent or null gives `default`, and without a default it is required."""
    value = body.get(key)
    if value is None and default is not None:
        return default
    if not isinstance(value, bool):
        raise _refused((*where, key), "must be true or false", label)
    return value


def _refused(location: errors.Location, problem: str, label: str | None) -> errors.Invalid:
    return errors.Invalid(f"{label} {problem}") if label else errors.at(location, problem)


def utc_moment(text: str) -> datetime:
    """An ISO 8601 date or timestamp, also with a trailing "UTC" or "GMT", as UTC (a time without an
    offset is UTC). Raises ValueError or OverflowError for anything else."""
    moment = datetime.fromisoformat(re.sub(r"\s*(UTC|GMT)$", "", text.strip(), flags=re.IGNORECASE))
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def free_object_problem(value: dict[str, Any], *, sized: bool = True) -> str | None:
    """What is wrong with a free-form object the API stores as given, to follow its name in a message: nested
    more than MAX_OBJECT_DEPTH levels, or (when `sized`) larger than MAX_OBJECT_BYTES as JSON; None when it will do."""
    if too_deep(value, MAX_OBJECT_DEPTH) is not None:
        return f"nests objects and arrays more than {MAX_OBJECT_DEPTH} levels deep"
    if sized and json_size(value) > MAX_OBJECT_BYTES:
        return f"is too large: at most {MAX_OBJECT_BYTES // 1024} KiB as JSON"
    return None


def too_deep(value: Any, limit: int) -> str | None:
    """The path (`a.b[0].c`, cut after a few parts) to the first object or array nested more than `limit` levels
    deep in `value` (itself the first level); None when there is none. Walked without recursion: JSON may nest
    deeper than the stack left to this function."""
    pending: list[tuple[Any, int, tuple[Any, ...] | None]] = [(value, 1, None)]
    while pending:
        item, depth, node = pending.pop()
        if depth > limit:
            return _path(node)
        if isinstance(item, dict):
            pending += [
                (child, depth + 1, (key, node)) for key, child in item.items() if isinstance(child, (dict, list))
            ]
        elif isinstance(item, list):
            pending += [
                (child, depth + 1, (index, node)) for index, child in enumerate(item) if isinstance(child, (dict, list))
            ]
    return None


def json_size(value: Any) -> int:
    """About how many bytes `value` takes as compact JSON (escapes not counted), walked without recursion."""
    size, pending = 0, [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            size += 1 + sum(len(key.encode("utf-8", "surrogatepass")) + 4 for key in item)
            pending += item.values()
        elif isinstance(item, list):
            size += 1 + len(item)
            pending += item
        elif isinstance(item, str):
            size += len(item.encode("utf-8", "surrogatepass")) + 2
        elif isinstance(item, bool) or item is None:
            size += 5
        elif isinstance(item, int):
            size += item.bit_length() * 3 // 10 + 2  # about its digits, without writing them out
        else:
            size += len(repr(item))
    return size


def _path(node: tuple[Any, ...] | None) -> str:
    parts: list[Any] = []
    while node is not None:
        key, node = node
        parts.append(key)
    parts.reverse()
    shown = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts[:_PATH_PARTS_SHOWN])
    return shown.lstrip(".") + ("..." if len(parts) > _PATH_PARTS_SHOWN else "")
