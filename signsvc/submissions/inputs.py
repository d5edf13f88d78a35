"""The submission creation input checked into plain data.

Messages name the field and where it is, as ``email is invalid in `submitters[1]`.``; where a
condition has a well-known wording (a type: `values must be a Object`), that wording is used. Keys the
official clients may send that signsvc does not act on (SMS, 2FA) are accepted and ignored;
any other key is refused, so a typo never passes silently.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from signsvc.infra import errors, json_fields
from signsvc.submissions import reminder_schedule
from signsvc.templates import template_fields
from signsvc.templates.template_fields import MAX_FIELDS
from storage.records import MAX_ID
from storage.shapes import Message, Preferences, ReminderSchedule, Validation

MAX_SUBMITTERS = 100
ORDERS = ("preserved", "random")
_LANGUAGE = re.compile(r"[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*")  # fullmatch: `$` would let "de\n" through
# A bare address as mail headers carry it: a dot-atom local part (RFC 5322, with RFC 6531's characters beyond
# ASCII) at a domain of two labels or more. Nothing a header reads otherwise: `grp:evil@x.test` is a group,
# quotes and parentheses hide text.
_LOCAL_CHARACTER = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~\-\u0080-\U0010ffff]"
_DOMAIN_CHARACTER = r"[A-Za-z0-9\u0080-\U0010ffff]"
_LABEL = rf"{_DOMAIN_CHARACTER}+(?:-+{_DOMAIN_CHARACTER}+)*"
# Dots anywhere in the local part: Japanese carriers issued addresses such as `abc..def@docomo.ne.jp`.
_EMAIL = rf"(?:{_LOCAL_CHARACTER}|\.)+@{_LABEL}(?:\.{_LABEL})+"
_PHONE = re.compile(r"^\+\d{6,15}$")
_TOP_KEYS = {
    "template_id",
    "submitters",
    "send_email",
    "send_sms",
    "order",
    "submitters_order",
    "completed_redirect_url",
    "message",
    "expire_at",
    "reply_to",
    "bcc_completed",
    "name",
    "variables",
    "emails",
    "language",
    "require_email_2fa",
    "reminders",
}
# A one-off submission's options: any submission's but a template (its documents and their keys are read by
# `signsvc.submissions.one_off`, which leaves them out of what this module reads).
_ONE_OFF_KEYS = _TOP_KEYS - {"template_id", "emails"}
_SUBMITTER_KEYS = {
    "role",
    "email",
    "phone",
    "name",
    "values",
    "readonly_fields",
    "external_id",
    "application_key",
    "metadata",
    "completed",
    "send_email",
    "send_sms",
    "message",
    "reply_to",
    "completed_redirect_url",
    "uuid",
    "fields",
    "order",
    "roles",
    "go_to_last",
    "require_phone_2fa",
    "require_email_2fa",
    "invite_by",
    "language",
    "send_copy_email",
}


@dataclass(frozen=True)
class SubmitterInput:
    index: int
    role: str | None
    email: str | None
    phone: str | None
    name: str | None
    values: dict[str, Any]
    readonly_fields: list[str]
    external_id: str | None
    metadata: dict[str, Any]
    completed: bool
    send_email: bool
    preferences: Preferences = field(default_factory=Preferences)
    rules: dict[str, Validation] = field(default_factory=dict)  # `fields[].validation` by field name or uuid

    @property
    def where(self) -> errors.Location:
        return ("submitters", self.index)


@dataclass(frozen=True)
class SubmissionInput:
    template_id: int | None  # None: a one-off submission
    submitters: list[SubmitterInput]
    send_email: bool
    order: str
    name: str | None
    expire_at: datetime | None
    preferences: Preferences
    variables: dict[str, Any]
    # A schedule of its own, True for the account's (`reminder_schedule`), False for none: an extension.
    reminders: ReminderSchedule | bool = False


def parse(body: dict[str, Any], now: datetime, *, one_off: bool = False) -> SubmissionInput:
    """The request of POST /submissions; `one_off`: the options of a one-off submission, which has no
    `template_id`."""
    _refuse_unknown(body, _ONE_OFF_KEYS if one_off else _TOP_KEYS, ())
    raw_submitters = body.get("submitters")
    if raw_submitters is None or raw_submitters == []:
        raise errors.located("submitters is required", (), "submitters")
    if not isinstance(raw_submitters, list):
        raise errors.located(f"submitters {errors.must_be(list)}", (), "submitters")
    if len(raw_submitters) > MAX_SUBMITTERS:
        raise errors.located(f"submitters must have at most {MAX_SUBMITTERS} entries", (), "submitters")
    given, alias = _order(body, "order"), _order(body, "submitters_order")  # both checked
    order = given or alias or "preserved"
    return SubmissionInput(
        template_id=None if one_off else template_id(body),
        submitters=[submitter(raw, index) for index, raw in enumerate(raw_submitters)],
        send_email=json_fields.flag(body, "send_email", True),
        order=order,
        name=json_fields.text(body, "name", limit=255),
        expire_at=expire_at(body.get("expire_at"), now),
        preferences=preferences(body, ()),
        variables=_object(body, "variables", ()),
        reminders=reminders(body.get("reminders")),
    )


def reminders(raw: Any) -> ReminderSchedule | bool:
    """`reminders`: false or null (none, the API's default), true (the account's setting), or a schedule."""
    if raw is None or isinstance(raw, bool):
        return bool(raw)
    return reminder_schedule.parse(raw, ("reminders",))


def _order(body: dict[str, Any], key: str) -> str | None:
    """`order` (or its other name `submitters_order`): preserved or random; null or empty is none."""
    value = body.get(key)
    if value is not None and value != "" and value not in ORDERS:
        raise errors.located("order must be one of preserved, random", (), key)
    return value or None


def template_id(body: dict[str, Any]) -> int:
    value = body.get("template_id")
    if value is None:
        raise errors.located("template_id is required", (), "template_id")
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if isinstance(value, float) and value.is_integer():  # JSON's 7.0 is the integer 7
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 < value <= MAX_ID:
        raise errors.located("template_id must be a positive integer", (), "template_id")
    return value


def submitter(raw: Any, index: int) -> SubmitterInput:
    where: errors.Location = ("submitters", index)
    if not isinstance(raw, dict):
        raise errors.at(where, errors.must_be(dict))
    _refuse_unknown(raw, _SUBMITTER_KEYS, where)
    name, email, phone = (_text(raw, key, where) for key in ("name", "email", "phone"))
    if not (name or email or phone):
        raise errors.located("email or phone or name is required", where)
    values = {**fields_values(raw, where), **_object(raw, "values", where)}
    return SubmitterInput(
        index=index,
        role=_text(raw, "role", where) or None,
        email=checked_email(email, "email", where),
        phone=checked_phone(phone, where),
        name=name,
        values=values,
        readonly_fields=_readonly_fields(raw, where),
        external_id=external_id(raw, where),
        metadata=_object(raw, "metadata", where),
        completed=_flag(raw, "completed", False, where),
        send_email=_flag(raw, "send_email", True, where),
        preferences=preferences(raw, where),
        rules=fields_rules(raw, where),
    )


def preferences(raw: dict[str, Any], where: errors.Location) -> Preferences:
    """The invitation settings of a submission or a submitter: message, reply_to, bcc_completed, redirect,
    the language of the signing page, whether a submitter gets the completed copy, and whether they prove their
    email address with a code before the form opens (`require_email_2fa`)."""
    found: Preferences = {}
    if where and raw.get("send_copy_email") is not None:
        found["send_copy_email"] = _flag(raw, "send_copy_email", True, where)
    if (message := _message(raw, where)) is not None:
        found["message"] = message
    if (reply_to := checked_email(_text(raw, "reply_to", where), "reply_to", where)) is not None:
        found["reply_to"] = reply_to
    if not where and (bcc := checked_email(_text(raw, "bcc_completed", where), "bcc_completed", where)):
        found["bcc_completed"] = bcc
    if (url := _text(raw, "completed_redirect_url", where)) is not None:
        if not re.match(r"^https?://[^\s/]+", url, re.IGNORECASE):
            raise errors.located(
                "completed_redirect_url must be an http:// or https:// URL", where, "completed_redirect_url"
            )
        found["completed_redirect_url"] = url
    if raw.get("require_email_2fa") is not None:
        found["require_email_2fa"] = _flag(raw, "require_email_2fa", False, where)
    if (language := _text(raw, "language", where, limit=35)) is not None:
        if not _LANGUAGE.fullmatch(language):
            raise errors.located("language must be a language tag such as en or de-AT", where, "language")
        found["language"] = language
    return found


def checked_email(value: str | None, key: str, where: errors.Location) -> str | None:
    """The address lowercased; `email is invalid` or, for another key, `reply_to email is invalid`."""
    if value is None or value == "":
        return None
    value = value.strip()
    if not is_email(value):
        raise errors.located("email is invalid" if key == "email" else f"{key} email is invalid", where, key)
    return value.lower()


def is_email(value: str) -> bool:
    return len(value) <= 254 and bool(_email().fullmatch(value)) and all(map(_printable, value))


@functools.cache
def _email() -> re.Pattern[str]:
    """Compiled on first use, not at every start: its classes up to U+10FFFF take about 10 ms to compile."""
    return re.compile(_EMAIL)


def _printable(character: str) -> bool:
    """Not a space, a control or an invisible format character (such as a right-to-left override)."""
    return character.isascii() or unicodedata.category(character)[0] not in "ZC"


def checked_phone(value: str | None, where: errors.Location) -> str | None:
    if value is None or value == "":
        return None
    compact = re.sub(r"[\s().-]", "", value)
    if not _PHONE.match(compact):
        raise errors.located("phone should start with +<country code> and contain only digits", where, "phone")
    return compact


def external_id(raw: dict[str, Any], where: errors.Location) -> str | None:
    """`external_id`, or its other name `application_key` when it is absent or null; both are checked."""
    found = [_external_id(raw, key, where) for key in ("external_id", "application_key")]
    return found[0] if found[0] is not None else found[1]


def _external_id(raw: dict[str, Any], key: str, where: errors.Location) -> str | None:
    value = raw.get(key)
    if isinstance(value, float) and value.is_integer():  # JSON's 7.0 is the integer 7
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if value is not None and not isinstance(value, str):
        raise errors.located(f"{key} {errors.must_be(str)}", where, key)
    return value


def expire_at(value: Any, now: datetime) -> datetime | None:
    """A timestamp: ISO 8601 (UTC unless it names its offset), `2024-09-01 12:00:00 UTC`, or Unix seconds."""
    if value is None or value == "":
        return None
    moment = timestamp(value, "expire_at")
    if moment <= now:
        raise errors.located("expire_at must be in the future", (), "expire_at")
    return moment


def timestamp(value: Any, key: str) -> datetime:
    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return datetime.fromtimestamp(value, UTC)
        if isinstance(value, str):
            return json_fields.utc_moment(value)
    except (ValueError, OverflowError, OSError):
        pass
    raise errors.located(f"{key} must be a timestamp, such as 2026-09-01T12:00:00Z", (), key)


def _message(raw: dict[str, Any], where: errors.Location) -> Message | None:
    """A custom invitation `{subject, body}`; null or `{}` is none (the default wording)."""
    message = raw.get("message")
    if message is None or message == {}:
        return None
    if not isinstance(message, dict):
        raise errors.located(f"message {errors.must_be(dict)}", where, "message")
    place = (*where, "message")
    body = _text(message, "body", place, limit=20_000)
    if not body or not body.strip():
        raise errors.located("body is required", place, "body")
    subject = _text(message, "subject", place)
    return {"subject": subject or "", "body": body}


def fields_values(raw: dict[str, Any], where: errors.Location) -> dict[str, Any]:
    """The other prefill route: `fields: [{name, default_value}]`."""
    items = raw.get("fields")
    if items is None:
        return {}
    if not isinstance(items, list):
        raise errors.located(f"fields {errors.must_be(list)}", where, "fields")
    found = {}
    for position, item in enumerate(items):
        place = (*where, "fields", position)
        if not isinstance(item, dict):
            raise errors.located("name or uuid is required", place)
        for name in ("name", "uuid"):
            if item.get(name) is not None and not isinstance(item[name], str):
                raise errors.located(f"{name} {errors.must_be(str)}", place, name)
        if item.get("readonly") is not None and not isinstance(item["readonly"], bool):
            raise errors.located("readonly must be true or false", place, "readonly")
        key = item.get("name") or item.get("uuid")
        if not isinstance(key, str):
            raise errors.located("name or uuid is required", place)
        if "default_value" in item:
            found[key] = item["default_value"]
    return found


def fields_rules(raw: dict[str, Any], where: errors.Location) -> dict[str, Validation]:
    """`fields: [{name, validation}]`: rules that replace the template's for this submission, each pattern in
    the syntax `patterns` accepts (DocuSeal's `validation_pattern` and `invalid_message` are read as
    `validation.pattern` and `validation.message`)."""
    found = {}
    for position, item in enumerate(raw["fields"] if isinstance(raw.get("fields"), list) else []):
        place = (*where, "fields", position)
        rules = _object(item, "validation", place)
        named = {"pattern": item.get("validation_pattern"), "message": item.get("invalid_message")}
        rules = {**rules, **{key: value for key, value in named.items() if value is not None}}
        if rules:
            try:
                checked = template_fields.validation(rules, ("validation",))
            except errors.Invalid as refused:
                raise errors.located(refused.message, place, "validation") from None
            found[item.get("name") or item.get("uuid")] = checked
    return found


def _readonly_fields(raw: dict[str, Any], where: errors.Location) -> list[str]:
    names = raw.get("readonly_fields")
    names = [] if names is None else names
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise errors.located("readonly_fields must be an array of field names", where, "readonly_fields")
    if len(names) > MAX_FIELDS:
        raise errors.located(
            f"readonly_fields has {len(names)} names: a template has at most {MAX_FIELDS} fields",
            where,
            "readonly_fields",
        )
    fields = raw["fields"] if isinstance(raw.get("fields"), list) else []
    return names + [item.get("name") or item.get("uuid") for item in fields if item.get("readonly") is True]


def _refuse_unknown(raw: dict[str, Any], known: set[str], where: errors.Location) -> None:
    unknown = sorted(set(raw) - known)
    if unknown:
        raise errors.located(f"Unknown key: {unknown[0]}", where)


def _text(raw: dict[str, Any], key: str, where: errors.Location, limit: int = 255) -> str | None:
    value = raw.get(key)
    if value is not None and not isinstance(value, str):
        raise errors.located(f"{key} {errors.must_be(str)}", where, key)
    if value is not None and len(value) > limit:
        raise errors.located(f"{key} is too long: at most {limit} characters", where, key)
    return value


def _flag(raw: dict[str, Any], key: str, default: bool, where: errors.Location) -> bool:
    value = raw.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise errors.located(f"{key} must be true or false", where, key)
    return value


def _object(raw: dict[str, Any], key: str, where: errors.Location) -> dict[str, Any]:
    """A free-form object; `values` carry files as base64, so only their depth is bounded here."""
    value = raw.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise errors.located(f"{key} {errors.must_be(dict)}", where, key)
    if problem := json_fields.free_object_problem(value, sized=key != "values"):
        raise errors.located(f"{key} {problem}", where, key)
    return value
