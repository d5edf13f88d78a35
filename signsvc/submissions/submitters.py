"""Signers (SPEC section 3, Submitter status): what the API and the signer's own actions change.

Every change locks the submission row first, so actions on one submission take turns: two last
signers completing at once give one completion. The signer actions are authenticated by the
signer's slug; each refuses a finished signer, a closed submission, and a signer whose turn
(in `preserved` order) has not come.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import storage.submissions as stored
from signsvc.accounts import auth
from signsvc.infra import errors
from signsvc.webhooks import events
from signsvc.submissions import field_values
from signsvc.infra import json_fields as inputs
from signsvc.submissions import invitations
from signsvc.results import produce as results
from signsvc.submissions import values as signer_values
from signsvc.submissions import statuses
from signsvc.templates.documents import Ingest
from signsvc.infra.services import Services
from signsvc.submissions.values import PreparedValues
from signsvc.submissions.inputs import checked_email, checked_phone, external_id, fields_values, preferences
from storage import Connection
from storage.records import Principal, Submission, Submitter

_PUT_KEYS = {"name", "email", "phone", "values", "external_id", "application_key", "metadata", "completed",
             "send_email", "send_sms", "reply_to", "completed_redirect_url", "message", "fields",
             "require_phone_2fa", "require_email_2fa", "go_to_last"}


async def find(conn: Connection, principal: Principal, submitter_id: int) -> Submitter:
    return auth.owned(principal, await stored.get_submitter(conn, submitter_id), "Submitter")


async def complete(tx: Connection, services: Services, submission: Submission, signer: Submitter, *,
                   via_api: bool, ip: str | None = None, ua: str | None = None, invite_next: bool = True) -> Submitter:
    """Marks the signer completed; the last one completes the submission, others invite the next.

    `form.completed` (and `submission.completed`) come from the job that produces the signer's documents."""
    now = services.clock.now()
    values = _with_defaults(submission, signer, now)
    signer = await stored.update_submitter(
        tx, stored.changed(signer, completed_at=now, opened_at=signer.opened_at or (None if via_api else now),
                           field_values=values, ip=ip, ua=ua), now)
    await stored.insert_event(tx, submission_id=submission.id, submitter_id=signer.id,
                              event_type="api_complete_form" if via_api else "complete_form", data={}, now=now)
    if await stored.count_unfinished(tx, submission.id) == 0:
        last = await stored.complete_submission(tx, submission.id, now)
        await results.completed_job(tx, services, signer, last=last)
    else:
        await results.completed_job(tx, services, signer, last=False)
        if invite_next:
            await invitations.invite_due(tx, services, submission)
    return signer


async def update(services: Services, ingest: Ingest, principal: Principal, submitter_id: int,
                 body: dict[str, Any]) -> Submitter:
    """PUT /submitters/{id}: fix contact details, merge values, invite, or mark completed."""
    body = body["submitter"] if isinstance(body.get("submitter"), dict) else body
    unknown = sorted(set(body) - _PUT_KEYS)
    if unknown:
        raise errors.Invalid(f"Unknown key: {unknown[0]}")
    signer = await find(services.db, principal, submitter_id)
    submission = await stored.get_submission(services.db, signer.submission_id)
    _refuse_finished_by_api(signer)
    prepared = await _prepared(ingest, submission, signer, body)
    await services.files.write(prepared.files)
    try:
        async with services.db.transaction() as tx:
            submission, signer, _ = await _locked(tx, signer.id)
            _refuse_finished_by_api(signer)
            signer = await _apply_changes(tx, services, submission, signer, body, prepared)
            if inputs.flag(body, "completed", False):
                signer = await complete(tx, services, submission, signer, via_api=True)
            elif body.get("send_email") is True:
                signer = await invitations.invite(tx, services, submission, signer)
            return signer
    except BaseException:
        await services.files.discard(prepared.files)
        raise


async def view(services: Services, slug: str) -> Submitter:
    """The signer opened the form: `opened` (its time kept from the latest visit) and `form.viewed`."""
    async with services.db.transaction() as tx:
        submission, signer = await _acting(tx, services, slug)
        now = services.clock.now()
        signer = await stored.update_submitter(tx, stored.changed(signer, opened_at=now), now)
        await stored.insert_event(tx, submission_id=submission.id, submitter_id=signer.id, event_type="view_form",
                                  data={}, now=now)
        await _event(tx, services, signer, "form.viewed")
        return signer


async def save(services: Services, ingest: Ingest, slug: str, body: dict[str, Any]) -> Submitter:
    """Saves values the signer entered; the first save is `form.started`."""
    return await _with_values(services, ingest, slug, body, finish=None)


async def finish(services: Services, ingest: Ingest, slug: str, body: dict[str, Any], *, ip: str | None,
                 ua: str | None) -> Submitter:
    """The signer submits the form: required fields are checked, the caller's address recorded."""
    return await _with_values(services, ingest, slug, body, finish=(ip, ua))


async def decline(services: Services, slug: str, body: dict[str, Any]) -> Submitter:
    reason = inputs.text(body, "reason", limit=1000)
    if not reason or not reason.strip():
        raise errors.Invalid("reason is required: say why the form is declined")
    async with services.db.transaction() as tx:
        submission, signer = await _acting(tx, services, slug)
        now = services.clock.now()
        signer = await stored.update_submitter(tx, stored.changed(
            signer, declined_at=now, decline_reason=reason, opened_at=signer.opened_at or now), now)
        await stored.decline_submission(tx, submission.id, now)
        await stored.insert_event(tx, submission_id=submission.id, submitter_id=signer.id, event_type="decline_form",
                                  data={"reason": reason}, now=now)
        await _event(tx, services, signer, "form.declined")
        return signer


async def _with_values(services: Services, ingest: Ingest, slug: str, body: dict[str, Any],
                       finish: tuple[str | None, str | None] | None) -> Submitter:
    async with services.db.transaction() as tx:
        submission, signer = await _acting(tx, services, slug)
    raw = body.get("values", {})
    prepared = await signer_values.prepare(ingest, signer_values.role_fields(submission, signer.role_uuid), raw,
                                           "values")
    _refuse_readonly(submission, signer, prepared)
    await services.files.write(prepared.files)
    try:
        async with services.db.transaction() as tx:
            submission, signer = await _acting(tx, services, slug)
            signer = await _save_values(tx, services, submission, signer, prepared)
            if finish is not None:
                _require_fields(submission, signer)
                signer = await complete(tx, services, submission, signer, via_api=False, ip=finish[0],
                                        ua=finish[1])
            return signer
    except BaseException:
        await services.files.discard(prepared.files)
        raise


async def _save_values(tx: Connection, services: Services, submission: Submission, signer: Submitter,
                       prepared: PreparedValues) -> Submitter:
    now = services.clock.now()
    values = {**signer.field_values, **await signer_values.record(tx, services, signer, prepared)}
    first_save = signer.started_at is None
    signer = await stored.update_submitter(tx, stored.changed(
        signer, field_values=values, opened_at=signer.opened_at or now, started_at=signer.started_at or now), now)
    if first_save:
        await stored.insert_event(tx, submission_id=submission.id, submitter_id=signer.id, event_type="start_form",
                                  data={}, now=now)
        await _event(tx, services, signer, "form.started")
    return signer


async def _acting(tx: Connection, services: Services, slug: str) -> tuple[Submission, Submitter]:
    """The submission and signer a signing link names, locked, when the signer may act now."""
    found = await stored.find_submitter_by_slug(tx, slug)
    if found is None:
        raise errors.NotFound("Signing link not found")
    submission, signer, signers = await _locked(tx, found.id)
    if signer.completed_at:
        raise errors.Invalid("Form has been completed already.")
    if signer.declined_at:
        raise errors.Invalid("Form has been declined.")
    if submission.archived_at:
        raise errors.Invalid("Form has been archived.")
    status = statuses.submission_status(submission, services.clock.now())
    if status != "pending":
        raise errors.Invalid(f"Form has been {status}.")
    if not statuses.turn_has_come(submission, signer, signers):
        raise errors.Invalid("It is not this signer's turn yet: the signers before them have not completed")
    return submission, signer


async def _locked(tx: Connection, submitter_id: int) -> tuple[Submission, Submitter, list[Submitter]]:
    """The signer's submission locked, then the signer and all signers as they are now."""
    signer = await stored.get_submitter(tx, submitter_id)
    submission = await stored.lock_submission(tx, signer.submission_id)
    signers = await stored.submitters_of(tx, submission.id)
    return submission, next(s for s in signers if s.id == submitter_id), signers


async def _prepared(ingest: Ingest, submission: Submission, signer: Submitter, body: dict[str, Any]) -> PreparedValues:
    """The values to merge: `values`, and `fields: [{name, default_value}]` (the other prefill route)."""
    if body.get("values") is None and body.get("fields") is None:
        return PreparedValues()
    if body.get("values") is not None and not isinstance(body["values"], dict):
        raise errors.Invalid("values must be an object")
    raw = {**fields_values(body, "submitter"), **(body.get("values") or {})}
    return await signer_values.prepare(ingest, signer_values.role_fields(submission, signer.role_uuid), raw,
                                       "values")


async def _apply_changes(tx: Connection, services: Services, submission: Submission, signer: Submitter,
                         body: dict[str, Any], prepared: PreparedValues) -> Submitter:
    changes: dict[str, Any] = {}
    for key in ("name", "email", "phone"):
        if key in body:
            changes[key] = inputs.text(body, key, limit=255) or None
    if "email" in changes:
        changes["email"] = checked_email(changes["email"], "email", None)
    if "phone" in changes:
        changes["phone"] = checked_phone(changes["phone"], None)
    if "external_id" in body or "application_key" in body:
        changes["external_id"] = external_id(body, None)
    if "metadata" in body:
        if not isinstance(body["metadata"], dict):
            raise errors.Invalid("metadata must be an object")
        changes["metadata"] = body["metadata"]
    settings = {**signer.preferences, **preferences(body, "submitter")}
    if "send_email" in body:
        settings["send_email"] = inputs.flag(body, "send_email")
    changes["preferences"] = settings
    changes["field_values"] = {**signer.field_values, **await signer_values.record(tx, services, signer, prepared)}
    return await stored.update_submitter(tx, stored.changed(signer, **changes), services.clock.now())


def _refuse_finished_by_api(signer: Submitter) -> None:
    if signer.completed_at:
        raise errors.Invalid("Submitter has already completed the submission.")
    if signer.declined_at:
        raise errors.Invalid("Submitter has already declined the submission.")


def _refuse_readonly(submission: Submission, signer: Submitter, prepared: PreparedValues) -> None:
    fields = signer_values.role_fields(submission, signer.role_uuid)
    for field in fields:
        if field.get("readonly") and field["uuid"] in prepared.values:
            raise errors.Invalid(f"{field['name']} is a read-only field")


def _require_fields(submission: Submission, signer: Submitter) -> None:
    fields = signer_values.role_fields(submission, signer.role_uuid)
    missing = field_values.missing_required(fields, signer.field_values)
    if missing is not None:
        raise errors.Invalid(f"{missing['name']} is required")


def _with_defaults(submission: Submission, signer: Submitter, now: datetime) -> dict[str, Any]:
    """The signer's values with the fields' defaults under them and `{{date}}` as the completion day."""
    values = {f["uuid"]: f["default_value"] for f in signer_values.role_fields(submission, signer.role_uuid)
              if f.get("default_value") not in (None, "")}
    values.update(signer.field_values)
    return {uuid: now.date().isoformat() if value == "{{date}}" else value for uuid, value in values.items()}


async def _event(tx: Connection, services: Services, signer: Submitter, event_type: str) -> None:
    await events.record(tx, services.clock, account_id=signer.account_id, event_type=event_type,
                        record_type="submitter", record_id=signer.id)
