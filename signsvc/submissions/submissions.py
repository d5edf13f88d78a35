"""Submissions (SPEC sections 3 and 4): a template sent to its signers, followed to its end.

Creation checks everything first (input, template, roles, values, files), then writes the
submission, its signers, its events, its invitations and its expiry timer in one transaction.
"""

from __future__ import annotations

import uuid as uuids
from dataclasses import replace
from datetime import datetime
from typing import Any

import storage.results as stored_results
import storage.submissions as stored
import storage.templates as stored_templates
from signsvc.accounts import auth
from signsvc.infra import errors
from signsvc.webhooks import events
from signsvc.submissions import field_values
from signsvc.infra import json_fields as inputs
from signsvc.submissions import invitations
from signsvc.infra import jobs
from signsvc.infra import tokens as keys
from signsvc.submissions import values as signer_values
from signsvc.submissions import inputs as submission_input
from signsvc.submissions import submitters
from signsvc.templates.documents import Ingest
from signsvc.infra.services import Services
from signsvc.submissions.values import PreparedValues
from signsvc.submissions.inputs import SignerInput, SubmissionInput
from storage import Connection
from storage.records import Principal, Submission, Submitter, Template

EXPIRE_JOB = "submissions.expire"


async def create(services: Services, ingest: Ingest, principal: Principal, body: dict[str, Any],
                 *, source: str = "api") -> tuple[Submission, list[Submitter]]:
    request = submission_input.parse(body, services.clock.now())
    template = await _template(services, principal, request.template_id)
    assigned = _assign_roles(template, request.signers)
    fields = _fields_with_readonly(template, assigned)
    prepared = [await signer_values.prepare(ingest, _fields_of(field_values.named(fields), role), signer.values,
                                            f"{signer.where}.values") for signer, role in assigned]
    files = [file for values in prepared for file in values.files]
    await services.files.write(files)
    try:
        async with services.db.transaction() as tx:
            submission = await _insert(tx, services, principal, template, request, fields, source)
            signers = [(signer, await _insert_signer(tx, services, submission, signer, role, values))
                       for (signer, role), values in zip(assigned, prepared)]
            await _started(tx, services, submission, signers)
            return submission, await stored.submitters_of(tx, submission.id)
    except BaseException:
        await services.files.discard(files)
        raise


async def find(conn: Connection, principal: Principal, submission_id: int) -> Submission:
    return auth.owned(principal, await stored.get_submission(conn, submission_id), "Submission")


async def update(services: Services, principal: Principal, submission_id: int, body: dict[str, Any]) -> Submission:
    """PUT /submissions/{id}: rename, change or clear `expire_at` (rescheduling expiry), archive or restore."""
    unknown = sorted(set(body) - {"name", "expire_at", "archived", "archived_at"})
    if unknown:
        raise errors.Invalid(f"Unknown key: {unknown[0]}")
    now = services.clock.now()
    async with services.db.transaction() as tx:
        submission = await find(tx, principal, submission_id)
        changed = _changed(submission, body, now)
        await stored.update_submission(tx, changed, now)
        if changed.expire_at != submission.expire_at and changed.expire_at:
            await _schedule_expiry(tx, services, changed)
        if changed.archived_at and not submission.archived_at:
            await _event(tx, services, changed, "submission.archived")
        return await stored.get_submission(tx, submission.id)


def _changed(submission: Submission, body: dict[str, Any], now: datetime) -> Submission:
    changed = submission
    if "name" in body:
        changed = replace(changed, name=inputs.text(body, "name", limit=255))
    if "expire_at" in body:
        changed = replace(changed, expire_at=submission_input.expire_at(body["expire_at"], now), expired_at=None)
    archived = _archived_flag(body)
    if archived is not None:
        changed = replace(changed, archived_at=(submission.archived_at or now) if archived else None)
    return changed


async def archive(services: Services, principal: Principal, submission_id: int) -> Submission:
    async with services.db.transaction() as tx:
        submission = await find(tx, principal, submission_id)
        if submission.archived_at is None:
            now = services.clock.now()
            await stored.update_submission(tx, replace(submission, archived_at=now), now)
            await _event(tx, services, submission, "submission.archived")
        return await stored.get_submission(tx, submission.id)


async def delete(services: Services, principal: Principal, submission_id: int) -> Submission:
    """Deletes the submission, its signers and its files for good; answers it as it was."""
    async with services.db.transaction() as tx:
        submission = await find(tx, principal, submission_id)
        blob_ids = [document["blob_id"] for document in submission.documents]
        blob_ids += [attachment["blob_id"] for attachment in await stored.attachments_of(tx, submission.id)]
        blob_ids += list({result.blob_id for result in await stored_results.results_of(tx, submission.id)})
        await stored.delete_submission(tx, submission.id)
        orphans = await services.files.delete(tx, blob_ids)
    await services.files.remove_contents(orphans)
    return submission


async def expire(services: Services, payload: dict[str, Any]) -> None:
    """The expiry timer: a submission still pending at its `expire_at` emits `submission.expired` once."""
    expire_at = datetime.fromisoformat(payload["expire_at"])
    async with services.db.transaction() as tx:
        submission = await stored.lock_submission(tx, payload["submission_id"])
        if submission and await stored.expire_submission(tx, submission.id, expire_at, services.clock.now()):
            await _event(tx, services, submission, "submission.expired")


async def _template(services: Services, principal: Principal, template_id: int) -> Template:
    """The template to send: 404 when it does not exist (or belongs to the linked live or test account:
    the message names the key to use); 422 when it is another account's or cannot be sent."""
    template = await stored_templates.get_template(services.db, template_id)
    if template is None:
        raise errors.NotFound(f"Template {template_id} not found")
    try:
        auth.check_owner(principal, template.account_id, "Template", template.id)
    except errors.NotAuthorized:
        raise errors.Invalid(f"Template {template_id} is not a template of this account") from None
    if template.archived_at:
        raise errors.Invalid("Template has been archived")
    if not template.fields:
        raise errors.Invalid("Template does not contain fields")
    return template


def _assign_roles(template: Template, signers: list[SignerInput]) -> list[tuple[SignerInput, dict[str, Any]]]:
    """Each signer with its role: named ones by name (any case), the others in template order."""
    if len(signers) > len(template.roles):
        raise errors.Invalid(f"Defined more signing parties than in template: it has {len(template.roles)} "
                             f"role{'s' if len(template.roles) != 1 else ''}")
    by_name = {role["name"].lower(): role for role in template.roles}
    taken: dict[str, SignerInput] = {}
    for signer in signers:
        if signer.role is None:
            continue
        role = by_name.get(signer.role.lower())
        if role is None:
            names = ", ".join(f'"{r["name"]}"' for r in template.roles)
            raise errors.Invalid(f"Unknown submitter role: {signer.role}. Template defines [{names}]")
        if role["uuid"] in taken:
            raise errors.Invalid(f"role must be unique in submitters: {role['name']} is given twice")
        taken[role["uuid"]] = signer
    free = iter(role for role in template.roles if role["uuid"] not in taken)
    for signer in signers:
        if signer.role is None:
            taken[next(free)["uuid"]] = signer
    return [(taken[role["uuid"]], role) for role in template.roles if role["uuid"] in taken]


def _fields_with_readonly(template: Template, assigned: list[tuple[SignerInput, dict[str, Any]]]) -> list[dict]:
    """The template's fields for this submission, with each signer's `readonly_fields` locked."""
    fields = [dict(field) for field in template.fields]
    for signer, role in assigned:
        own = _fields_of(fields, role)
        for name in signer.readonly_fields:
            found = field_values.find(own, name)
            if not found:
                raise errors.Invalid(f"Unknown field: {name} in {signer.where}.readonly_fields")
            for field in found:
                next(f for f in own if f["uuid"] == field["uuid"])["readonly"] = True
    return fields


def _fields_of(fields: list[dict[str, Any]], role: dict[str, Any]) -> list[dict[str, Any]]:
    return [field for field in fields if field.get("submitter_uuid") == role["uuid"]]


async def _insert(tx: Connection, services: Services, principal: Principal, template: Template,
                  request: SubmissionInput, fields: list[dict[str, Any]], source: str) -> Submission:
    documents = []
    for document in await stored_templates.list_documents(tx, template.id):
        blob = await services.files.copy(tx, document.blob_id)
        documents.append({"uuid": document.uuid, "name": document.name, "blob_id": blob.id, "blob_uuid": blob.uuid,
                          "filename": blob.filename, "pages": document.pages})
    return await stored.insert_submission(
        tx, account_id=principal.account_id, template_id=template.id, created_by_user_id=principal.user_id,
        slug=keys.slug(), envelope_id=str(uuids.uuid4()), name=request.name, template_name=template.name,
        source=source, submitters_order=request.order, send_email=request.send_email, roles=template.roles,
        fields=fields, documents=documents, preferences=request.preferences, variables=request.variables,
        expire_at=request.expire_at, now=services.clock.now())


async def _insert_signer(tx: Connection, services: Services, submission: Submission, signer: SignerInput,
                         role: dict[str, Any], prepared: PreparedValues) -> Submitter:
    position = next(index for index, r in enumerate(submission.roles) if r["uuid"] == role["uuid"])
    settings = {**signer.preferences, "send_email": signer.send_email}
    inserted = await stored.insert_submitter(
        tx, submission_id=submission.id, account_id=submission.account_id, uuid=str(uuids.uuid4()),
        slug=keys.slug(), role_uuid=role["uuid"], role=role["name"], position=position, name=signer.name,
        email=signer.email, phone=signer.phone, external_id=signer.external_id, metadata=signer.metadata,
        preferences=settings, field_values={}, now=services.clock.now())
    if not prepared.values:
        return inserted
    values = await signer_values.record(tx, services, inserted, prepared)
    return await stored.update_submitter(tx, stored.changed(inserted, field_values=values), services.clock.now())


async def _started(tx: Connection, services: Services, submission: Submission,
                   signers: list[tuple[SignerInput, Submitter]]) -> None:
    """`submission.created`, then the signers created completed, then invitations and the expiry timer."""
    await _event(tx, services, submission, "submission.created")
    for given, signer in signers:
        if given.completed:
            await submitters.complete(tx, services, submission, signer, via_api=True, invite_next=False)
    if (await stored.get_submission(tx, submission.id)).completed_at is None:
        await invitations.invite_due(tx, services, submission)
    if submission.expire_at:
        await _schedule_expiry(tx, services, submission)


async def _schedule_expiry(tx: Connection, services: Services, submission: Submission) -> None:
    await jobs.enqueue(tx, services.clock, EXPIRE_JOB,
                       {"submission_id": submission.id, "expire_at": submission.expire_at.isoformat()},
                       run_at=submission.expire_at)


async def _event(tx: Connection, services: Services, submission: Submission, event_type: str) -> None:
    await events.record(tx, services.clock, account_id=submission.account_id, event_type=event_type,
                        record_type="submission", record_id=submission.id)


def _archived_flag(body: dict[str, Any]) -> bool | None:
    value = body.get("archived", body.get("archived_at") is not None if "archived_at" in body else None)
    if value is None:
        return None
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if not isinstance(value, bool):
        raise errors.Invalid("archived must be true or false")
    return value


KINDS = [jobs.Kind(EXPIRE_JOB, expire)] + invitations.KINDS
