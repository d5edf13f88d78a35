"""Repairs of generated submissions requests: rules JSON Schema cannot state (see hooks.py)."""

import re
import unicodedata
from typing import Any

from tests.support.documents import b64, png

# Far beyond any clock the fuzzing sets: `expire_at` must be in the future by the service's clock.
_FUTURE = "9990-01-01T00:00:00Z"
_EMAIL_KEYS = ("email", "reply_to", "bcc_completed")
_IMAGE = b64(png(20, 10))
_HTML_WITH_A_FIELD = '<p>Name: <text-field name="Name"></text-field></p>'
_BY_TYPE = {
    "text": "Done",
    "cells": "Done",
    "phone": "+1 555 0100",
    "checkbox": True,
    "date": "2026-01-01",
    "signature": "Signer",
    "initials": "SI",
    "image": _IMAGE,
    "file": _IMAGE,
}


def repair(operation: str, case: Any) -> None:
    """Mends a case generated as valid where the document cannot say what valid is."""
    body = case.body
    if not isinstance(body, dict):
        return
    if operation in ("createSubmission", "initSubmission"):
        _creation(body)
    elif operation in ("createSubmissionFromPdf", "createSubmissionFromHtml", "createSubmissionFromDocx"):
        _one_off(operation, case, body)
    elif operation == "createSubmissionsFromEmails":
        if isinstance(body.get("emails"), str):
            body["emails"] = _short(_printable(body["emails"]))
    elif operation == "updateSubmission":
        _expiry(body)
    elif operation == "updateSubmitter":
        _submitter_update(body["submitter"] if isinstance(body.get("submitter"), dict) else body)
    elif operation in ("startTestingSubmitter", "completeTestingSubmitter") and body.get("values"):
        # Value keys must name the signer's fields, values fit the field types: the template decides.
        body["values"] = {}


def completing_values(fields: list[dict[str, Any]]) -> dict[str, Any]:
    """A value for each field the signer must fill (required, editable, without a default), fit for its type.
    A text field's pattern is not followed: the template's author wrote it for browsers, in any syntax."""
    return {
        field["uuid"]: _value(field)
        for field in fields
        if field["required"]
        and not field.get("readonly")
        and field.get("default_value") in (None, "")
        and field["type"] != "stamp"
    }  # a stamp is made at completion


def _value(field: dict[str, Any]) -> Any:
    options = [option["value"] for option in field.get("options") or []]
    if field["type"] in ("select", "radio") and options:
        return options[0]
    if field["type"] == "multiple" and options:
        return options[:1]
    if field["type"] == "number":
        rules = field.get("validation") or {}
        return next((bound for bound in (rules.get("min"), rules.get("max")) if isinstance(bound, int | float)), 1)
    return _BY_TYPE.get(field["type"], "Done")


def _creation(body: dict[str, Any]) -> None:
    _expiry(body)
    _emails(body)
    submitters = body.get("submitters")
    if not isinstance(submitters, list):
        return
    # At most as many signers as the template has roles, each naming one of them: one signer without a role
    # fits every template that has fields.
    del submitters[1:]
    for submitter in submitters:
        if isinstance(submitter, dict):
            submitter.pop("role", None)
            _fields_free(submitter)
            _emails(submitter)


def _one_off(operation: str, case: Any, body: dict[str, Any]) -> None:
    # Ids of this account's templates: only a link knows them (a template's links to the HTML and DOCX one-offs
    # give one).
    if operation == "createSubmissionFromPdf" or case.meta.phase.name.value != "stateful":
        body.pop("template_ids", None)
    if not isinstance(body.get("submitters"), list) or not body["submitters"]:  # a link gives documents only
        body["submitters"] = [{"email": "signer@example.com"}]
    _creation(body)
    # A one-off submission needs a field: HTML as drawn has tags by chance only (PDFs get one from templates.py).
    documents = body.get("documents")
    if isinstance(body.get("html"), str):
        body["html"] = _HTML_WITH_A_FIELD
    elif isinstance(documents, list) and documents and isinstance(documents[0], dict) and "html" in documents[0]:
        documents[0]["html"] = _HTML_WITH_A_FIELD


def _submitter_update(body: dict[str, Any]) -> None:
    _fields_free(body)
    _emails(body)


def _fields_free(body: dict[str, Any]) -> None:
    """Values, field prefills and read-only names must name the role's fields: the template decides."""
    for key in ("values", "fields", "readonly_fields"):
        body.pop(key, None)


def _expiry(body: dict[str, Any]) -> None:
    if body.get("expire_at") not in (None, ""):
        body["expire_at"] = _FUTURE


def _emails(body: dict[str, Any]) -> None:
    for key in _EMAIL_KEYS:
        if isinstance(body.get(key), str):
            body[key] = _printable(body[key])


def _short(emails: str) -> str:
    """Each address is at most 254 characters: a bound on each item of a list in one text, which a pattern
    could only state with lookaheads that make generating from it fail."""
    return re.sub(r"[^,\n]+", lambda m: m.group() if len(m.group().strip()) <= 254 else " signer@example.com", emails)


def _printable(text: str) -> str:
    """Beyond ASCII the document's email pattern allows any character but whitespace; the server also refuses
    control, format, private-use and unassigned ones (Unicode categories C and Z), which no pattern that
    schemathesis reads can name."""
    return re.sub(r"[^\x00-\x7f]", lambda m: m.group() if unicodedata.category(m.group())[0] not in "ZC" else "e", text)
