"""Submission and submitter status, computed from their times, the same way everywhere."""

from __future__ import annotations

from datetime import datetime

from storage.records import Submission, Submitter


def submission_status(submission: Submission, now: datetime) -> str:
    """completed, else declined, else expired once `expire_at` passed, else pending."""
    if submission.completed_at:
        return "completed"
    if submission.declined_at:
        return "declined"
    if submission.expire_at and submission.expire_at <= now:
        return "expired"
    return "pending"


def submitter_status(submitter: Submitter) -> str:
    """awaiting -> sent -> opened -> completed or declined."""
    if submitter.declined_at:
        return "declined"
    if submitter.completed_at:
        return "completed"
    if submitter.opened_at:
        return "opened"
    if submitter.sent_at:
        return "sent"
    return "awaiting"


def is_viewer(submission: Submission, submitter: Submitter) -> bool:
    """A submitter whose role has no fields only views the documents: there is nothing for them to complete."""
    return not any(field.get("submitter_uuid") == submitter.role_uuid for field in submission.fields)


def all_signed(submission: Submission, submitters: list[Submitter]) -> bool:
    """Every submitter with fields has completed: that completes the submission (viewers do not hold it open)."""
    return all(s.completed_at for s in submitters if not is_viewer(submission, s))


def turn_has_come(submission: Submission, submitter: Submitter, submitters: list[Submitter]) -> bool:
    """In preserved order a submitter acts once every submitter with fields before them has completed; a viewer's
    turn never ends, so it holds up no one after it."""
    if submission.submitters_order != "preserved":
        return True
    return all(
        other.completed_at or is_viewer(submission, other)
        for other in submitters
        if other.position < submitter.position
    )
