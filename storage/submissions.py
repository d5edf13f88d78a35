"""Stored submissions, their submitters, audit trail and attachments."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from typing import Any

from storage.database import Connection
from storage.filters import SubmissionFilters, SubmitterFilters
from storage.queries import like_pattern
from storage.records import Attachment, Blob, Submission, SubmissionEvent, Submitter
from storage.rows import from_json, record, records, required
from storage.shapes import TemplatePreferences

_JSON_COLUMNS = ("metadata", "preferences", "field_values")  # a JSON column's value is sent as its JSON text
_OF_SUBMISSION = "submission__"  # the prefix of the submission's columns in a submitter's row
_SUBMITTER_STATE = (
    "name",
    "email",
    "phone",
    "external_id",
    "metadata",
    "preferences",
    "field_values",
    "ip",
    "ua",
    "decline_reason",
    "invited_at",
    "sent_at",
    "opened_at",
    "started_at",
    "completed_at",
    "declined_at",
)


async def insert_submission(conn: Connection, **columns: Any) -> Submission:
    return required(Submission, await conn.fetch_one("insert_submission", **columns))


async def get_submission(conn: Connection, submission_id: int) -> Submission | None:
    return record(Submission, await conn.fetch_one("get_submission", id=submission_id))


async def find_submission_by_slug(conn: Connection, slug: str) -> Submission | None:
    return record(Submission, await conn.fetch_one("find_submission_by_slug", slug=slug))


async def required_submission(conn: Connection, submission_id: int) -> Submission:
    """A submission that must exist (read back in the transaction that holds it)."""
    return required(Submission, await conn.fetch_one("get_submission", id=submission_id))


async def lock_submission(conn: Connection, submission_id: int) -> Submission | None:
    """The submission, locked for the rest of the transaction (submitter actions on it take turns)."""
    return record(Submission, await conn.fetch_one("lock_submission", id=submission_id))


async def list_submissions(
    conn: Connection, account_id: int, filters: SubmissionFilters, now: datetime
) -> list[Submission]:
    """A page of the account's submissions, newest first; `now` tells expired ones from pending ones."""
    f = filters
    rows = await conn.fetch_all(
        "list_submissions",
        account_id=account_id,
        template_id=f.template_id,
        archived=f.archived,
        status=f.status,
        pattern=like_pattern(f.q),
        created_from=f.created_from,
        created_until=f.created_until,
        completed_from=f.completed_from,
        completed_until=f.completed_until,
        now=now,
        limit=f.limit,
        after=f.after,
        before=f.before,
    )
    return records(Submission, rows)


async def complete_submission(conn: Connection, submission_id: int, now: datetime) -> bool:
    """Marks it completed; True for the one caller that did."""
    return await conn.fetch_one("complete_submission", id=submission_id, now=now) is not None


async def decline_submission(conn: Connection, submission_id: int, now: datetime) -> None:
    await conn.execute("decline_submission", id=submission_id, now=now)


async def expire_submission(conn: Connection, submission_id: int, expire_at: datetime, now: datetime) -> bool:
    """Marks it expired when still pending with this expiry time; True for the one caller that did."""
    row = await conn.fetch_one("expire_submission", id=submission_id, expire_at=expire_at, now=now)
    return row is not None


async def update_submission(conn: Connection, submission: Submission, now: datetime) -> None:
    """Writes the editable state of `submission` (a changed copy of the stored record)."""
    await conn.execute(
        "update_submission",
        id=submission.id,
        name=submission.name,
        expire_at=submission.expire_at,
        expired_at=submission.expired_at,
        archived_at=submission.archived_at,
        now=now,
    )


async def delete_submission(conn: Connection, submission_id: int) -> None:
    await conn.execute("delete_submission", id=submission_id)


async def copy_blobs(conn: Connection, copies: list[tuple[int, str]], now: datetime) -> list[Blob]:
    """Other records of the same contents, one for each (id of the file copied, uuid of the copy), in order:
    the files a new submission owns, copied from its template's in one statement."""
    if not copies:
        return []
    rows = await conn.fetch_all(
        "copy_blobs", copies=[{"id": blob_id, "uuid": uuid} for blob_id, uuid in copies], now=now
    )
    by_uuid = {row["uuid"]: row for row in rows}
    if len(by_uuid) != len(copies):
        raise LookupError(f"copied {len(by_uuid)} of {len(copies)} files: a file to copy does not exist")
    return [required(Blob, by_uuid[uuid]) for _, uuid in copies]


async def insert_submitter(conn: Connection, **columns: Any) -> Submitter:
    return required(Submitter, await conn.fetch_one("insert_submitter", **columns))


async def insert_submitters(
    conn: Connection, *, submission_id: int, account_id: int, now: datetime, signers: list[dict[str, Any]]
) -> list[Submitter]:
    """A new submission's submitters in one statement, each given by the other columns of `insert_submitter`;
    answered in order of position."""
    rows = [{**signer, **{name: json.dumps(signer[name]) for name in _JSON_COLUMNS}} for signer in signers]
    inserted = await conn.fetch_all(
        "insert_submitters", submission_id=submission_id, account_id=account_id, now=now, signers=rows
    )
    return sorted(records(Submitter, inserted), key=lambda submitter: submitter.position)


async def submission_of(conn: Connection, submitter: Submitter) -> Submission:
    """The submission a submitter belongs to (it exists while the submitter does)."""
    return required(Submission, await conn.fetch_one("get_submission", id=submitter.submission_id))


async def submissions_by_ids(conn: Connection, ids: list[int]) -> dict[int, Submission]:
    """The submissions among these ids that exist, by id."""
    if not ids:
        return {}
    return {s.id: s for s in records(Submission, await conn.fetch_all("get_submissions", ids=ids))}


async def get_submitter(conn: Connection, submitter_id: int) -> Submitter | None:
    return record(Submitter, await conn.fetch_one("get_submitter", id=submitter_id))


async def submitter_with_submission(conn: Connection, submitter_id: int) -> tuple[Submitter, Submission] | None:
    """A submitter and their submission, in one statement."""
    row = await conn.fetch_one("get_submitter_with_submission", id=submitter_id)
    if row is None:
        return None
    submission = {
        name.removeprefix(_OF_SUBMISSION): value for name, value in row.items() if name.startswith(_OF_SUBMISSION)
    }
    return required(Submitter, row), required(Submission, submission)


async def submitters_by_ids(conn: Connection, ids: list[int]) -> dict[int, Submitter]:
    """The submitters among these ids that exist, by id."""
    if not ids:
        return {}
    return {s.id: s for s in records(Submitter, await conn.fetch_all("get_submitters", ids=ids))}


async def find_submitter_by_slug(conn: Connection, slug: str) -> Submitter | None:
    return record(Submitter, await conn.fetch_one("find_submitter_by_slug", slug=slug))


async def find_signer_by_slug(conn: Connection, slug: str) -> tuple[Submitter, TemplatePreferences] | None:
    """The signer a signing link names, with their submission's template's settings as they are now ({} once the
    template is gone): one statement."""
    row = await conn.fetch_one("find_signer_by_slug", slug=slug)
    if row is None:
        return None
    settings = row["template_preferences"]
    return required(Submitter, row), TemplatePreferences(
        **(from_json(settings) if isinstance(settings, str) else settings or {})
    )


async def submitters_of(conn: Connection, submission_id: int) -> list[Submitter]:
    return records(Submitter, await conn.fetch_all("list_submitters_of", submission_id=submission_id))


async def submitters_of_page(
    conn: Connection, account_id: int, submissions: list[Submission]
) -> dict[int, list[Submitter]]:
    """The submitters of each submission of a page, by submission id."""
    found: dict[int, list[Submitter]] = {submission.id: [] for submission in submissions}
    if submissions:
        rows = await conn.fetch_all("list_submitters_of_many", account_id=account_id, ids=list(found))
        for submitter in records(Submitter, rows):
            found.get(submitter.submission_id, []).append(submitter)
    return found


async def list_submitters(conn: Connection, account_id: int, filters: SubmitterFilters) -> list[Submitter]:
    """A page of the account's submitters, newest first."""
    f = filters
    rows = await conn.fetch_all(
        "list_submitters",
        account_id=account_id,
        submission_id=f.submission_id,
        external_id=f.external_id,
        pattern=like_pattern(f.q),
        completed_from=f.completed_from,
        completed_until=f.completed_until,
        limit=f.limit,
        after=f.after,
        before=f.before,
    )
    return records(Submitter, rows)


async def completed_submitters(
    conn: Connection, account_id: int, *, until: datetime | None, since: datetime | None, limit: int
) -> list[Submitter]:
    """Completed submitters, latest completion first, completed before `until` and from `since` on."""
    rows = await conn.fetch_all(
        "list_completed_submitters", account_id=account_id, until=until, since=since, limit=limit
    )
    return records(Submitter, rows)


async def completed_within(conn: Connection, account_id: int, start: datetime, end: datetime) -> list[Submitter]:
    rows = await conn.fetch_all("list_submitters_completed_within", account_id=account_id, start=start, end=end)
    return records(Submitter, rows)


async def update_submitter(conn: Connection, submitter: Submitter, now: datetime) -> Submitter:
    """Writes the state of `submitter` (a changed copy of the stored record); answers the stored row."""
    state = {name: getattr(submitter, name) for name in _SUBMITTER_STATE}
    return required(Submitter, await conn.fetch_one("update_submitter", id=submitter.id, now=now, **state))


def changed(submitter: Submitter, **changes: Any) -> Submitter:
    return dataclasses.replace(submitter, **changes)


async def insert_event(
    conn: Connection,
    *,
    submission_id: int,
    submitter_id: int | None,
    event_type: str,
    data: dict[str, Any],
    now: datetime,
) -> None:
    await conn.execute(
        "insert_submission_event",
        submission_id=submission_id,
        submitter_id=submitter_id,
        event_type=event_type,
        data=data,
        now=now,
    )


async def events_of(conn: Connection, submission_id: int) -> list[SubmissionEvent]:
    return records(SubmissionEvent, await conn.fetch_all("list_submission_events", submission_id=submission_id))


async def reminder_sent(conn: Connection, submission_id: int, submitter_id: int, event_type: str, number: int) -> bool:
    """Whether an event `event_type` of reminder `number` was recorded for this signer."""
    return bool(
        await conn.fetch_value(
            "reminder_sent",
            "sent",
            submission_id=submission_id,
            submitter_id=submitter_id,
            event_type=event_type,
            number=number,
        )
    )


async def events_of_many(conn: Connection, submission_ids: list[int]) -> dict[int, list[SubmissionEvent]]:
    """The audit trail of each of these submissions, oldest first, by submission id."""
    found: dict[int, list[SubmissionEvent]] = {submission_id: [] for submission_id in submission_ids}
    if submission_ids:
        rows = await conn.fetch_all("list_submission_events_of_many", ids=submission_ids)
        for event in records(SubmissionEvent, rows):
            found[event.submission_id].append(event)
    return found


async def insert_attachment(
    conn: Connection, *, submission_id: int, submitter_id: int | None, blob_id: int, now: datetime
) -> None:
    await conn.execute(
        "insert_attachment", submission_id=submission_id, submitter_id=submitter_id, blob_id=blob_id, now=now
    )


async def attachments_of(conn: Connection, submission_id: int) -> list[Attachment]:
    """Every file the submission's values refer to."""
    return records(Attachment, await conn.fetch_all("list_attachments", submission_id=submission_id))


async def attachments_of_many(conn: Connection, submission_ids: list[int]) -> dict[int, list[Attachment]]:
    """Every file each of these submissions' values refer to, by submission id."""
    found: dict[int, list[Attachment]] = {submission_id: [] for submission_id in submission_ids}
    if submission_ids:
        for row in await conn.fetch_all("list_attachments_of_many", ids=submission_ids):
            found[row["submission_id"]].append(required(Attachment, row))
    return found


async def delete_attachment(conn: Connection, submission_id: int, blob_id: int) -> None:
    await conn.execute("delete_attachment", submission_id=submission_id, blob_id=blob_id)


@dataclasses.dataclass(frozen=True)
class BulkProgress:
    created: int  # submissions
    invited: int  # signers whose invitation is queued
    sent: int  # signers whose invitation has been sent

    @property
    def done(self) -> bool:
        return self.sent >= self.invited


async def bulk_progress(conn: Connection, account_id: int, template_id: int, first: int, last: int) -> BulkProgress:
    """How far the bulk send of the template that made submissions `first` to `last` has got."""
    row = (
        await conn.fetch_all("bulk_progress", account_id=account_id, template_id=template_id, first=first, last=last)
    )[0]
    return BulkProgress(created=int(row["created"]), invited=int(row["invited"]), sent=int(row["sent"]))
