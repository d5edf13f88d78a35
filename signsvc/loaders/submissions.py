"""The relations of submissions and submitters, read in a fixed number of statements for a page (or one record):
each relation of every record given in one `WHERE id IN (...)`."""

from __future__ import annotations

from collections.abc import Iterable

import storage.accounts as stored_accounts
import storage.results as stored_results
import storage.submissions as stored
import storage.templates as stored_templates
from signsvc.infra.files import Files
from signsvc.submissions import field_values
from signsvc.wire.related import Related
from storage import Connection
from storage.records import ResultDocument, Submission, Submitter, Template, User


async def page(conn: Connection, account_id: int, found: list[Submission]) -> Related:
    """A page of the submissions list: submitters, templates, authors, audit logs and combined documents (no
    values, so no files)."""
    results = await stored_results.completed_results_of_many(conn, [s.id for s in found])
    return Related(
        submitters=await stored.submitters_of_page(conn, account_id, found),
        templates=await _templates(conn, found),
        authors=await _authors(conn, found),
        results=_by_submission(results),
    )


async def signers_page(conn: Connection, account_id: int, found: list[Submission]) -> Related:
    """A page of the console's submissions list: the submitters alone (it shows no template, author or document
    there)."""
    return Related(submitters=await stored.submitters_of_page(conn, account_id, found))


async def timeline(conn: Connection, account_id: int, found: list[Submission]) -> Related:
    """The console's page of a submission: its submitters and its audit trail (it shows no values, template,
    author or result document there)."""
    return Related(
        submitters=await stored.submitters_of_page(conn, account_id, found),
        events=await stored.events_of_many(conn, [s.id for s in found]),
    )


async def records(conn: Connection, files: Files, account_id: int, found: list[Submission], *, events: bool) -> Related:
    """Whole submissions (GET /submissions/{id}, `submission.*` webhooks): submitters with the files their values
    link, templates, authors, every result document, and the audit trails when `events`."""
    ids = [s.id for s in found]
    signers = await stored.submitters_of_page(conn, account_id, found)
    return Related(
        submitters=signers,
        templates=await _templates(conn, found),
        authors=await _authors(conn, found),
        files=await _linkable(conn, files, account_id, found, signers),
        results=_by_submission(await stored_results.results_of_many(conn, ids)),
        events=await stored.events_of_many(conn, ids) if events else {},
    )


async def created(conn: Connection, files: Files, submission: Submission, submitters: list[Submitter]) -> Related:
    """A submission just created, as its creation answers its submitters: the files their values link."""
    return Related(files=await _linkable(conn, files, submission.account_id, [submission], {submission.id: submitters}))


async def submitters(
    conn: Connection,
    files: Files,
    account_id: int,
    found: list[Submitter],
    *,
    templates: bool = True,
    results: bool = True,
    events: bool = False,
    siblings: bool = False,
) -> Related:
    """Submitters shown with values: their submissions and the files their values link; their templates, their
    submissions' result documents, audit trails (`events`) and all submitters (`siblings`, for the signer order)
    as asked."""
    submissions = await stored.submissions_by_ids(conn, sorted({s.submission_id for s in found}))
    listed, ids = list(submissions.values()), list(submissions)
    shown: dict[int, list[Submitter]] = {}
    for submitter in found:
        shown.setdefault(submitter.submission_id, []).append(submitter)
    return Related(
        submissions=submissions,
        files=await _linkable(conn, files, account_id, listed, shown),
        submitters=await stored.submitters_of_page(conn, account_id, listed) if siblings else {},
        templates=await _templates(conn, listed) if templates else {},
        results=_by_submission(await stored_results.results_of_many(conn, ids)) if results else {},
        events=await stored.events_of_many(conn, ids) if events else {},
    )


async def changed_submitter(conn: Connection, files: Files, submission: Submission, submitter: Submitter) -> Related:
    """A submitter a PUT just changed, shown with its `submission` as that change read it: the files its values
    link, and no result document, since a PUT changes no submitter that has one (it refuses a completed submitter,
    and one it completes gets its documents from a job that runs after the commit)."""
    shown = {submission.id: [submitter]}
    return Related(
        submissions={submission.id: submission},
        files=await _linkable(conn, files, submitter.account_id, [submission], shown),
    )


async def _templates(conn: Connection, submissions: Iterable[Submission]) -> dict[int, Template]:
    return await stored_templates.templates_by_ids(
        conn, sorted({s.template_id for s in submissions if s.template_id is not None})
    )


async def _authors(conn: Connection, submissions: Iterable[Submission]) -> dict[int, User]:
    return await stored_accounts.users_by_ids(conn, sorted({s.created_by_user_id for s in submissions}))


def _by_submission(results: list[ResultDocument]) -> dict[int, list[ResultDocument]]:
    found: dict[int, list[ResultDocument]] = {}
    for result in results:
        found.setdefault(result.submission_id, []).append(result)
    return found


async def _linkable(
    conn: Connection, files: Files, account_id: int, submissions: list[Submission], shown: dict[int, list[Submitter]]
) -> dict[int, dict[str, str]]:
    """The names of the files the `shown` submitters' values may link, by uuid, for each submission that shows a
    file: the files it owns, and any other file of the account a value names (a field's default, written at
    completion). Nothing is read when no value shown is a file."""
    showing = [s for s in submissions if _shows_files(s, shown.get(s.id, []))]
    if not showing:
        return {}
    attachments = await stored.attachments_of_many(conn, [s.id for s in showing])
    linkable = {s.id: {a.uuid: a.filename for a in attachments[s.id]} for s in showing}
    named = {s.id: _named(s, shown[s.id]) - set(linkable[s.id]) for s in showing}
    owned = await files.owned(conn, account_id, set().union(*named.values()))
    for submission in showing:
        linkable[submission.id] |= {uuid: owned[uuid].filename for uuid in named[submission.id] if uuid in owned}
    return linkable


def _named(submission: Submission, shown: list[Submitter]) -> set[str]:
    return {
        uuid
        for s in shown
        for f in submission.fields
        for uuid in field_values.named_files(f, s.field_values.get(f["uuid"]))
        if isinstance(uuid, str)
    }


def _shows_files(submission: Submission, shown: list[Submitter]) -> bool:
    """Whether a value of the `shown` submitters is a file, which shows as a link."""
    linked = {f["uuid"] for f in submission.fields if f.get("type") in field_values.LINKED or f.get("type") == "file"}
    return any(s.field_values.get(uuid) is not None for s in shown for uuid in linked)
