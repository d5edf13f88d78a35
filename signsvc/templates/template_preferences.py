"""A template's settings as `PUT /templates/{id}` changes them (`preferences`): the keys given replace the stored
ones, null or "" removes a text, the others stay. Known keys only, so a typo never passes silently."""

from __future__ import annotations

from typing import Any

from signsvc.infra import errors, json_fields
from storage.shapes import TemplatePreferences

FLAGS = ("require_email_2fa",)
# The wording of the template's reminder emails, over the account's (`signsvc.submissions.reminders`).
TEXTS = {"invitation_reminder_email_subject": 255, "invitation_reminder_email_body": 10_000}
KNOWN = (*FLAGS, *TEXTS)
WHERE: errors.Location = ("preferences",)


def changed(current: TemplatePreferences, raw: Any) -> TemplatePreferences:
    if not isinstance(raw, dict):
        raise errors.at(WHERE, errors.must_be(dict))
    if unknown := sorted(set(raw) - set(KNOWN)):
        raise errors.at((*WHERE, unknown[0]), f"is not a template setting; the settings are {', '.join(KNOWN)}")
    found = TemplatePreferences(**current)
    if "require_email_2fa" in raw:
        found["require_email_2fa"] = json_fields.flag(raw, "require_email_2fa", where=WHERE)
    for key, limit in TEXTS.items():
        if key not in raw:
            continue
        value = raw[key]
        if value is None or value == "":
            found.pop(key, None)  # type: ignore[misc]
        elif not isinstance(value, str):
            raise errors.at((*WHERE, key), errors.must_be(str))
        elif len(value) > limit:
            raise errors.at((*WHERE, key), f"must be at most {limit} characters")
        else:
            found[key] = value  # type: ignore[literal-required]
    return found
