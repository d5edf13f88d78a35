"""The options of a field that shape its value, as rules of records and values: `default_value` placeholders, the
`validation` rules (a text's pattern with its message, a number's or a date's `min` and `max`) and `preferences.mask`.
The signing form applies the same rules as the signer types (pages/static/field-options.js); the service applies them
again on every save and at completion, through the API too."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, TypeGuard

from signsvc.infra import errors
from signsvc.pdf import masks, value_text
from signsvc.templates import field_option_rules, patterns
from storage.records import Submitter
from storage.shapes import Field, FieldValue

# `{{name}}` or `{name}`: both work, as in DocuSeal.
PLACEHOLDER = re.compile(r"\{\{?(\w+)\}\}?")
TODAY_WORDS = ("{{date}}", "{date}")
TEXT_LIKE = {"text", "cells", "phone", "number", "date", "select", "radio"}
# The messages of DocuSeal's preset patterns, for a field that gives a preset and no message of its own.
PRESET_MESSAGES = {
    r"^[0-9]{3}-[0-9]{2}-[0-9]{4}$": "must be a social security number (123-45-6789)",
    r"^[0-9]{2}-[0-9]{7}$": "must be an employer identification number (12-3456789)",
    r"^[^@\s]+@[^@\s]+\.[^@\s]+$": "must be an email address",
    r"^https?://.*": "must be a URL starting with http:// or https://",
    r"^[0-9]{5}(?:-[0-9]{4})?$": "must be a ZIP code (12345 or 12345-6789)",
    r"^[0-9]+$": "must be digits only",
    r"^[a-zA-Z]+$": "must be letters only",
}
_LENGTH = re.compile(r"\^?\.\{(\d*),(\d*)\}\$?")
DEFAULT_MESSAGE = "does not have the expected format"
# The form reads `{{date}}` as the signer's own day, which is the service's (UTC) day give or take one: a bound of
# today is checked here with that day's slack, so a signer west or east of UTC is never refused their own today.
TODAY_SLACK = timedelta(days=1)


@dataclass(frozen=True)
class Signer:
    """Who a field's placeholders name: the submitter filling it and their submission."""

    submission_id: int
    name: str | None
    email: str | None
    phone: str | None
    role: str


def signer_of(submitter: Submitter) -> Signer:
    return Signer(submitter.submission_id, submitter.name, submitter.email, submitter.phone, submitter.role)


def placeholders(field: Field, text: str, signer: Signer, now: datetime) -> str:
    """`text` with `{{date}}`, `{{time}}`, `{{hour}}` ... `{{year}}`, `{{id}}`, `{{role}}`, `{{email}}`, `{{phone}}`
    and `{{name}}` replaced (in UTC; the date in the field's format); unknown names stay as they are."""
    day = now.date()
    values = {
        "date": value_text.format_date(day.isoformat(), _date_format(field)),
        "time": now.strftime("%H:%M:%S UTC"),
        "hour": str(now.hour),
        "minute": str(now.minute),
        "day": str(day.day),
        "month": str(day.month),
        "year": str(day.year),
        "id": str(signer.submission_id),
        "role": signer.role,
        "email": signer.email or "",
        "phone": signer.phone or "",
        "name": signer.name or "",
    }
    return PLACEHOLDER.sub(lambda match: values.get(match[1].lower(), match[0]), text)


def resolved_default(field: Field, default: FieldValue, signer: Signer, now: datetime) -> FieldValue:
    """A field's default as its value: a date field's `{{date}}` is today (ISO), placeholders in text replaced."""
    if not isinstance(default, str):
        return default
    if field["type"] == "date":
        return now.date().isoformat() if default.strip() in TODAY_WORDS else default
    return placeholders(field, default, signer, now)


def shown_default(field: Field, default: FieldValue, signer: Signer, now: datetime) -> FieldValue:
    """A default as the signing form shows it before the signer changes it: placeholders filled, but a date field's
    `{{date}}` kept (the form shows it as today in the signer's time zone; completion dates it)."""
    if field["type"] == "date" and isinstance(default, str) and default.strip() in TODAY_WORDS:
        return TODAY_WORDS[0]
    return resolved_default(field, default, signer, now)


def shown_to_others(field: Field, text: str) -> str:
    """A value's text as the signed documents, other signers and emails show it: masked when the field says so."""
    return masks.masked(text, (field.get("preferences") or {}).get("mask"))


def masked_values(fields: list[Field], values: dict[str, Any]) -> dict[str, Any]:
    """Values by field uuid as others see them: the text of a field with `preferences.mask` masked."""
    masked = {f["uuid"]: f for f in fields if maskable(f)}
    return {
        uuid: shown_to_others(masked[uuid], value) if uuid in masked and isinstance(value, str) else value
        for uuid, value in values.items()
    }


def maskable(field: Field) -> bool:
    """Whether the field's value is shown masked to others (a text-like field with `preferences.mask`)."""
    return masks.applies(field["type"], field.get("preferences"))


def pattern_message(rules: Mapping[str, Any]) -> str:
    """What a value that does not match the field's pattern is told: its `message`, a preset's, a length's."""
    if message := rules.get("message"):
        return str(message)
    pattern = str(rules.get("pattern") or "")
    if pattern in PRESET_MESSAGES:
        return PRESET_MESSAGES[pattern]
    if length := _LENGTH.fullmatch(pattern):
        low, high = length.groups()
        if low and high:
            return f"must be {low} to {high} characters long"
        if low:
            return f"must be at least {low} characters long"
        if high:
            return f"must be at most {high} characters long"
    return DEFAULT_MESSAGE


def date_bound(bound: object, today: date) -> date | None:
    """A date field's `min` or `max` as a day: an ISO date, or `{{date}}` (`{date}`) for today."""
    if not isinstance(bound, str):
        return None
    if bound.strip() in TODAY_WORDS:
        return today
    try:
        return date.fromisoformat(bound.strip()[:10])
    except ValueError:
        return None


def bound_problem(field: Field, value: object, today: date) -> str | None:
    """What is wrong with a number's or a date's value by the field's `validation.min` and `max`, if anything."""
    rules = field.get("validation") or {}
    if field["type"] == "date" and isinstance(value, str):
        try:
            day = today if value in TODAY_WORDS else date.fromisoformat(value)
        except ValueError:
            return None
        low = date_bound(rules.get("min"), today - TODAY_SLACK)
        high = date_bound(rules.get("max"), today + TODAY_SLACK)
        shown = _date_format(field)
        if low and day < low:
            return f"must be on or after {value_text.format_date(low.isoformat(), shown)}"
        if high and day > high:
            return f"must be on or before {value_text.format_date(high.isoformat(), shown)}"
        return None
    if field["type"] == "number" and _is_number(value):
        number_of = field_option_rules.number_of
        return _number_problem(value, number_of(rules.get("min")), number_of(rules.get("max")))
    return None


def _number_problem(value: float, low: float | None, high: float | None) -> str | None:
    if low is not None and value < low:
        return f"must be at least {_plain(low)}"
    if high is not None and value > high:
        return f"must be at most {_plain(high)}"
    return None


async def refuse_invalid(fields: list[Field], values: Mapping[str, object], today: date) -> None:
    """422 naming the first field whose value breaks its `validation`: its pattern (run in RE2, in linear time), its
    `min` or `max`. Empty values are the `required` rule's business."""
    checks = [
        (field, pattern, value)
        for field in fields
        if isinstance(value := values.get(field["uuid"]), str)
        and value
        and isinstance(pattern := (field.get("validation") or {}).get("pattern"), str)
        and pattern
        and field["type"] in ("text", "cells", "phone")
    ]
    try:
        failed = await patterns.first_mismatch([(pattern, text) for _, pattern, text in checks])
    except patterns.Refused as refused:
        raise errors.Invalid(str(refused)) from None
    mismatched = checks[failed][0] if failed is not None else None
    for field in fields:
        if field is mismatched:
            raise errors.Invalid(f"{field['name']}: {pattern_message(field.get('validation') or {})}")
        if problem := bound_problem(field, values.get(field["uuid"]), today):
            raise errors.Invalid(f"{field['name']}: {problem}")


def _date_format(field: Field) -> str:
    return str((field.get("preferences") or {}).get("format") or value_text.DATE_FORMAT)


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _plain(number: Any) -> str:
    return str(int(number)) if isinstance(number, float) and number.is_integer() else str(number)
