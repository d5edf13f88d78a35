"""Submissions and submitters as the API, webhooks and the events feed show them: pure functions of the
records and of what `signsvc.loaders` read besides them (`Related`)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from signsvc.infra.links import Links
from signsvc.submissions import field_values, signing_reasons, statuses
from signsvc.wire.related import Related
from storage.records import ResultDocument, Submission, SubmissionEvent, Submitter, Template, User
from storage.shapes import Field, FieldValue

_EVENT_DATA_KEYS = ("reason",)  # ip, user agent and the like stay in the audit log only


@dataclass(frozen=True)
class Context:
    """What rendering a submission needs besides its records: links, the time, files and result documents."""

    links: Links
    now: datetime
    attachments: dict[str, str]  # the names of the files values may link, by uuid: the submission's account's only
    results: list[ResultDocument]

    def link(self, blob_uuid: str) -> str | None:
        """A link to a file a value names; none to a file that is not the submission's account's."""
        if blob_uuid not in self.attachments:
            return None
        return self.links.link(blob_uuid, self.attachments[blob_uuid])

    def documents(self, kind: str, submission_id: int, submitter_id: int | None = None) -> list[dict[str, str]]:
        """`[{name, url}]` of the result documents of this kind (a submitter's own when `submitter_id`)."""
        return [
            {"name": r.name, "url": self.links.link(r.blob_uuid, r.filename)}
            for r in self.results
            if r.kind == kind and r.submission_id == submission_id and r.submitter_id == submitter_id
        ]

    def url(self, kind: str, submission_id: int) -> str | None:
        """The link to the submission's audit log or combined document, once it exists."""
        found = self.documents(kind, submission_id)
        return found[0]["url"] if found else None


def context(links: Links, now: datetime, related: Related, submission: Submission) -> Context:
    """The context of one submission, from what the loaders read of it."""
    return Context(links, now, related.files.get(submission.id, {}), related.results.get(submission.id, []))


def submission_record(
    links: Links, now: datetime, related: Related, submission: Submission, *, with_events: bool
) -> dict[str, Any]:
    """GET /submissions/{id} (`with_events`: its audit trail); also the data of `submission.*` events."""
    events = related.events.get(submission.id, []) if with_events else None
    return submission_json(
        context(links, now, related, submission),
        submission,
        related.submitters.get(submission.id, []),
        template=related.template(submission),
        author=related.authors.get(submission.created_by_user_id),
        events=events,
    )


def submission_page(links: Links, now: datetime, related: Related, found: list[Submission]) -> list[dict[str, Any]]:
    """A page of the submissions list: each without values and documents."""
    return [
        submission_json(
            context(links, now, related, submission),
            submission,
            related.submitters.get(submission.id, []),
            template=related.template(submission),
            author=related.authors.get(submission.created_by_user_id),
            full=False,
        )
        for submission in found
    ]


def created(
    links: Links, now: datetime, related: Related, submission: Submission, submitters: list[Submitter]
) -> list[dict[str, Any]]:
    """The submitters of a submission just created, as the creation answers them (without documents)."""
    ctx = context(links, now, related, submission)
    return [submitter_json(ctx, submission, submitter, documents=False, embed=True) for submitter in submitters]


def one_off_created(
    links: Links, now: datetime, related: Related, submission: Submission, submitters: list[Submitter]
) -> dict[str, Any]:
    """A one-off submission just created (POST /submissions/pdf): its submitters as any creation answers them,
    and the documents and fields it holds."""
    return {
        "id": submission.id,
        "name": submission.name,
        "submitters": created(links, now, related, submission, submitters),
        "source": submission.source,
        "submitters_order": submission.submitters_order,
        "status": statuses.submission_status(submission, now),
        "schema": [{"attachment_uuid": d["uuid"], "name": d["name"]} for d in submission.documents],
        "fields": submission.fields,
        "expire_at": submission.expire_at,
        "created_at": submission.created_at,
    }


def submitter_record(links: Links, now: datetime, related: Related, submitter: Submitter) -> dict[str, Any]:
    """GET /submitters/{id}: a submitter with values, documents, its template and its own audit trail."""
    submission = related.submissions[submitter.submission_id]
    events = [e for e in related.events.get(submission.id, []) if e.submitter_id == submitter.id]
    return {
        **submitter_json(context(links, now, related, submission), submission, submitter),
        "template": template_brief(related.template(submission)),
        "submission_events": [event_json(event) for event in events],
    }


def updated_submitter(
    links: Links, now: datetime, related: Related, submitter: Submitter, *, embed: bool = True, documents: bool = True
) -> dict[str, Any]:
    """A submitter as a change answers it (PUT /submitters/{id}, the signing form's actions)."""
    submission = related.submissions[submitter.submission_id]
    return submitter_json(
        context(links, now, related, submission), submission, submitter, embed=embed, documents=documents
    )


def webhook_submitter(links: Links, now: datetime, related: Related, submitter: Submitter) -> dict[str, Any]:
    """A submitter as `form.*` events and the events feed carry it: `link_slug` instead of slug and uuid, and
    links to the submission's documents page."""
    submission = related.submissions[submitter.submission_id]
    submitters = related.submitters.get(submission.id, [])
    ctx = context(links, now, related, submission)
    data = submitter_json(ctx, submission, submitter)
    del data["slug"], data["uuid"]
    url = ctx.links.documents_page(submission.slug)
    return {
        **data,
        "link_slug": submitter.slug,
        "ip": submitter.ip,
        "ua": submitter.ua,
        "decline_reason": submitter.decline_reason,
        "audit_log_url": ctx.url("audit_log", submission.id),
        "submission_url": url,
        "signer_order": [s.id for s in submitters].index(submitter.id) + 1,
        "total_signers": len(submitters),
        "template": template_summary(related.template(submission)),
        "submission": {
            "id": submission.id,
            "status": statuses.submission_status(submission, ctx.now),
            "audit_log_url": ctx.url("audit_log", submission.id),
            "combined_document_url": ctx.url("combined", submission.id),
            "url": url,
            "variables": submission.variables,
            "created_at": submission.created_at,
        },
    }


def submitter_json(
    ctx: Context,
    submission: Submission,
    submitter: Submitter,
    *,
    values: bool = True,
    documents: bool = True,
    embed: bool = False,
) -> dict[str, Any]:
    """`uuid` is the uuid of the submitter's role, shared by the submitters of that role in every submission
    of the template (the row's own uuid stays internal)."""
    data = {
        "id": submitter.id,
        "submission_id": submitter.submission_id,
        "uuid": submitter.role_uuid,
        "slug": submitter.slug,
        "name": submitter.name,
        "email": submitter.email,
        "phone": submitter.phone,
        "status": statuses.submitter_status(submitter),
        "role": submitter.role,
        "external_id": submitter.external_id,
        "application_key": submitter.external_id,
        "metadata": submitter.metadata,
        "preferences": submitter.preferences,
        "sent_at": submitter.sent_at,
        "opened_at": submitter.opened_at,
        "completed_at": submitter.completed_at,
        "declined_at": submitter.declined_at,
        "created_at": submitter.created_at,
        "updated_at": submitter.updated_at,
    }
    if values:
        data["values"] = values_json(ctx, submission, submitter)
    if values and documents:
        data["documents"] = ctx.documents("submitter", submission.id, submitter.id)
    if embed:
        data["embed_src"] = ctx.links.urls.embedded_form(submitter.slug)
    return data


def values_json(ctx: Context, submission: Submission, submitter: Submitter) -> list[dict[str, Any]]:
    """Before completion the fields that have a value; after it every field of the submitter's role."""
    fields = field_values.role_fields(submission.fields, submitter.role_uuid)
    shown = []
    for field in fields:
        if submitter.completed_at or field["uuid"] in submitter.field_values:
            shown.append(
                {"field": field["name"], "value": _value(ctx, field, submitter.field_values.get(field["uuid"]))}
            )
        if (reason := signing_reasons.kept(field, submitter.field_values)) is not None:
            shown.append({"field": signing_reasons.NAME, "value": reason})  # as the reference: after its signature
    return shown


def submission_json(
    ctx: Context,
    submission: Submission,
    submitters: list[Submitter],
    *,
    template: Template | None,
    author: User | None,
    events: list[SubmissionEvent] | None = None,
    full: bool = True,
) -> dict[str, Any]:
    """`full` adds the submitters' values and the documents, `events` the audit trail (GET one)."""
    data = {
        "id": submission.id,
        "name": submission.name,
        "slug": submission.slug,
        "envelope_id": submission.envelope_id,
        "source": submission.source,
        "submitters_order": submission.submitters_order,
        "status": statuses.submission_status(submission, ctx.now),
        "expire_at": submission.expire_at,
        "completed_at": submission.completed_at,
        "archived_at": submission.archived_at,
        "created_at": submission.created_at,
        "updated_at": submission.updated_at,
        "variables": submission.variables,
        "template": template_summary(template),
        "created_by_user": _user(author),
        "audit_log_url": ctx.url("audit_log", submission.id),
        "combined_document_url": ctx.url("combined", submission.id),
        "submitters": [submitter_json(ctx, submission, submitter, values=full) for submitter in submitters],
    }
    if full:
        data["documents"] = ctx.documents("final", submission.id)
    if events is not None:
        data["submission_events"] = [event_json(event) for event in events]
    return data


def event_json(event: SubmissionEvent) -> dict[str, Any]:
    return {
        "id": event.id,
        "submitter_id": event.submitter_id,
        "event_type": event.event_type,
        "event_timestamp": event.event_timestamp,
        "data": {key: event.data[key] for key in _EVENT_DATA_KEYS if key in event.data},
    }


def template_summary(template: Template | None) -> dict[str, Any] | None:
    """The template of a submission, and of a submitter in `form.*` events and the events feed."""
    if template is None:
        return None
    return {
        "id": template.id,
        "name": template.name,
        "external_id": template.external_id,
        "folder_name": template.folder_name,
        "created_at": template.created_at,
        "updated_at": template.updated_at,
    }


def template_brief(template: Template | None) -> dict[str, Any] | None:
    """The template of a submitter the API answers (GET /submitters, GET /submitters/{id}): less than
    `template_summary`, no external_id or folder."""
    if template is None:
        return None
    return {
        "id": template.id,
        "name": template.name,
        "created_at": template.created_at,
        "updated_at": template.updated_at,
    }


def _user(user: User | None) -> dict[str, Any] | None:
    if user is None:
        return None
    return {"id": user.id, "email": user.email, "first_name": user.first_name, "last_name": user.last_name}


def _value(ctx: Context, field: Field, value: FieldValue) -> object:
    return None if value is None else field_values.display(field, value, ctx.link)
