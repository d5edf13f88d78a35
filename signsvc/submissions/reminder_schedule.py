"""Reminder schedules: up to three delays, each one of the reference's duration keys, checked into plain data.

Each delay is measured from the moment the signer's invitation was sent (not from the reminder before it), so
`{"first_duration": "two_days", "second_duration": "seven_days"}` reminds on the second and on the seventh day;
a later reminder must therefore wait longer than an earlier one.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from signsvc.infra import errors, jobs
from signsvc.infra.clock import Clock
from storage import Connection
from storage.records import Submission, Submitter
from storage.shapes import ReminderSchedule

SEND_JOB = "reminders.send"

DURATIONS: dict[str, timedelta] = {
    "one_hour": timedelta(hours=1),
    "two_hours": timedelta(hours=2),
    "four_hours": timedelta(hours=4),
    "eight_hours": timedelta(hours=8),
    "twelve_hours": timedelta(hours=12),
    "twenty_four_hours": timedelta(hours=24),
    "two_days": timedelta(days=2),
    "three_days": timedelta(days=3),
    "four_days": timedelta(days=4),
    "five_days": timedelta(days=5),
    "six_days": timedelta(days=6),
    "seven_days": timedelta(days=7),
    "eight_days": timedelta(days=8),
    "fifteen_days": timedelta(days=15),
    "twenty_one_days": timedelta(days=21),
    "thirty_days": timedelta(days=30),
}
SLOTS = ("first_duration", "second_duration", "third_duration")
OUT_OF_ORDER = "must be longer than"


def parse(raw: Any, where: errors.Location) -> ReminderSchedule:
    """The schedule of `{"first_duration": KEY, ...}` (each optional; null or "" is none) found at `where`."""
    if not isinstance(raw, dict):
        raise errors.at(where, "must be an object of first_duration, second_duration and third_duration, or false")
    if unknown := sorted(set(raw) - set(SLOTS)):
        raise errors.at((*where, unknown[0]), "is not a reminder; use first_duration, second_duration, third_duration")
    schedule: ReminderSchedule = {}
    longest: tuple[str, timedelta] | None = None
    for slot in SLOTS:
        key = raw.get(slot)
        if key is None or key == "":
            continue
        if not isinstance(key, str) or key not in DURATIONS:
            raise errors.at((*where, slot), f"must be one of {', '.join(DURATIONS)}")
        if longest and DURATIONS[key] <= longest[1]:
            raise errors.at((*where, slot), f"{OUT_OF_ORDER} {longest[0]} (each counts from the invitation)")
        schedule[slot] = key
        longest = (slot, DURATIONS[key])
    return schedule


def out_of_order(refused: errors.Invalid) -> bool:
    """Whether `parse` refused a delay for not being longer than the one before it."""
    return f" {OUT_OF_ORDER} " in str(refused.message)


def delays(schedule: ReminderSchedule | None) -> list[timedelta]:
    """The delays after the invitation, in order: one reminder each."""
    return [DURATIONS[key] for slot in SLOTS if (key := (schedule or {}).get(slot))]


async def schedule(
    tx: Connection, clock: Clock, submission: Submission, submitter: Submitter, sent_at: datetime
) -> None:
    """Queues the submitter's reminders, each due its delay after `sent_at`, in the transaction that records the
    invitation sent. The dedupe key makes each reminder one job however often this runs; the invited address
    goes with it, so a signer whose email changed since gets none."""
    for number, delay in enumerate(delays(submission.preferences.get("reminders")), start=1):
        await jobs.enqueue(
            tx,
            clock,
            SEND_JOB,
            {"submitter_id": submitter.id, "number": number, "email": submitter.email},
            run_at=sent_at + delay,
            dedupe_key=f"reminder:{submitter.id}:{number}",
        )
