"""Email: invitations and completion copies composed from templates, queued in the outbox, sent by a job."""

from __future__ import annotations

import asyncio
import enum
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any
from urllib.parse import urlsplit

import jinja2

import pages
import storage.emails as stored
import storage.files as stored_files
from signsvc.infra import jobs
from signsvc.infra import smtp
from signsvc.infra.clock import Clock
from signsvc.infra.config import Config
from signsvc.infra.services import Services
from storage import Connection
from storage.records import Email

INVITATION_SUBJECT = "You are invited to sign a document"
_VARIABLE = re.compile(r"\{+\s*([a-z_]+(?:\.[a-z_]+)*)\s*\}+", re.IGNORECASE)
_templates = jinja2.Environment(loader=jinja2.FileSystemLoader(pages.TEMPLATES_DIR.parent / "emails"),
                                autoescape=jinja2.select_autoescape(["html"]), undefined=jinja2.StrictUndefined,
                                trim_blocks=True, lstrip_blocks=True)


class Status(enum.StrEnum):
    PENDING = "pending"
    SENT = "sent"
    KEPT = "kept"


@dataclass(frozen=True)
class Composed:
    subject: str
    text: str
    html: str


def invitation(*, account_name: str, template_name: str, submitter_name: str | None, submitter_email: str,
               link: str, expire_at: datetime | None, message: dict[str, Any] | None) -> Composed:
    """The invitation to sign; a custom `message` {subject, body} replaces the default wording."""
    expiry = _format_time(expire_at) if expire_at else None
    values = {"template.name": template_name, "submitter.name": submitter_name or "",
              "submitter.email": submitter_email, "submitter.link": link, "account.name": account_name,
              "submission.expire_at": expiry or ""}
    message = message or {}
    subject = _substitute(message.get("subject") or INVITATION_SUBJECT, values)
    body = _substitute(message["body"], values).strip() if message.get("body") else None
    context = {"account_name": account_name, "template_name": template_name, "submitter_name": submitter_name,
               "link": link, "expire_at": expiry, "paragraphs": _paragraphs(body),
               # The text version has no button: a custom body that leaves out the link gets it added.
               "body": body if not body or link in body else f"{body}\n\n{link}"}
    return _render("invitation", subject, context)


def completed_copy(*, account_name: str, template_name: str, submitter_names: list[str],
                   documents: list[tuple[str, str]], audit_log_url: str | None, attached: bool = False) -> Composed:
    """Tells that a submission is completed: its documents and audit log attached, or linked when too big."""
    names = ", ".join(submitter_names)
    context = {"account_name": account_name, "template_name": template_name, "names": names,
               "documents": documents, "audit_log_url": audit_log_url, "attached": attached}
    return _render("completed", f"{template_name} has been completed by {names}", context)


async def queue(tx: Connection, clock: Clock, config: Config, *, account_id: int, kind: str, to: str,
                composed: Composed, reply_to: str | None = None, submitter_id: int | None = None,
                job_kind: str = "mail.send", attachments: list[int] | None = None) -> Email:
    """Puts the email in the outbox in the caller's transaction, with the job that sends it.

    Without an SMTP server the email is only kept, and counts as sent.
    """
    now = clock.now()
    status = Status.PENDING if config.smtp_url else Status.KEPT
    email = await stored.insert_email(tx, account_id=account_id, kind=kind, submitter_id=submitter_id, to_address=to,
                                      reply_to=reply_to, subject=composed.subject, text_body=composed.text,
                                      html_body=composed.html, status=status.value, now=now,
                                      sent_at=None if config.smtp_url else now, attachments=attachments)
    if config.smtp_url:
        await jobs.enqueue(tx, clock, job_kind, {"email_id": email.id})
    return email


async def deliver(services: Services, email_id: int) -> Email:
    """Sends a pending email once; raises when the server cannot take it, so the job retries."""
    email = await stored.get_email(services.db, email_id)
    if email is None:
        raise LookupError(f"no email {email_id}")
    if email.status != Status.PENDING:
        return email
    if not services.config.smtp_url:
        return await stored.mark_kept(services.db, email.id, services.clock.now())
    server = smtp.parse_smtp_url(services.config.smtp_url)
    try:
        # In a thread: attachments are base64-encoded as they are added, megabytes of work.
        message = await asyncio.to_thread(build_message, services.config, email, services.clock.now(),
                                          await _attachments(services, email))
        await smtp.send(server, message, local_hostname=_site_host(services.config))
    except Exception as exc:
        await stored.record_failure(services.db, email.id, f"{type(exc).__name__}: {exc}")
        raise
    return await stored.mark_sent(services.db, email.id, services.clock.now())


def build_message(config: Config, email: Email, now: datetime,
                  attachments: list[tuple[str, bytes]] = ()) -> EmailMessage:
    """The MIME message: text and HTML alternatives with the headers a mail client expects, and PDF files."""
    message = EmailMessage()
    message["From"] = config.mail_from or f"signsvc@{_site_host(config)}"
    message["To"] = email.to_address
    if email.reply_to:
        message["Reply-To"] = email.reply_to
    message["Subject"] = email.subject
    message["Date"] = format_datetime(now)
    # The same id on every attempt, so a receiver can drop a copy sent again after a crash.
    message["Message-ID"] = f"<signsvc.{email.id}.{email.created_at:%Y%m%d%H%M%S%f}@{_site_host(config)}>"
    message.set_content(email.text_body)
    message.add_alternative(email.html_body, subtype="html")
    for filename, data in attachments:
        message.add_attachment(data, maintype="application", subtype="pdf", filename=filename)
    return message


async def _attachments(services: Services, email: Email) -> list[tuple[str, bytes]]:
    """The files the email carries; one deleted since (its submission was) is left out."""
    found = []
    for blob_id in email.attachments:
        if blob := await stored_files.get_blob(services.db, blob_id):
            found.append((blob.filename, await services.files.read(blob)))
    return found


async def send_job(services: Services, payload: dict[str, Any]) -> None:
    await deliver(services, payload["email_id"])


# About ten hours of tries (1, 3, 9, 27, 81 minutes, then every two hours) before the job fails.
KINDS = [jobs.Kind("mail.send", send_job,
                   backoff=jobs.Backoff(first=timedelta(minutes=1), factor=3, longest=timedelta(hours=2)))]


def _render(name: str, subject: str, context: dict[str, Any]) -> Composed:
    # A subject is one header line: line breaks from user values would make the message unsendable.
    subject = " ".join(subject.split())
    text = _templates.get_template(f"{name}.txt").render(context).strip() + "\n"
    html = _templates.get_template(f"{name}.html").render(context, subject=subject)
    return Composed(subject, text, html)


def _substitute(text: str, values: dict[str, str]) -> str:
    """Replaces `{{template.name}}` and its siblings, in any case and brace count; others stay as typed."""
    return _VARIABLE.sub(lambda match: values.get(match[1].lower(), match[0]), text)


def _paragraphs(body: str | None) -> list[list[str]]:
    """A plain-text body as paragraphs of lines, so the HTML keeps its line breaks."""
    if not body:
        return []
    return [paragraph.splitlines() for paragraph in re.split(r"\n\s*\n", body)]


def _format_time(moment: datetime) -> str:
    moment = moment.astimezone(timezone.utc)
    return f"{moment:%B} {moment.day}, {moment:%Y} at {moment:%H:%M} UTC"


def _site_host(config: Config) -> str:
    return urlsplit(config.site).hostname or "localhost"
