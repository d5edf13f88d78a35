"""Submissions and submitters as the API, webhooks and the events feed show them.

The loaders read what a record shows besides itself (its submitters, template, author, audit trail,
files and result documents) in a few queries; the shapes are pure functions of those records.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

import storage.accounts as stored_accounts
import storage.results as stored_results
import storage.submissions as stored
import storage.templates as stored_templates
from signsvc.infra.files import Files
from signsvc.submissions import field_values, statuses
from storage import Connection
from storage.records import ResultDocument, Submission, SubmissionEvent, Submitter, Template, User
from storage.shapes import Field, FieldValue

_EVENT_DATA_KEYS = ("reason",)  # ip, user agent and the like stay in the audit log only


@dataclass(frozen=True)
class Context:
    """What rendering submissions needs besides their records: links, the time, files and result documents."""

    files: Files
    now: datetime
    attachments: dict[str, str]  # the names of the files values may link, by uuid: the submission's account's only
    results: list[ResultDocument]

    def link(self, blob_uuid: str) -> str | None:
        """A link to a file a value names; none to a file that is not the submission's account's."""
        if blob_uuid not in self.attachments:
            return None
        return self.files.link(blob_uuid, self.attachments[blob_uuid])

    def documents(self, kind: str, submission_id: int, submitter_id: int | None = None) -> list[dict[str, str]]:
        """`[{name, url}]` of the result documents of this kind (a submitter's own when `submitter_id`)."""
        return [{"name": r.name, "url": self.files.link(r.blob_uuid, r.filename)} for r in self.results
                if r.kind == kind and r.submission_id == submission_id and r.submitter_id == submitter_id]

    def url(self, kind: str, submission_id: int) -> str | None:
        """The link to the submission's audit log or combined document, once it exists."""
        found = self.documents(kind, submission_id)
        return found[0]["url"] if found else None


async def context(conn: Connection, files: Files, now: datetime, submission: Submission,
                  shown: list[Submitter] | None = None, *, results: bool = True) -> Context:
    """The context of one submission whose `shown` submitters (all when None) are rendered. The attachments
    (the file names of links) are read only when a value shown is a file, with any other file of the account a
    value names (a field's default, written at completion); the result documents unless `results` is False (an
    answer that shows none of them)."""
    linkable: dict[str, str] = {}
    if _shows_files(submission, shown):
        linkable = {a.uuid: a.filename for a in await stored.attachments_of(conn, submission.id)}
        named = {uuid for s in shown or [] for f in submission.fields
                 for uuid in field_values.named_files(f, s.field_values.get(f["uuid"])) if isinstance(uuid, str)}
        named -= set(linkable)
        linkable |= {uuid: blob.filename
                     for uuid, blob in (await files.owned(conn, submission.account_id, named)).items()}
    return Context(files, now, linkable, await stored_results.results_of(conn, submission.id) if results else [])


def _shows_files(submission: Submission, shown: list[Submitter] | None) -> bool:
    """Whether a value of the `shown` submitters (any when None) is a file, which shows as a link."""
    if shown is None:
        return True
    linked = {f["uuid"] for f in submission.fields if f.get("type") in field_values.LINKED or f.get("type") == "file"}
    return any(s.field_values.get(uuid) is not None for s in shown for uuid in linked)


async def submission_record(conn: Connection, files: Files, now: datetime, submission: Submission, *,
                            with_events: bool) -> dict[str, Any]:
    """GET /submissions/{id} (`with_events`: its audit trail); also the data of `submission.*` events."""
    submitters = await stored.submitters_of(conn, submission.id)
    ctx = await context(conn, files, now, submission, submitters)
    template = await template_of(conn, submission)
    author = await stored_accounts.get_user(conn, submission.created_by_user_id)
    events = await stored.events_of(conn, submission.id) if with_events else None
    return submission_json(ctx, submission, submitters, template=template, author=author, events=events)


async def submission_page(conn: Connection, files: Files, now: datetime, account_id: int,
                          found: list[Submission]) -> list[dict[str, Any]]:
    """A page of the submissions list: each without values and documents, read in a few queries."""
    submitters = await stored.submitters_of_page(conn, account_id, found)
    templates = {i: await stored_templates.get_template(conn, i) for i in {s.template_id for s in found}
                 if i is not None}
    users = {i: await stored_accounts.get_user(conn, i) for i in {s.created_by_user_id for s in found}}
    ctx = Context(files, now, {}, await stored_results.completed_results_of_many(conn, [s.id for s in found]))
    return [submission_json(ctx, submission, submitters[submission.id],
                            template=templates.get(submission.template_id) if submission.template_id else None,
                            author=users.get(submission.created_by_user_id), full=False)
            for submission in found]


async def created(conn: Connection, files: Files, now: datetime, submission: Submission,
                  submitters: list[Submitter]) -> list[dict[str, Any]]:
    """The submitters of a submission just created, as the creation answers them (without documents)."""
    ctx = await context(conn, files, now, submission, submitters, results=False)
    return [submitter_json(ctx, submission, submitter, documents=False, embed=True) for submitter in submitters]


async def submitter_record(conn: Connection, files: Files, now: datetime, submitter: Submitter) -> dict[str, Any]:
    """GET /submitters/{id}: a submitter with values, documents, its template and its own audit trail."""
    submission = await stored.submission_of(conn, submitter)
    ctx = await context(conn, files, now, submission, [submitter])
    template = await template_of(conn, submission)
    events = [e for e in await stored.events_of(conn, submission.id) if e.submitter_id == submitter.id]
    return {**submitter_json(ctx, submission, submitter), "template": template_brief(template),
            "submission_events": [event_json(event) for event in events]}


async def updated_submitter(conn: Connection, files: Files, now: datetime, submitter: Submitter, *,
                            embed: bool = True, documents: bool = True) -> dict[str, Any]:
    """A submitter as a change answers it (PUT /submitters/{id}, the signing form's actions)."""
    submission = await stored.submission_of(conn, submitter)
    ctx = await context(conn, files, now, submission, [submitter], results=documents)
    return submitter_json(ctx, submission, submitter, embed=embed, documents=documents)


async def webhook_submitter(conn: Connection, files: Files, now: datetime, submitter: Submitter) -> dict[str, Any]:
    """A submitter as `form.*` events and the events feed carry it: `link_slug` instead of slug and uuid, and
    links to the submission's documents page."""
    submission = await stored.submission_of(conn, submitter)
    template = await template_of(conn, submission)
    submitters = await stored.submitters_of(conn, submission.id)
    ctx = await context(conn, files, now, submission, [submitter])
    data = submitter_json(ctx, submission, submitter)
    del data["slug"], data["uuid"]
    url = ctx.files.documents_page(submission.slug)
    return {**data, "link_slug": submitter.slug, "ip": submitter.ip, "ua": submitter.ua,
            "decline_reason": submitter.decline_reason, "audit_log_url": ctx.url("audit_log", submission.id),
            "submission_url": url, "signer_order": [s.id for s in submitters].index(submitter.id) + 1,
            "total_signers": len(submitters),
            "template": template_summary(template),
            "submission": {"id": submission.id, "status": statuses.submission_status(submission, ctx.now),
                           "audit_log_url": ctx.url("audit_log", submission.id),
                           "combined_document_url": ctx.url("combined", submission.id), "url": url,
                           "variables": submission.variables, "created_at": submission.created_at}}


async def template_of(conn: Connection, submission: Submission) -> Template | None:
    """The submission's template, while it exists."""
    if submission.template_id is None:
        return None
    return await stored_templates.get_template(conn, submission.template_id)


def submitter_json(ctx: Context, submission: Submission, submitter: Submitter, *, values: bool = True,
                   documents: bool = True, embed: bool = False) -> dict[str, Any]:
    """`uuid` is the uuid of the submitter's role, shared by the submitters of that role in every submission
    of the template (the row's own uuid stays internal)."""
    data = {
        "id": submitter.id, "submission_id": submitter.submission_id, "uuid": submitter.role_uuid,
        "slug": submitter.slug,
        "name": submitter.name, "email": submitter.email, "phone": submitter.phone,
        "status": statuses.submitter_status(submitter), "role": submitter.role, "external_id": submitter.external_id,
        "application_key": submitter.external_id, "metadata": submitter.metadata,
        "preferences": submitter.preferences, "sent_at": submitter.sent_at, "opened_at": submitter.opened_at,
        "completed_at": submitter.completed_at, "declined_at": submitter.declined_at,
        "created_at": submitter.created_at, "updated_at": submitter.updated_at,
    }
    if values:
        data["values"] = values_json(ctx, submission, submitter)
    if values and documents:
        data["documents"] = ctx.documents("submitter", submission.id, submitter.id)
    if embed:
        data["embed_src"] = ctx.files.urls.embedded_form(submitter.slug)
    return data


def values_json(ctx: Context, submission: Submission, submitter: Submitter) -> list[dict[str, Any]]:
    """Before completion the fields that have a value; after it every field of the submitter's role."""
    fields = field_values.role_fields(submission.fields, submitter.role_uuid)
    return [{"field": field["name"], "value": _value(ctx, field, submitter.field_values.get(field["uuid"]))}
            for field in fields if submitter.completed_at or field["uuid"] in submitter.field_values]


def submission_json(ctx: Context, submission: Submission, submitters: list[Submitter], *,
                    template: Template | None, author: User | None, events: list[SubmissionEvent] | None = None,
                    full: bool = True) -> dict[str, Any]:
    """`full` adds the submitters' values and the documents, `events` the audit trail (GET one)."""
    data = {
        "id": submission.id, "name": submission.name, "slug": submission.slug, "envelope_id": submission.envelope_id,
        "source": submission.source, "submitters_order": submission.submitters_order,
        "status": statuses.submission_status(submission, ctx.now), "expire_at": submission.expire_at,
        "completed_at": submission.completed_at, "archived_at": submission.archived_at,
        "created_at": submission.created_at, "updated_at": submission.updated_at,
        "variables": submission.variables, "template": template_summary(template),
        "created_by_user": _user(author), "audit_log_url": ctx.url("audit_log", submission.id),
        "combined_document_url": ctx.url("combined", submission.id),
        "submitters": [submitter_json(ctx, submission, submitter, values=full) for submitter in submitters],
    }
    if full:
        data["documents"] = ctx.documents("final", submission.id)
    if events is not None:
        data["submission_events"] = [event_json(event) for event in events]
    return data


def event_json(event: SubmissionEvent) -> dict[str, Any]:
    return {"id": event.id, "submitter_id": event.submitter_id, "event_type": event.event_type,
            "event_timestamp": event.event_timestamp,
            "data": {key: event.data[key] for key in _EVENT_DATA_KEYS if key in event.data}}


def template_summary(template: Template | None) -> dict[str, Any] | None:
    """The template of a submission, and of a submitter in `form.*` events and the events feed."""
    if template is None:
        return None
    return {"id": template.id, "name": template.name, "external_id": template.external_id,
            "folder_name": template.folder_name, "created_at": template.created_at,
            "updated_at": template.updated_at}


def template_brief(template: Template | None) -> dict[str, Any] | None:
    """The template of a submitter the API answers (GET /submitters, GET /submitters/{id}): less than
    `template_summary`, no external_id or folder."""
    if template is None:
        return None
    return {"id": template.id, "name": template.name, "created_at": template.created_at,
            "updated_at": template.updated_at}


def _user(user: User | None) -> dict[str, Any] | None:
    if user is None:
        return None
    return {"id": user.id, "email": user.email, "first_name": user.first_name, "last_name": user.last_name}


def _value(ctx: Context, field: Field, value: FieldValue) -> object:
    return None if value is None else field_values.display(field, value, ctx.link)
