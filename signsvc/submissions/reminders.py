"""Reminders: the emails that follow an invitation a signer has not acted on, and the account's settings for them.

A submission sends reminders when it was created with a schedule (`reminder_schedule`): the API's `reminders`
extension, or the account's setting (console sends, `"reminders": true`). When a signer's invitation is sent,
one job per reminder is queued, due its delay later on the service clock. When it runs, the reminder goes only
to a signer who still has to act now: their turn has come, they have not completed or declined, and their
submission is neither finished, expired nor archived. Each one sent is recorded as a `send_reminder_email` event
(the audit log's "Reminder email sent to ..." line), and a job run again after a crash sends nothing twice.

Wording: the template's `invitation_reminder_email_subject/body`, else the account's reminder email, else the
invitation's own text with "Reminder: " before its subject (in the signer's language); the invitation's message
variables apply.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import storage.account_settings as stored_settings
import storage.submissions as stored
import storage.templates as stored_templates
from signsvc.infra import errors, jobs, languages
from signsvc.infra.clock import Clock
from signsvc.submissions import invitations, reminder_schedule, statuses
from signsvc.submissions.invitations import Invitations
from signsvc.templates import template_preferences
from storage import Connection, Database
from storage.records import Submission, Submitter
from storage.shapes import Message, Preferences, ReminderSchedule, TemplatePreferences

SCHEDULE_SETTING = "submitter_reminders"
EMAIL_SETTING = "submitter_invitation_reminder_email"
EVENT = "send_reminder_email"
# The account's reminder email is held to the limits of a template's own reminder wording.
WORDING_LIMITS = {
    "subject": template_preferences.TEXTS["invitation_reminder_email_subject"],
    "body": template_preferences.TEXTS["invitation_reminder_email_body"],
}


class Reminders:
    def __init__(self, db: Database, clock: Clock, invitations: Invitations) -> None:
        self.db, self.clock, self.invitations = db, clock, invitations
        # One batch of reminders at a time in this process, whatever the batches under way: thousands falling due
        # at once take one chain of the event loop's turns (and one connection), and requests keep the rest. A
        # whole batch, not each reminder: batches taking turns reminder by reminder would all finish late.
        self._one_batch_at_a_time = asyncio.Lock()

    async def settings(self, account_id: int) -> tuple[ReminderSchedule, dict[str, str]]:
        """The account's reminder schedule and reminder email's `subject` and `body` (empty when it has none)."""
        schedule = await stored_settings.get(self.db, account_id, SCHEDULE_SETTING)
        email = await stored_settings.get(self.db, account_id, EMAIL_SETTING)
        return schedule or {}, email or {}

    async def change_settings(self, account_id: int, raw_schedule: Any, email: dict[str, str]) -> None:
        """Stores the account's schedule (checked: `reminder_schedule.parse`) and reminder email; empty ones are
        forgotten, so the defaults apply again."""
        schedule = reminder_schedule.parse(raw_schedule, ("reminders",))
        wording = {key: text.strip() for key, text in email.items() if text.strip()}
        for key, limit in WORDING_LIMITS.items():
            if len(wording.get(key, "")) > limit:
                raise errors.at((key,), f"must be at most {limit} characters")
        async with self.db.transaction() as tx:
            await stored_settings.put(tx, account_id, SCHEDULE_SETTING, schedule or None)
            await stored_settings.put(tx, account_id, EMAIL_SETTING, wording or None)

    def kinds(self) -> list[jobs.Kind]:
        return [jobs.Kind(reminder_schedule.SEND_JOB, self._send, batch=self._send_batch)]

    async def _send_batch(self, payloads: list[dict[str, Any]]) -> list[datetime | Exception | None]:
        """Due reminders claimed together (thousands may fall due at once): one transaction each, in turn, so
        they never hold more than one connection and requests are served between them."""
        answers: list[datetime | Exception | None] = []
        async with self._one_batch_at_a_time:
            for payload in payloads:
                try:
                    await self._send(payload)
                    answers.append(None)
                except Exception as exc:
                    answers.append(exc)
                await asyncio.sleep(0)  # requests that came in meanwhile go first
        return answers

    async def _send(self, payload: dict[str, Any]) -> None:
        """The job of one reminder: sends it if the signer still has to act now, else nothing."""
        number = int(payload["number"])
        async with self.db.transaction() as tx:
            submitter = await stored.get_submitter(tx, payload["submitter_id"])
            # Locked: a completion, a decline or another process's run of this job waits for this one.
            submission = await stored.lock_submission(tx, submitter.submission_id) if submitter else None
            if submission is None:
                return
            submitters = await stored.submitters_of(tx, submission.id)
            current = next((s for s in submitters if s.id == payload["submitter_id"]), None)
            if (
                current
                and _to_the_invited_address(payload, current)
                and self._due(submission, current, submitters)
                and not await stored.reminder_sent(tx, current.submission_id, current.id, EVENT, number)
            ):
                await self._remind(tx, submission, current, number)

    def _due(self, submission: Submission, submitter: Submitter, submitters: list[Submitter]) -> bool:
        """Whether the signer still has to act now, on a submission that still waits for them and still sends
        them email (as `Invitations.invite_due` asks); a viewer has nothing to act on."""
        return (
            statuses.submission_status(submission, self.clock.now()) == "pending"
            and not submission.archived_at
            and submission.send_email
            and submitter.preferences.get("send_email", True) is not False
            and bool(submitter.email and submitter.sent_at)
            and not submitter.completed_at
            and not submitter.declined_at
            and not statuses.is_viewer(submission, submitter)
            and statuses.turn_has_come(submission, submitter, submitters)
        )

    async def _remind(self, tx: Connection, submission: Submission, submitter: Submitter, number: int) -> None:
        settings: Preferences = {**submission.preferences, **submitter.preferences}
        language = invitations.language_of(submission, submitter)
        message = await _wording(tx, submission, settings.get("message"), language)
        email = await self.invitations.queue_email(tx, submission, submitter, kind="reminder", message=message)
        await stored.insert_event(
            tx,
            submission_id=submission.id,
            submitter_id=submitter.id,
            event_type=EVENT,
            data={"number": number, "email_id": email.id},
            now=self.clock.now(),
        )


async def schedule_for(conn: Connection, account_id: int, chosen: ReminderSchedule | bool) -> ReminderSchedule:
    """The schedule a new submission keeps: its own, the account's (True), or none (False)."""
    if chosen is True:
        return await stored_settings.get(conn, account_id, SCHEDULE_SETTING) or {}
    return chosen or {}


def _to_the_invited_address(payload: dict[str, Any], submitter: Submitter) -> bool:
    """Whether the signer's email is still the one invited: a changed one never got the invitation, so it gets
    no reminder of it. Jobs queued without the address (before it was kept) go to the current one."""
    return "email" not in payload or payload["email"] == submitter.email


async def _wording(tx: Connection, submission: Submission, invitation: Message | None, language: str) -> Message:
    """Subject and body each from the template's preferences, else the account's reminder email, else the
    invitation's (its subject marked as a reminder, in `language`)."""
    template = await stored_templates.get_template(tx, submission.template_id) if submission.template_id else None
    own: TemplatePreferences = template.preferences if template else {}
    invited = invitation or Message(subject="", body="")
    account: dict[str, str] = await stored_settings.get(tx, submission.account_id, EMAIL_SETTING) or {}
    subject = (
        own.get("invitation_reminder_email_subject")
        or account.get("subject")
        or languages.translator(language)(
            "email.reminder.subject", subject=invited.get("subject") or invitations.subject(language)
        )
    )
    body = own.get("invitation_reminder_email_body") or account.get("body") or invited.get("body") or ""
    return Message(subject=subject, body=body)
