"""What the audit log PDF shows, gathered from a completed submission's records.

`signsvc.pdf.audit_log` documents the shape of the log; this module fills it in: the documents with
both hashes, each submitter's details, signature images and values, and the event log, every fixed text in the
log's language: the submission's `language`, else its first submitter's, else English.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from signsvc.infra import languages
from signsvc.submissions import condition_values, field_options, field_values, signing_reasons, statuses
from storage.records import Submission, SubmissionEvent, Submitter
from storage.shapes import Field, FieldValue

IMAGE_TYPES = {"signature", "initials", "image", "stamp"}
WORDS = ("record.", "audit_log.")  # the catalogue's keys the drawing is handed
# Per event type, its sentence naming the signer, and the one for an event no signer is named in.
_SENTENCES = {
    "send_email": ("audit_log.event.send_email", "audit_log.unnamed.send_email"),
    "send_reminder_email": ("audit_log.event.send_reminder_email", "audit_log.unnamed.send_reminder_email"),
    "open_email": ("audit_log.event.open_email", "audit_log.unnamed.open_email"),
    "click_email": ("audit_log.event.click_email", "audit_log.unnamed.click_email"),
    "view_form": ("audit_log.event.view_form", "audit_log.unnamed.view_form"),
    "start_form": ("audit_log.event.start_form", "audit_log.unnamed.start_form"),
    "complete_form": ("audit_log.event.complete_form", "audit_log.unnamed.complete_form"),
    "api_complete_form": ("audit_log.event.api_complete_form", "audit_log.unnamed.api_complete_form"),
    "decline_form": ("audit_log.event.decline_form", "audit_log.unnamed.decline_form"),
    "invite_party": ("audit_log.event.invite_party", "audit_log.unnamed.invite_party"),
    "send_2fa_email": ("audit_log.event.send_2fa_email", "audit_log.unnamed.send_2fa_email"),
    "email_verified": ("audit_log.event.email_verified", "audit_log.unnamed.email_verified"),
}
_CREATED = {
    "api": "audit_log.created.api",
    "link": "audit_log.created.link",
    "clickwrap": "audit_log.created.clickwrap",
    "bulk": "audit_log.created.bulk",
    "invite": "audit_log.created.invite",
}
_STATUSES = {
    "awaiting": "audit_log.status.awaiting",
    "sent": "audit_log.status.sent",
    "opened": "audit_log.status.opened",
    "completed": "audit_log.status.completed",
    "declined": "audit_log.status.declined",
}


def log(
    submission: Submission,
    submitters: list[Submitter],
    events: list[SubmissionEvent],
    *,
    documents: list[dict[str, str]],
    images: dict[str, bytes],
    filenames: dict[str, str],
    test_mode: bool,
    generated_at: datetime,
) -> dict[str, Any]:
    """The audit log of `submission`; `images` and `filenames` are its attachments by blob uuid."""
    language = language_of(submission, submitters)
    t = languages.translator(language)
    by_id = {submitter.id: submitter for submitter in submitters}
    created = {"time": submission.created_at.isoformat(), "text": _created(submission.source, t)}
    events_shown = [created] + [
        {"time": event.event_timestamp.isoformat(), "text": _sentence(event, by_id, t)} for event in events
    ]
    if submission.completed_at:  # each signer's completion is their part; this line is the whole submission's
        events_shown.append({"time": submission.completed_at.isoformat(), "text": t("audit_log.completed")})
    events_shown.sort(key=lambda shown: datetime.fromisoformat(shown["time"]))  # stable: same times keep their order
    return {
        "language": language,
        "words": languages.words(language, WORDS),
        "title": submission.name or submission.template_name,
        "envelope_id": submission.envelope_id,
        "test_mode": test_mode,
        "generated_at": generated_at.isoformat(),
        "documents": documents,
        "submitters": [_submitter(submission, submitter, images, filenames, submitters, t) for submitter in submitters],
        "events": events_shown,
    }


def language_of(submission: Submission, submitters: list[Submitter]) -> str:
    """The audit log's language: the submission's, else its first submitter's, else English."""
    first = submitters[0].preferences.get("language") if submitters else None
    return languages.of(submission.preferences.get("language"), first)


def _submitter(
    submission: Submission,
    submitter: Submitter,
    images: dict[str, bytes],
    filenames: dict[str, str],
    everyone: list[Submitter],
    t: Callable[..., str],
) -> dict[str, Any]:
    shown, pictures = [], []
    merged = {uuid: value for each in everyone for uuid, value in each.field_values.items()}
    role_fields = field_values.role_fields(submission.fields, submitter.role_uuid)
    for field in condition_values.visible_fields(submission, role_fields, merged):  # as drawn: none that do not apply
        value = submitter.field_values.get(field["uuid"])
        if value is None or value == "" or value == []:
            continue
        if field["type"] in IMAGE_TYPES:
            if str(value) in images:
                pictures.append({"label": field["name"], "png": images[str(value)]})
            if (reason := signing_reasons.kept(field, submitter.field_values)) is not None:
                shown.append({"field": t("audit_log.reason", field=field["name"]), "value": reason})
            continue
        shown.append({"field": field["name"], "value": _text(field, value, filenames, t)})
    return {
        "role": submitter.role,
        "name": submitter.name,
        "email": submitter.email,
        "phone": submitter.phone,
        "ip": submitter.ip,
        "user_agent": submitter.ua,
        "status": t(_STATUSES[statuses.submitter_status(submitter)]),
        "completed_at": submitter.completed_at.isoformat() if submitter.completed_at else None,
        "images": pictures,
        "values": shown,
    }


def _text(field: Field, value: FieldValue, filenames: dict[str, str], t: Callable[..., str]) -> str:
    shown = field_values.display(field, value, lambda uuid: filenames.get(uuid, t("audit_log.file")))
    if isinstance(shown, bool):
        return t("audit_log.yes") if shown else t("audit_log.no")
    if isinstance(shown, list):
        return ", ".join(str(item) for item in shown)
    return field_options.shown_to_others(field, str(shown)) if field_options.maskable(field) else str(shown)


def _created(source: str, t: Callable[..., str]) -> str:
    return t(_CREATED[source]) if source in _CREATED else t("audit_log.created.other", source=source)


def _sentence(event: SubmissionEvent, submitters: dict[int, Submitter], t: Callable[..., str]) -> str:
    """The event told as its language says it, naming its signer; an event of no signer the log has (none is
    recorded so today) is told without a person rather than given to someone it may not be."""
    submitter = submitters.get(event.submitter_id) if event.submitter_id is not None else None
    keys, name = _SENTENCES.get(event.event_type), event.event_type.replace("_", " ").capitalize()
    if submitter is None:
        sentence = t(keys[1]) if keys else name
    else:
        who = submitter.email or submitter.name or submitter.phone or submitter.role
        sentence = t(keys[0], who=who) if keys else t("audit_log.event.other", event=name, who=who)
    reason = event.data.get("reason") if event.event_type == "decline_form" else None
    return sentence + (f": {reason}" if reason else "")
