"""What the console's submissions pages show of the records: statuses as badges, a signer as people name them,
the audit trail as sentences, the signed files as downloads. Pure functions of records and the domain's status
rules; the catalogue keys are written out here, so the catalogue check finds them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from signsvc.http.web.console.badges import Badge
from signsvc.http.web.console.people import display_name
from signsvc.results.answers import Completed
from signsvc.submissions import statuses
from signsvc.submissions.signer_rules import resend_refusal
from storage.records import Submission, SubmissionEvent, Submitter

SUBMISSION_STATUSES = {
    "pending": Badge("console.submissions.status.pending", "wait"),
    "completed": Badge("console.submissions.status.completed", "good"),
    "declined": Badge("console.submissions.status.declined", "bad"),
    "expired": Badge("console.submissions.status.expired", "bad"),
}
SUBMITTER_STATUSES = {
    "awaiting": Badge("console.submissions.signer.awaiting"),
    "sent": Badge("console.submissions.signer.sent", "wait"),
    "opened": Badge("console.submissions.signer.opened", "wait"),
    "completed": Badge("console.submissions.signer.completed", "good"),
    "declined": Badge("console.submissions.signer.declined", "bad"),
}
EVENTS = {
    "send_email": "console.submissions.event.send_email",
    "send_reminder_email": "console.submissions.event.send_reminder_email",
    "view_form": "console.submissions.event.view_form",
    "start_form": "console.submissions.event.start_form",
    "complete_form": "console.submissions.event.complete_form",
    "api_complete_form": "console.submissions.event.api_complete_form",
    "decline_form": "console.submissions.event.decline_form",
    "send_2fa_email": "console.submissions.event.code_sent",
    "email_verified": "console.submissions.event.email_verified",
}
UNKNOWN_EVENT = "console.submissions.event.other"


def who(submitter: Submitter) -> str:
    """A signer as people name them: their name, else their email address, phone, or role."""
    return display_name(submitter.name, None, submitter.email, submitter.phone, submitter.role)


def title(submission: Submission) -> str:
    return submission.name or submission.template_name


@dataclass(frozen=True)
class Row:
    """A submission in the list."""

    submission: Submission
    badge: Badge
    signers: list[tuple[str, Badge]]

    @property
    def title(self) -> str:
        return title(self.submission)


def submission_badge(submission: Submission, now: datetime) -> Badge:
    return SUBMISSION_STATUSES[statuses.submission_status(submission, now)]


def row(submission: Submission, submitters: list[Submitter], now: datetime) -> Row:
    return Row(
        submission,
        submission_badge(submission, now),
        [(who(s), SUBMITTER_STATUSES[statuses.submitter_status(s)]) for s in submitters],
    )


@dataclass(frozen=True)
class Signer:
    """A signer on the submission's page: status, times, their signing link while they can still sign (None
    after), and whether an invitation can go out now."""

    submitter: Submitter
    badge: Badge
    link: str | None
    times: list[tuple[str, datetime]]
    invitable: bool


def signers(submission: Submission, submitters: list[Submitter], now: datetime, link: dict[int, str]) -> list[Signer]:
    """Each signer; `invitable` where the console offers to (re)send the invitation (`Submitters.resend`
    refuses the others)."""
    open_ = submission.archived_at is None and statuses.submission_status(submission, now) == "pending"
    found = []
    for submitter in submitters:
        signing = open_ and not (submitter.completed_at or submitter.declined_at)
        found.append(
            Signer(
                submitter,
                SUBMITTER_STATUSES[statuses.submitter_status(submitter)],
                link[submitter.id] if signing else None,
                _times(submitter),
                resend_refusal(submission, submitter, submitters, now) is None,
            )
        )
    return found


def _times(submitter: Submitter) -> list[tuple[str, datetime]]:
    """When the signer was invited, opened the form, completed or declined: those that happened."""
    return [
        (key, moment)
        for key, moment in (
            ("console.submissions.signer.sent_at", submitter.sent_at),
            ("console.submissions.signer.opened_at", submitter.opened_at),
            ("console.submissions.signer.completed_at", submitter.completed_at),
            ("console.submissions.signer.declined_at", submitter.declined_at),
        )
        if moment
    ]


@dataclass(frozen=True)
class Entry:
    """A line of the timeline: when, the catalogue key of what happened and its values."""

    at: datetime
    key: str
    values: dict[str, str] = field(default_factory=dict)


def timeline(submission: Submission, submitters: list[Submitter], events: list[SubmissionEvent]) -> list[Entry]:
    """The submission's story, oldest first: created, each event of its audit trail, completed, archived."""
    by_id = {submitter.id: submitter for submitter in submitters}
    entries = [Entry(submission.created_at, "console.submissions.event.created")]
    for event in events:
        submitter = by_id.get(event.submitter_id or 0)
        entries.append(
            Entry(
                event.event_timestamp,
                EVENTS.get(event.event_type, UNKNOWN_EVENT),
                {
                    "who": who(submitter) if submitter else "",
                    "reason": str(event.data.get("reason", "")),
                    "type": event.event_type,
                },
            )
        )
    if submission.completed_at:
        entries.append(Entry(submission.completed_at, "console.submissions.event.completed"))
    if submission.archived_at:
        entries.append(Entry(submission.archived_at, "console.submissions.event.archived"))
    return sorted(entries, key=lambda entry: entry.at)


@dataclass(frozen=True)
class Download:
    key: str
    name: str
    path: str


def downloads(completed: Completed, link: Callable[[str, str], str]) -> list[Download]:
    """The signed documents, the audit log and the combined document; `link(uuid, filename)` is a file's
    signed link (`Links.path`)."""
    found = [
        Download("console.submissions.download.document", d.name, link(d.blob_uuid, d.filename))
        for d in completed.documents
    ]
    if audit_log := completed.audit_log:
        found.append(
            Download(
                "console.submissions.download.audit_log", audit_log.name, link(audit_log.blob_uuid, audit_log.filename)
            )
        )
    combined = completed.combined
    found.append(
        Download("console.submissions.download.combined", combined.name, link(combined.blob_uuid, combined.filename))
    )
    return found
