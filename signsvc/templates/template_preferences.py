"""A template's settings as `PUT /templates/{id}` changes them (`preferences`): the settings given are merged into
those it has; a key that is no setting is refused by name."""

from __future__ import annotations

from typing import Any

from signsvc.infra import errors, json_fields
from storage.shapes import TemplatePreferences

FLAGS = ("require_email_2fa",)


def changed(current: TemplatePreferences, given: Any) -> TemplatePreferences:
    if not isinstance(given, dict):
        raise errors.at(("preferences",), "must be an object")
    unknown = sorted(set(given) - set(FLAGS))
    if unknown:
        raise errors.at(("preferences", unknown[0]), "is not a template setting: the settings are " + ", ".join(FLAGS))
    merged = TemplatePreferences(**current)
    if "require_email_2fa" in given:
        merged["require_email_2fa"] = json_fields.flag(given, "require_email_2fa", where=("preferences",))
    return merged
