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


def turn_has_come(submission: Submission, submitter: Submitter, submitters: list[Submitter]) -> bool:
    """In preserved order a submitter acts once every submitter before them has completed."""
    if submission.submitters_order != "preserved":
        return True
    return all(other.completed_at for other in submitters if other.position < submitter.position)
