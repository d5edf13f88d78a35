"""The email outbox: messages composed from templates, queued in the caller's transaction, sent by a job.

With an SMTP server each queued email gets a job that hands it over (retried with backoff); an email the
server did not take after `retries.EMAILS.attempts` tries is `failed`, with the last error, and its job fails
with it. Without a server the email is only kept in the outbox and counts as sent at once.

An email a public page caused (queued `capped`: a visitor's completed copy, a consent's certificate) goes to an
address that anyone could have typed: when the account sent the address `per_recipient_hour` emails in the last
hour by the service clock, it is not sent but kept in the outbox as `failed`, with the reason, and no job.

Header values are made safe in one place (`header_text`): a template or document name with a line break or
another control character never breaks a message.
"""

from __future__ import annotations

import asyncio
import enum
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from typing import TYPE_CHECKING, Any

import pages
import storage.emails as stored
import storage.files as stored_files
from signsvc.infra import errors, jobs, languages, retries, smtp
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files
from signsvc.infra.links import LINK_LIFETIME
from storage import Connection, Database
from storage.outbound_records import Email

if TYPE_CHECKING:
    from markupsafe import Markup

SEND_JOB = "mail.send"
# Only at the first of a run of braces: from every brace, a message of braces and spaces took quadratic time.
_VARIABLE = re.compile(r"(?<!\{)\{+\s*([a-z_]+(?:\.[a-z_]+)*)\s*\}+", re.IGNORECASE)
# Control characters, and the separators Python's email package also reads as line breaks.
_UNSAFE_IN_HEADER = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
RECIPIENT_WINDOW = timedelta(hours=1)


class Status(enum.StrEnum):
    PENDING = "pending"
    SENT = "sent"
    KEPT = "kept"
    FAILED = "failed"


@dataclass(frozen=True)
class Composed:
    subject: str
    text: str
    html: str


def compose(name: str, subject: str, context: dict[str, Any], language: str = languages.DEFAULT) -> Composed:
    """The email `pages/emails/{name}.txt` and `.html` rendered with `context` (user values escaped in HTML), its
    fixed texts in `language` (`t(key, **values)`; `strong(value)` is a value in bold in HTML, `isolated(value)` one
    kept apart from the sentence's direction, both in `<bdi>`), right to left in a right-to-left language."""
    subject = header_text(subject)
    templates = pages.email_templates()
    words = {"link_minutes": languages.number(LINK_LIFETIME // timedelta(minutes=1), language)}
    plain = {**context, **words, "t": languages.translator(language), "strong": str, "isolated": str}
    text = templates.get_template(f"{name}.txt").render(plain).strip() + "\n"
    marked = {**context, **words, "t": _marked_translator(language), "strong": _strong, "isolated": _isolated}
    html = templates.get_template(f"{name}.html").render(
        marked, subject=subject, language=language, direction=languages.direction(language)
    )
    return Composed(subject, text, html)


def _marked_translator(language: str) -> Callable[..., Markup]:
    """`t` for HTML: the string escaped, its values escaped unless they are markup already (`strong`)."""
    from markupsafe import Markup, escape

    found = languages.strings(language)

    def t(key: str, **values: Any) -> Markup:
        return Markup(escape(found[key])).format(**values)

    return t


def _strong(value: Any) -> Markup:
    from markupsafe import Markup

    return Markup("<strong><bdi>{}</bdi></strong>").format(value)


def _isolated(value: Any) -> Markup:
    """A value someone wrote (a name) inside a translated sentence: in `<bdi>`, so a Latin name ending in a dot or a
    bracket keeps its characters in place in an Arabic sentence, and an Arabic name in an English one."""
    from markupsafe import Markup

    return Markup("<bdi>{}</bdi>").format(value)


def header_text(value: str) -> str:
    """A header value (a subject, an attachment's file name) as one line: control characters and line breaks
    from the names it holds become spaces, and runs of spaces one."""
    return " ".join(_UNSAFE_IN_HEADER.sub(" ", value).split())


def format_time(moment: datetime, language: str = languages.DEFAULT) -> str:
    """A time as emails show it, in UTC: "May 1, 2026, 12:00 PM UTC" (`languages.moment`)."""
    return languages.moment(moment, language)


class Outbox:
    """Queues and sends emails; `sender` is their From (by default an address of the site's host)."""

    def __init__(
        self,
        db: Database,
        clock: Clock,
        files: Files,
        *,
        smtp_server: smtp.Server | None,
        sender: str | None = None,
        per_recipient_hour: int = 0,
    ) -> None:
        self.db, self.clock, self.files = db, clock, files
        self.per_recipient_hour = per_recipient_hour  # 0: no cap
        self.smtp_server = smtp_server
        self.host = files.urls.host
        self.sender = sender or f"signsvc@{self.host}"

    async def queue(
        self,
        tx: Connection,
        *,
        account_id: int,
        kind: str,
        to: str,
        composed: Composed,
        reply_to: str | None = None,
        submitter_id: int | None = None,
        job_kind: str = SEND_JOB,
        attachments: list[int] | None = None,
        capped: bool = False,
    ) -> Email:
        """Puts the email in the outbox in the caller's transaction, with the job that sends it; one `capped`
        over the recipient's cap is kept as failed, with the reason, and not sent."""
        now = self.clock.now()
        refused = await self._over_cap(tx, account_id, to, now) if capped else None
        sending = self.smtp_server is not None and refused is None
        status = Status.FAILED if refused else Status.PENDING if sending else Status.KEPT
        email = await stored.insert_email(
            tx,
            account_id=account_id,
            kind=kind,
            submitter_id=submitter_id,
            to_address=to,
            reply_to=reply_to,
            subject=composed.subject,
            text_body=composed.text,
            html_body=composed.html,
            status=status.value,
            now=now,
            sent_at=None if sending or refused else now,
            attachments=attachments,
            last_error=refused,
        )
        if sending:
            await jobs.enqueue(
                tx, self.clock, job_kind, {"email_id": email.id}, one_by_one=True
            )  # no email kind batches
        return email

    async def _over_cap(self, tx: Connection, account_id: int, to: str, now: datetime) -> str | None:
        """Why an email a public page caused is not sent to `to` (the account's emails to the address in the last
        hour: another account's are none of its business); None when it may be."""
        if not self.per_recipient_hour:
            return None
        if await stored.count_recent_to(tx, account_id, to, now - RECIPIENT_WINDOW) < self.per_recipient_hour:
            return None
        return (
            f"Not sent: {to} was sent {self.per_recipient_hour} emails in the last hour "
            f"(SIGNSVC_EMAILS_PER_RECIPIENT_HOUR)"
        )

    async def send(self, email_id: int) -> Email:
        """Sends a pending email once; raises when the server cannot take it, so the job retries, and
        `jobs.GiveUp` once the email failed (its last attempt, or any attempt after it)."""
        email = await stored.get_email(self.db, email_id)
        if email is None:
            raise LookupError(f"no email {email_id}")
        if email.status == Status.FAILED:
            raise _given_up(email)
        if email.status != Status.PENDING:
            return email
        if self.smtp_server is None:
            return await stored.mark_kept(self.db, email.id, self.clock.now())
        try:
            # In a thread: attachments are base64-encoded as they are added, megabytes of work.
            message = await asyncio.to_thread(self.message, email, self.clock.now(), await self._attachments(email))
            await smtp.send(self.smtp_server, message, local_hostname=self.host)
        except Exception as exc:
            email = await stored.record_failure(
                self.db, email.id, f"{type(exc).__name__}: {exc}", attempts=retries.EMAILS.attempts
            )
            if email.status == Status.FAILED:
                raise _given_up(email) from exc
            raise
        return await stored.mark_sent(self.db, email.id, self.clock.now())

    async def page(
        self, account_id: int, *, status: Status | None, limit: int, after: int | None = None
    ) -> list[Email]:
        """The account's emails, newest first (older than `after`); only those of `status` when it is given."""
        return await stored.list_emails(
            self.db, account_id, status=status.value if status else None, limit=limit, after=after
        )

    async def find(self, account_id: int, email_id: int) -> Email:
        """An email of the account; NotFound for one of any other account (its linked one too)."""
        email = await stored.get_email(self.db, email_id)
        if email is None or email.account_id != account_id:
            raise errors.NotFound(f"Email {email_id} not found")
        return email

    def message(self, email: Email, now: datetime, attachments: list[tuple[str, bytes]] | None = None) -> EmailMessage:
        """The MIME message: text and HTML alternatives with the headers a mail client expects, and PDF files."""
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = email.to_address
        if email.reply_to:
            message["Reply-To"] = email.reply_to
        message["Subject"] = header_text(email.subject)
        message["Date"] = format_datetime(now)
        # The same id on every attempt, so a receiver can drop a copy sent again after a crash.
        message["Message-ID"] = f"<signsvc.{email.id}.{email.created_at:%Y%m%d%H%M%S%f}@{self.host}>"
        message.set_content(email.text_body)
        message.add_alternative(email.html_body, subtype="html")
        for filename, data in attachments or []:
            message.add_attachment(data, maintype="application", subtype="pdf", filename=header_text(filename))
        return message

    def kinds(self) -> list[jobs.Kind]:
        return [jobs.Kind(SEND_JOB, self._send_job, backoff=retries.EMAILS)]

    async def _send_job(self, payload: dict[str, Any]) -> None:
        await self.send(payload["email_id"])

    async def _attachments(self, email: Email) -> list[tuple[str, bytes]]:
        """The files the email carries; one deleted since (its submission was) is left out."""
        blobs = await stored_files.blobs_by_ids(self.db, email.attachments)
        return [(blobs[i].filename, await self.files.read(blobs[i])) for i in email.attachments if i in blobs]


def _given_up(email: Email) -> jobs.GiveUp:
    return jobs.GiveUp(f"email {email.id} failed after {email.attempts} attempts: {email.last_error}")


def substitute(text: str, values: dict[str, str]) -> str:
    """Replaces `{{template.name}}` and its siblings, in any case and brace count; others stay as typed."""
    return _VARIABLE.sub(lambda match: values.get(match[1].lower(), match[0]), text)
