"""Submission endpoints (SPEC section 4, Submissions) and the compatibility paths of the official clients."""

from __future__ import annotations

from typing import Any

from aiohttp import web

import storage.accounts as stored_accounts
import storage.results as stored_results
import storage.submissions as stored
import storage.templates as stored_templates
from signsvc.infra import errors
from signsvc.infra import pdf_calls
from signsvc.results import produce as results
from signsvc.submissions import submissions
from signsvc.templates import templates
from signsvc.wire import submission_json
from signsvc.http.middleware import principal
from signsvc.http.pagination import Page, paginated
from signsvc.http.params import Query, read_json
from signsvc.http.responses import json_response
from signsvc.http.time_filters import Range
from signsvc.http.appkeys import INGEST, RESULTS, SERVICES
from storage.records import ResultDocument, Submission, Submitter

STATUSES = ("pending", "completed", "declined", "expired")


def _id(request: web.Request) -> int:
    return int(request.match_info["id"])


async def index(request: web.Request) -> web.Response:
    return await _page(request, Query(request).integer("template_id"))


async def of_template(request: web.Request) -> web.Response:
    template = await templates.find(request.app[SERVICES].db, principal(request), _id(request))
    return await _page(request, template.id)


async def create(request: web.Request) -> web.Response:
    """POST /submissions: the array of created signers (SPEC section 4)."""
    submission, signers = await _create(request, await read_json(request))
    return json_response(await _created(request, submission, signers))


async def init(request: web.Request) -> web.Response:
    """POST /submissions/init, as the official clients create submissions."""
    submission, signers = await _create(request, await read_json(request))
    return json_response({"id": submission.id, "submitters": await _created(request, submission, signers),
                          "expire_at": submission.expire_at, "created_at": submission.created_at})


async def from_emails(request: web.Request) -> web.Response:
    """POST /submissions/emails: one submission for each address, its first role signed by it."""
    body = await read_json(request)
    emails = body.get("emails")
    if not isinstance(emails, str) or not emails.strip():
        raise errors.Invalid("emails is required: addresses separated by commas")
    addresses = list(dict.fromkeys(a.strip() for a in emails.replace("\n", ",").split(",") if a.strip()))
    common = {key: body[key] for key in ("template_id", "send_email", "message") if key in body}
    for address in addresses:  # check every address before creating anything
        submissions.submission_input.checked_email(address, "email", "emails")
    created = []
    for address in addresses:
        submission, signers = await _create(request, {**common, "submitters": [{"email": address}]})
        created += await _created(request, submission, signers)
    return json_response(created)


async def show(request: web.Request) -> web.Response:
    services = request.app[SERVICES]
    submission = await submissions.find(services.db, principal(request), _id(request))
    return json_response(await submission_record(services, submission, with_events=True))


async def documents(request: web.Request) -> web.Response:
    """The signed documents once completed; before that, previews with every value entered so far.
    `merge=true` answers them in one PDF."""
    services = request.app[SERVICES]
    submission = await submissions.find(services.db, principal(request), _id(request))
    found = [r for r in await stored_results.results_of(services.db, submission.id) if r.kind == "final"]
    try:
        if not found:
            found = await request.app[RESULTS].previews(submission)
        if Query(request).boolean("merge") and len(found) > 1:
            found = [await request.app[RESULTS].merged(submission, found)]
    except pdf_calls.EngineError as exc:
        raise errors.Invalid(f"The documents can't be produced: {exc}") from None
    return json_response({"id": submission.id, "documents": [_document(services, r) for r in found]})


async def pdf(request: web.Request) -> web.Response:
    """The signed documents, combined document and audit log of a completed submission."""
    services = request.app[SERVICES]
    submission = await submissions.find(services.db, principal(request), _id(request))
    if submission.completed_at is None:
        raise errors.Invalid("Submission is not completed: signed documents exist once every signer has completed")
    found = await stored_results.results_of(services.db, submission.id)
    final = [r for r in found if r.kind == "final"]
    combined = next((r for r in found if r.kind == "combined"), None)
    audit_log = next((r for r in found if r.kind == "audit_log"), None)
    if not final or combined is None:
        if await results.emitted(services, "submission", submission.id, "submission.completed"):
            raise errors.Invalid("The signed documents could not be produced; the server log says why")
        raise errors.Invalid("The signed documents are still being produced: try again in a few seconds")
    main = final[0] if len(final) == 1 else combined
    link = services.files.link
    return json_response({
        "id": submission.id, "envelope_id": submission.envelope_id, "pdf_url": link(main.blob_uuid, main.filename),
        "filename": main.filename, "documents": [_document(services, r) for r in final],
        "combined_document_url": link(combined.blob_uuid, combined.filename),
        "audit_log_url": link(audit_log.blob_uuid, audit_log.filename) if audit_log else None})


def _document(services: Any, result: ResultDocument) -> dict[str, str]:
    return {"name": result.name, "url": services.files.link(result.blob_uuid, result.filename)}


async def update(request: web.Request) -> web.Response:
    body = await read_json(request)
    submission = await submissions.update(request.app[SERVICES], principal(request), _id(request), body)
    return json_response(await submission_record(request.app[SERVICES], submission, with_events=False))


async def destroy(request: web.Request) -> web.Response:
    services, who = request.app[SERVICES], principal(request)
    if Query(request).boolean("permanently"):
        submission = await submissions.delete(services, who, _id(request))
    else:
        submission = await submissions.archive(services, who, _id(request))
    return json_response({"id": submission.id, "envelope_id": submission.envelope_id,
                          "archived_at": submission.archived_at})


async def submission_record(services: Any, submission: Submission, *, with_events: bool) -> dict[str, Any]:
    """GET /submissions/{id}; also the data of `submission.*` events."""
    ctx = await submission_json.context(services, submission)
    signers = await stored.submitters_of(services.db, submission.id)
    template = await submission_json.template_of(services, submission)
    author = await stored_accounts.get_user(services.db, submission.created_by_user_id)
    events = await stored.events_of(services.db, submission.id) if with_events else None
    return submission_json.submission_json(ctx, submission, signers, template=template, author=author,
                                           events=events)


async def _create(request: web.Request, body: dict[str, Any]) -> tuple[Submission, list[Submitter]]:
    return await submissions.create(request.app[SERVICES], request.app[INGEST], principal(request), body)


async def _created(request: web.Request, submission: Submission, signers: list[Submitter]) -> list[dict[str, Any]]:
    ctx = await submission_json.context(request.app[SERVICES], submission)
    return [submission_json.submitter_json(ctx, submission, signer, documents=False, embed=True) for signer in signers]


async def _page(request: web.Request, template_id: int | None) -> web.Response:
    query, services, who = Query(request), request.app[SERVICES], principal(request)
    page = Page.from_query(query)
    status = query.string("status")
    if status is not None and status not in STATUSES:
        raise errors.Invalid(f"status must be one of {', '.join(STATUSES)}")
    created, completed = (Range.from_query(query, "created_at_from", "created_at_to"),
                          Range.from_query(query, "completed_at_from", "completed_at_to"))
    found = await stored.list_submissions(
        services.db, who.account_id, template_id=template_id, archived=query.boolean("archived"), status=status,
        q=query.string("q"), created_from=created.start, created_until=created.end,
        completed_from=completed.start, completed_until=completed.end, now=services.clock.now(),
        limit=page.limit, after=page.after, before=page.before)
    return json_response(paginated(found, await _list_item(services, who.account_id, found)))


async def _list_item(services: Any, account_id: int, found: list[Submission]):
    signers = await stored.submitters_of_page(services.db, account_id, found)
    template_ids = {s.template_id for s in found if s.template_id}
    found_templates = {i: await stored_templates.get_template(services.db, i) for i in template_ids}
    user_ids = {s.created_by_user_id for s in found}
    users = {i: await stored_accounts.get_user(services.db, i) for i in user_ids}
    ctx = await submission_json.context(
        services, results=await stored_results.completed_results_of_many(services.db, [s.id for s in found]))

    def item(submission: Submission) -> dict[str, Any]:
        return submission_json.submission_json(
            ctx, submission, signers[submission.id], template=found_templates.get(submission.template_id),
            author=users.get(submission.created_by_user_id), full=False)

    return item
