"""Invitation emails: queued in the transaction that makes a submitter due.

`preserved` order invites the next submitter when the previous one completes; `random` invites everyone
at once; `send_email: false` on the submission or the submitter sends nothing. An invitation moves its
submitter to `sent` and records a `send_email` event once it is sent; without SMTP it is kept in the
outbox and counts as sent at once. The default wording is in the signer's language (`language_of`); a custom
message is sent as written.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import storage.accounts as stored_accounts
import storage.submissions as stored
from signsvc.infra import jobs, languages, mail, retries
from signsvc.infra.clock import Clock
from signsvc.infra.mail import Composed, Outbox
from signsvc.infra.urls import Urls
from signsvc.submissions import message_variables, reminder_schedule, statuses
from storage import Connection, Database
from storage.outbound_records import Email
from storage.records import Submission, Submitter
from storage.shapes import Message, Preferences

SEND_JOB = "invitations.send"


class Invitations:
    def __init__(self, db: Database, clock: Clock, outbox: Outbox, urls: Urls) -> None:
        self.db, self.clock, self.outbox, self.urls = db, clock, outbox, urls

    def link(self, submitter: Submitter) -> str:
        """The signing form of the submitter: whoever holds it can sign."""
        return self.urls.signing_form(submitter.slug)

    async def invite_due(
        self, tx: Connection, submission: Submission, submitters: list[Submitter], *, account_name: str | None = None
    ) -> list[Submitter]:
        """Invites every submitter whose turn has come and who has not been invited yet. `submitters`: the
        submission's submitters as they are in this transaction; answers them as they are afterwards.
        `account_name`: the submission's account's, when the caller knows it."""
        due = [
            submitter.id
            for submitter in submitters
            if submission.send_email
            and _invitable(submitter)
            and submitter.preferences.get("send_email", True)
            and statuses.turn_has_come(submission, submitter, submitters)
        ]
        if not due:
            return submitters
        if account_name is None:
            account_name = (await stored_accounts.required_account(tx, submission.account_id)).name
        return [
            await self.invite(tx, submission, submitter, account_name=account_name)
            if submitter.id in due
            else submitter
            for submitter in submitters
        ]

    async def invite(
        self,
        tx: Connection,
        submission: Submission,
        submitter: Submitter,
        *,
        again: bool = False,
        account_name: str | None = None,
    ) -> Submitter:
        """Queues the submitter's invitation unless they cannot be invited or (unless `again`: the console's
        resend) one was queued already."""
        if not _invitable(submitter, again=again) or submitter.email is None:
            return submitter
        email = await self.queue_email(
            tx, submission, submitter, kind="invitation", job_kind=SEND_JOB, account_name=account_name
        )
        now = self.clock.now()
        if email.sent_at:  # kept in the outbox: it counts as sent now
            return await self._mark_sent(tx, submission, stored.changed(submitter, invited_at=now), email.sent_at)
        return await stored.update_submitter(tx, stored.changed(submitter, invited_at=now), now)

    async def queue_email(
        self,
        tx: Connection,
        submission: Submission,
        submitter: Submitter,
        *,
        kind: str,
        job_kind: str = mail.SEND_JOB,
        account_name: str | None = None,
        message: Message | None = None,
    ) -> Email:
        """Puts an email to the signer with their link in the outbox: the invitation, or (`message`) other wording
        with the invitation's variables and reply-to."""
        assert submitter.email
        settings: Preferences = {**submission.preferences, **submitter.preferences}
        if account_name is None:
            account_name = (await stored_accounts.required_account(tx, submission.account_id)).name
        language = language_of(submission, submitter)
        composed = compose(
            account_name=account_name,
            template_name=submission.template_name,
            submitter_name=submitter.name or submitter.email,
            submitter_email=submitter.email,
            link=self.link(submitter),
            expire_at=submission.expire_at,
            message=await self._with_variables(
                tx,
                submission,
                submitter,
                account_name,
                message if message is not None else settings.get("message"),
                language,
            ),
            filled=True,
            language=language,
        )
        return await self.outbox.queue(
            tx,
            account_id=submission.account_id,
            kind=kind,
            to=submitter.email,
            composed=composed,
            reply_to=settings.get("reply_to"),
            submitter_id=submitter.id,
            job_kind=job_kind,
        )

    async def _with_variables(
        self,
        tx: Connection,
        submission: Submission,
        submitter: Submitter,
        account_name: str,
        message: Message | None,
        language: str,
    ) -> Message | None:
        """A custom message with its variables filled (`message_variables`); the default wording has its own."""
        if not message:
            return message
        context = message_variables.Context(
            submission,
            submitter,
            await stored.submitters_of(tx, submission.id),
            account_name,
            await stored_accounts.get_user(tx, submission.created_by_user_id),
            self.urls.site,
            self.link(submitter),
            language,
        )
        return message_variables.applied(message, context)

    def kinds(self) -> list[jobs.Kind]:
        return [jobs.Kind(SEND_JOB, self._send, backoff=retries.EMAILS)]

    async def _send(self, payload: dict[str, Any]) -> None:
        """The job that sends one invitation through SMTP, then moves its submitter to `sent`."""
        email = await self.outbox.send(payload["email_id"])
        async with self.db.transaction() as tx:
            submitter = await stored.get_submitter(tx, email.submitter_id) if email.submitter_id else None
            if submitter:
                submission = await stored.submission_of(tx, submitter)
                await self._mark_sent(tx, submission, submitter, email.sent_at or self.clock.now())

    async def _mark_sent(
        self, tx: Connection, submission: Submission, submitter: Submitter, sent_at: datetime
    ) -> Submitter:
        """Moves the submitter to `sent` with its `send_email` event, and queues its reminders, once."""
        if submitter.sent_at:
            return submitter
        submitter = await stored.update_submitter(tx, stored.changed(submitter, sent_at=sent_at), sent_at)
        await stored.insert_event(
            tx,
            submission_id=submitter.submission_id,
            submitter_id=submitter.id,
            event_type="send_email",
            data={},
            now=sent_at,
        )
        await reminder_schedule.schedule(tx, self.clock, submission, submitter, sent_at)
        return submitter


def stated_languages(submission: Submission, submitter: Submitter) -> tuple[str | None, str | None]:
    """The languages the API stated for a signer, first first: theirs, then their submission's."""
    return submitter.preferences.get("language"), submission.preferences.get("language")


def language_of(submission: Submission, submitter: Submitter) -> str:
    """The language a signer is written to in: theirs, else their submission's, else English (as their form)."""
    return languages.of(*stated_languages(submission, submitter))


def subject(language: str) -> str:
    """The invitation's default subject."""
    return languages.translator(language)("email.invitation.subject")


def _invitable(submitter: Submitter, *, again: bool = False) -> bool:
    """Has an address, has not finished, and (unless `again`) was never invited."""
    return (
        bool(submitter.email)
        and not submitter.completed_at
        and not submitter.declined_at
        and (again or not submitter.invited_at)
    )


def compose(
    *,
    account_name: str,
    template_name: str,
    submitter_name: str | None,
    submitter_email: str,
    link: str,
    expire_at: datetime | None,
    message: Message | None,
    filled: bool = False,
    language: str = languages.DEFAULT,
) -> Composed:
    """The invitation to sign; a custom `message` {subject, body} replaces the default wording (`filled`: its
    variables are already filled, by `message_variables`)."""
    expiry = mail.format_time(expire_at, language) if expire_at else None
    values = {
        "template.name": template_name,
        "submitter.name": submitter_name or "",
        "submitter.email": submitter_email,
        "submitter.link": link,
        "account.name": account_name,
        "submission.expire_at": expiry or "",
    }
    given_subject, body = (message.get("subject"), message.get("body")) if message else (None, None)
    if filled:  # once only: a signer's value that reads "{{submitter.link}}" stays as the signer wrote it
        shown_subject = given_subject or subject(language)
    else:
        shown_subject = mail.substitute(given_subject or subject(language), values)
        body = mail.substitute(body, values) if body else None
    body = body.strip() if body else None
    context = {
        "account_name": account_name,
        "template_name": template_name,
        "submitter_name": submitter_name,
        "link": link,
        "expire_at": expiry,
        "paragraphs": _paragraphs(body),
        # The text version has no button: a custom body that leaves out the link gets it added.
        "body": body if not body or link in body else f"{body}\n\n{link}",
    }
    return mail.compose("invitation", shown_subject, context, language)


def _paragraphs(body: str | None) -> list[list[str]]:
    """A plain-text body as paragraphs of lines, so the HTML keeps its line breaks."""
    if not body:
        return []
    return [paragraph.splitlines() for paragraph in re.split(r"\n\s*\n", body)]
