"""The submission and signer records as the API and webhooks show them (REFERENCE sections 4.1, 5.1, 9.3)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import storage.results as stored_results
import storage.submissions as stored
import storage.templates as stored_templates
from signsvc.submissions import field_values
from signsvc.submissions import values as signer_values
from signsvc.submissions import statuses
from signsvc.infra.files import Files
from signsvc.infra.services import Services
from storage.records import ResultDocument, Submission, SubmissionEvent, Submitter, Template, User

_EVENT_DATA_KEYS = ("reason",)  # ip, user agent and the like stay in the audit log only


@dataclass(frozen=True)
class Context:
    """What rendering one submission needs besides its records: links and the time."""

    files: Files
    site: str
    now: datetime
    attachments: dict[str, str]
    results: list[ResultDocument]

    def link(self, blob_uuid: str) -> str:
        return self.files.link(blob_uuid, self.attachments.get(blob_uuid, "file"))

    def documents(self, kind: str, submission_id: int, submitter_id: int | None = None) -> list[dict[str, str]]:
        """`[{name, url}]` of the result documents of this kind (a signer's own when `submitter_id`)."""
        return [{"name": r.name, "url": self.files.link(r.blob_uuid, r.filename)} for r in self.results
                if r.kind == kind and r.submission_id == submission_id and r.submitter_id == submitter_id]

    def url(self, kind: str, submission_id: int) -> str | None:
        """The link to the submission's audit log or combined document, once it exists."""
        found = self.documents(kind, submission_id)
        return found[0]["url"] if found else None


async def context(services: Services, submission: Submission | None = None,
                  results: list[ResultDocument] | None = None) -> Context:
    """For one submission, or for a list page with `results` (its audit logs and combined documents)."""
    found = await stored.attachments_of(services.db, submission.id) if submission else []
    if submission:
        results = await stored_results.results_of(services.db, submission.id)
    return Context(services.files, services.config.site, services.clock.now(),
                   {row["uuid"]: row["filename"] for row in found}, results or [])


async def template_of(services: Services, submission: Submission) -> Template | None:
    """The submission's template, while it exists."""
    if submission.template_id is None:
        return None
    return await stored_templates.get_template(services.db, submission.template_id)


def submitter_json(ctx: Context, submission: Submission, signer: Submitter, *, values: bool = True,
                   documents: bool = True, embed: bool = False) -> dict[str, Any]:
    data = {
        "id": signer.id, "submission_id": signer.submission_id, "uuid": signer.uuid, "slug": signer.slug,
        "name": signer.name, "email": signer.email, "phone": signer.phone,
        "status": statuses.submitter_status(signer), "role": signer.role, "external_id": signer.external_id,
        "application_key": signer.external_id, "metadata": signer.metadata, "preferences": signer.preferences,
        "sent_at": signer.sent_at, "opened_at": signer.opened_at, "completed_at": signer.completed_at,
        "declined_at": signer.declined_at, "created_at": signer.created_at, "updated_at": signer.updated_at,
    }
    if values:
        data["values"] = values_json(ctx, submission, signer)
    if values and documents:
        data["documents"] = ctx.documents("signer", submission.id, signer.id)
    if embed:
        data["embed_src"] = f"{ctx.site}/apiemb/{signer.slug}"
    return data


def values_json(ctx: Context, submission: Submission, signer: Submitter) -> list[dict[str, Any]]:
    """Before completion the fields that have a value; after it every field of the signer's role."""
    fields = signer_values.role_fields(submission, signer.role_uuid)
    return [{"field": field["name"],
             "value": _value(ctx, field, signer.field_values.get(field["uuid"]))}
            for field in fields if signer.completed_at or field["uuid"] in signer.field_values]


def submission_json(ctx: Context, submission: Submission, signers: list[Submitter], *, template: Template | None,
                    author: User | None, events: list[SubmissionEvent] | None = None,
                    full: bool = True) -> dict[str, Any]:
    """`full` adds the signers' values and the documents, `events` the audit trail (GET one)."""
    data = {
        "id": submission.id, "name": submission.name, "slug": submission.slug, "envelope_id": submission.envelope_id,
        "source": submission.source, "submitters_order": submission.submitters_order,
        "status": statuses.submission_status(submission, ctx.now), "expire_at": submission.expire_at,
        "completed_at": submission.completed_at, "archived_at": submission.archived_at,
        "created_at": submission.created_at, "updated_at": submission.updated_at,
        "variables": submission.variables, "template": template_summary(template),
        "created_by_user": _user(author), "audit_log_url": ctx.url("audit_log", submission.id),
        "combined_document_url": ctx.url("combined", submission.id),
        "submitters": [submitter_json(ctx, submission, signer, values=full) for signer in signers],
    }
    if full:
        data["documents"] = ctx.documents("final", submission.id)
    if events is not None:
        data["submission_events"] = [event_json(event) for event in events]
    return data


def webhook_submitter_json(ctx: Context, submission: Submission, signer: Submitter,
                           signers: list[Submitter], template: Template | None) -> dict[str, Any]:
    """A signer in `form.*` events and the events feed: `link_slug` instead of slug and uuid."""
    data = submitter_json(ctx, submission, signer)
    del data["slug"], data["uuid"]
    return {**data, "link_slug": signer.slug, "ip": signer.ip, "ua": signer.ua,
            "decline_reason": signer.decline_reason, "audit_log_url": ctx.url("audit_log", submission.id),
            "signer_order": signers.index(signer) + 1, "total_signers": len(signers),
            "template": template_summary(template),
            "submission": {"id": submission.id, "status": statuses.submission_status(submission, ctx.now),
                           "audit_log_url": ctx.url("audit_log", submission.id),
                           "combined_document_url": ctx.url("combined", submission.id),
                           "created_at": submission.created_at}}


def event_json(event: SubmissionEvent) -> dict[str, Any]:
    return {"id": event.id, "submitter_id": event.submitter_id, "event_type": event.event_type,
            "event_timestamp": event.event_timestamp,
            "data": {key: event.data[key] for key in _EVENT_DATA_KEYS if key in event.data}}


def template_summary(template: Template | None) -> dict[str, Any] | None:
    if template is None:
        return None
    return {"id": template.id, "name": template.name, "external_id": template.external_id,
            "folder_name": template.folder_name, "created_at": template.created_at,
            "updated_at": template.updated_at}


def _user(user: User | None) -> dict[str, Any] | None:
    if user is None:
        return None
    return {"id": user.id, "email": user.email, "first_name": user.first_name, "last_name": user.last_name}


def _value(ctx: Context, field: dict[str, Any], value: Any) -> Any:
    return None if value is None else field_values.display(field, value, ctx.link)
