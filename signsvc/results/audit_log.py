"""What the audit log PDF shows, gathered from a completed submission's records.

`signsvc.pdf.audit_log` documents the shape of the log; this module fills it in: the documents with
both hashes, each submitter's details, signature images and values, and the event log.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from signsvc.submissions import condition_values, field_options, field_values, signing_reasons, statuses
from storage.records import Submission, SubmissionEvent, Submitter
from storage.shapes import Field, FieldValue

IMAGE_TYPES = {"signature", "initials", "image", "stamp"}
_SENTENCES = {
    "send_email": "Email sent to {}",
    "send_reminder_email": "Reminder email sent to {}",
    "open_email": "Email opened by {}",
    "click_email": "Email link clicked by {}",
    "view_form": "Form viewed by {}",
    "start_form": "Submission started by {}",
    "complete_form": "Form completed by {}",
    "api_complete_form": "Form of {} marked completed via API",
    "decline_form": "Form declined by {}",
    "invite_party": "Invitation prepared for {}",
    "send_2fa_email": "Verification code sent to {}",
    "email_verified": "Email address verified by {}",
}

COMPLETED = "Submission completed: every signer completed their part"


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
    by_id = {submitter.id: submitter for submitter in submitters}
    created = {
        "time": submission.created_at.isoformat(),
        "text": f"Submission created via {'API' if submission.source == 'api' else submission.source}",
    }
    events_shown = [created] + [
        {"time": event.event_timestamp.isoformat(), "text": _sentence(event, by_id)} for event in events
    ]
    if submission.completed_at:  # each signer's completion is their part; this line is the whole submission's
        events_shown.append({"time": submission.completed_at.isoformat(), "text": COMPLETED})
    events_shown.sort(key=lambda shown: datetime.fromisoformat(shown["time"]))  # stable: same times keep their order
    return {
        "title": submission.name or submission.template_name,
        "envelope_id": submission.envelope_id,
        "test_mode": test_mode,
        "generated_at": generated_at.isoformat(),
        "documents": documents,
        "submitters": [_submitter(submission, submitter, images, filenames, submitters) for submitter in submitters],
        "events": events_shown,
    }


def _submitter(
    submission: Submission,
    submitter: Submitter,
    images: dict[str, bytes],
    filenames: dict[str, str],
    everyone: list[Submitter],
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
                shown.append({"field": f"{field['name']}: {signing_reasons.NAME}", "value": reason})
            continue
        shown.append({"field": field["name"], "value": _text(field, value, filenames)})
    return {
        "role": submitter.role,
        "name": submitter.name,
        "email": submitter.email,
        "phone": submitter.phone,
        "ip": submitter.ip,
        "user_agent": submitter.ua,
        "status": statuses.submitter_status(submitter),
        "completed_at": submitter.completed_at.isoformat() if submitter.completed_at else None,
        "images": pictures,
        "values": shown,
    }


def _text(field: Field, value: FieldValue, filenames: dict[str, str]) -> str:
    shown = field_values.display(field, value, lambda uuid: filenames.get(uuid, "file"))
    if isinstance(shown, bool):
        return "Yes" if shown else "No"
    if isinstance(shown, list):
        return ", ".join(str(item) for item in shown)
    return field_options.shown_to_others(field, str(shown)) if field_options.maskable(field) else str(shown)


def _sentence(event: SubmissionEvent, submitters: dict[int, Submitter]) -> str:
    submitter = submitters.get(event.submitter_id) if event.submitter_id is not None else None
    who = (submitter.email or submitter.name or submitter.phone or submitter.role) if submitter else "the sender"
    sentence = _SENTENCES.get(event.event_type, event.event_type.replace("_", " ").capitalize() + " by {}")
    reason = event.data.get("reason") if event.event_type == "decline_form" else None
    return sentence.format(who) + (f": {reason}" if reason else "")
