"""The console's submissions: the list of the current mode's account (filtered by status, signer and template,
archived ones apart), a submission's page (signers, their links, the timeline, the signed files) and what
can be done there (invite a signer again, archive, restore), each through the domain call the API makes.
Sending a template is `send.py`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from aiohttp import web

from signsvc.http.appkeys import CLOCK, DB, FILES, RESULTS, SUBMISSIONS, SUBMITTERS, TEMPLATES
from signsvc.http.params import Query, record_id
from signsvc.http.web.console import confirm, newest_first, send, shell
from signsvc.http.web.console import submission_views as views
from signsvc.http.web.console.paths import ID
from signsvc.http.web.console.shell import Console
from signsvc.infra import errors
from signsvc.loaders import submissions as loaders
from storage.filters import SubmissionFilters, TemplateFilters
from storage.records import Submission

LIST = "/console/submissions"
PAGE_SIZE = 20
TEMPLATE_CHOICES = 100  # the newest templates offered by the list's template filter


@dataclass(frozen=True)
class Filters:
    """The list's query as entered: which view (active or archived), status, search, template (checked when the
    list is read, as the API reads them: a refusal shows them again as they are)."""

    archived: bool = False
    status: str | None = None
    q: str | None = None
    template_id: str | None = None

    @classmethod
    def of(cls, request: web.Request) -> Filters:
        """The filters as the query has them, not yet checked."""
        entered = {name: request.query.get(name, "").strip() or None for name in ("status", "q", "template_id")}
        return cls(archived=request.query.get("view") == "archived", **entered)

    @property
    def filtered(self) -> bool:
        return bool(self.status or self.q or self.template_id)

    def link(self, **changes: Any) -> str:
        """The list's first page with these filters changed."""
        values = {
            "view": "archived" if self.archived else None,
            "status": self.status,
            "q": self.q,
            "template_id": self.template_id,
            **changes,
        }
        query = urlencode({key: value for key, value in values.items() if value is not None})
        return f"{LIST}?{query}" if query else LIST


async def index(request: web.Request) -> web.Response:
    """GET /console/submissions: newest first, a page at a time."""
    console = await shell.signed_in(request)
    filters, after, problem = Filters.of(request), newest_first.after(request), None
    found: list[Submission] = []
    try:
        found = await _page(request, console, filters.archived, after)
    except errors.Invalid as refused:
        problem = refused.message
    listing = newest_first.listing(found, PAGE_SIZE, after)
    related = await loaders.signers_page(request.app[DB], console.principal.account_id, list(listing.items))
    now = request.app[CLOCK].now()
    return shell.render(
        request,
        "console/submissions.html",
        console.session,
        console=console,
        status=422 if problem else 200,
        filters=filters,
        problem=problem,
        listing=listing,
        rows=[views.row(s, related.submitters[s.id], now) for s in listing.items],
        status_keys=views.SUBMISSION_STATUSES,
        templates=await _templates(request, console),
    )


async def show(request: web.Request) -> web.Response:
    """GET /console/submissions/{id}."""
    console = await shell.signed_in(request)
    submission = await request.app[SUBMISSIONS].find(console.principal, record_id(request))
    return await _submission_page(request, console, submission)


async def resend(request: web.Request) -> web.Response:
    """POST /console/submitters/{id}/resend: a new invitation email to the signer."""
    console = await shell.signed_in(request)
    await shell.posted(request, console.session)
    try:
        submitter = await request.app[SUBMITTERS].resend(console.principal, record_id(request))
    except errors.Invalid as refused:
        submitter = await request.app[SUBMITTERS].find(console.principal, record_id(request))
        submission = await request.app[SUBMISSIONS].find(console.principal, submitter.submission_id)
        return await _submission_page(request, console, submission, status=422, problem=refused.message)
    raise shell.done(f"{LIST}/{submitter.submission_id}", "signer_invited")


async def archive_page(request: web.Request) -> web.Response:
    """GET /console/submissions/{id}/archive: the confirmation step (no box: restoring undoes it)."""
    console = await shell.signed_in(request)
    submission = await request.app[SUBMISSIONS].find(console.principal, record_id(request))
    return confirm.page(
        request,
        console,
        confirm.Step(
            title="console.submissions.archive_title",
            body="console.submissions.archive_body",
            subject=views.title(submission),
            submit="console.submissions.archive_confirm",
            back=f"{LIST}/{submission.id}",
            back_label="console.submissions.archive_cancel",
        ),
    )


async def archive(request: web.Request) -> web.Response:
    """POST /console/submissions/{id}/archive, as DELETE /api/submissions/{id} does."""
    console = await shell.signed_in(request)
    await shell.posted(request, console.session)
    submission = await request.app[SUBMISSIONS].archive(console.principal, record_id(request))
    raise shell.done(f"{LIST}/{submission.id}", "submission_archived")


async def restore(request: web.Request) -> web.Response:
    """POST /console/submissions/{id}/restore, as PUT /api/submissions/{id} with `archived: false` does."""
    console = await shell.signed_in(request)
    await shell.posted(request, console.session)
    submission = await request.app[SUBMISSIONS].update(console.principal, record_id(request), {"archived": False})
    raise shell.done(f"{LIST}/{submission.id}", "submission_restored")


async def to_the_submission(request: web.Request) -> web.Response:
    """GET /console/submitters/{id}/resend (where a refused resend's page was shown: reloaded, or reached again by
    switching modes): the signer's submission."""
    console = await shell.signed_in(request)
    submitter = await request.app[SUBMITTERS].find(console.principal, record_id(request))
    raise web.HTTPSeeOther(f"{LIST}/{submitter.submission_id}")


async def _page(request: web.Request, console: Console, archived: bool, after: int | None) -> list[Submission]:
    """One more than a page, to know whether there are older ones; the filters read as the API reads them
    (errors.Invalid, its message, for a value it refuses)."""
    query = Query(request)
    return await request.app[SUBMISSIONS].page(
        console.principal,
        SubmissionFilters(
            template_id=query.integer("template_id"),
            archived=archived,
            status=query.string("status"),
            q=query.string("q"),
            limit=PAGE_SIZE + 1,
            after=after,
        ),
    )


async def _templates(request: web.Request, console: Console) -> list[tuple[int, str]]:
    """The choices of the template filter: the account's newest templates that are not archived."""
    found = await request.app[TEMPLATES].page(console.principal, TemplateFilters(limit=TEMPLATE_CHOICES))
    return [(template.id, template.name) for template in found]


async def _submission_page(
    request: web.Request, console: Console, submission: Submission, *, status: int = 200, problem: str | None = None
) -> web.Response:
    now = request.app[CLOCK].now()
    related = await loaders.timeline(request.app[DB], submission.account_id, [submission])
    submitters = related.submitters[submission.id]
    invitations = request.app[SUBMITTERS].invitations
    downloads, waiting = await _downloads(request, submission)
    return shell.render(
        request,
        "console/submissions_detail.html",
        console.session,
        console=console,
        status=status,
        problem=problem,
        submission=submission,
        title=views.title(submission),
        badge=views.submission_badge(submission, now),
        signers=views.signers(submission, submitters, now, {s.id: invitations.link(s) for s in submitters}),
        timeline=views.timeline(submission, submitters, related.events[submission.id]),
        downloads=downloads,
        waiting=waiting,
        who=views.who,
    )


async def _downloads(request: web.Request, submission: Submission) -> tuple[list[views.Download], str | None]:
    """The signed files once produced, or what the API says while they are not (None before completion)."""
    if submission.completed_at is None:
        return [], None
    try:
        completed = await request.app[RESULTS].completed(submission)
    except errors.Invalid as waiting:
        return [], waiting.message
    return views.downloads(completed, request.app[FILES].links.path), None


ROUTES: list[web.RouteDef] = [
    *send.ROUTES,
    web.get(LIST, index),
    web.get(f"{LIST}/{ID}", show),
    web.get(f"{LIST}/{ID}/archive", archive_page),
    web.post(f"{LIST}/{ID}/archive", archive),
    web.post(f"{LIST}/{ID}/restore", restore),
    web.get(f"/console/submitters/{ID}/resend", to_the_submission),
    web.post(f"/console/submitters/{ID}/resend", resend),
]
