"""Stored emails: the outbox that invitations and copies wait in until SMTP takes them."""

from __future__ import annotations

from datetime import datetime

from storage.database import Connection
from storage.records import Email
from storage.rows import record, records, required


async def insert_email(
    conn: Connection,
    *,
    account_id: int,
    kind: str,
    submitter_id: int | None,
    to_address: str,
    reply_to: str | None,
    subject: str,
    text_body: str,
    html_body: str,
    status: str,
    now: datetime,
    sent_at: datetime | None,
    attachments: list[int] | None = None,
    last_error: str | None = None,
) -> Email:
    row = await conn.fetch_one(
        "insert_email",
        account_id=account_id,
        kind=kind,
        submitter_id=submitter_id,
        to_address=to_address,
        recipient=recipient(to_address),
        reply_to=reply_to,
        subject=subject,
        text_body=text_body,
        html_body=html_body,
        status=status,
        created_at=now,
        sent_at=sent_at,
        attachments=attachments or [],
        last_error=last_error,
    )
    return required(Email, row)


async def count_recent_to(conn: Connection, account_id: int, address: str, since: datetime) -> int:
    """How many of the account's emails went to the address, or another spelling of its mailbox (`recipient`),
    since `since`."""
    return int(
        await conn.fetch_value(
            "count_emails_to", "sent", account_id=account_id, recipient=recipient(address), since=since
        )
        or 0
    )


def recipient(address: str) -> str:
    """The mailbox an address reaches, as the per-recipient cap counts it: in lower case, without a `+tag` in
    the local part (most mail servers deliver `name+tag@` to `name@`) or a trailing dot of the domain."""
    local, at, domain = address.strip().lower().rpartition("@")
    if not at:
        return domain.rstrip(".")
    return f"{local.split('+', 1)[0]}@{domain.rstrip('.')}"


async def get_email(conn: Connection, email_id: int) -> Email | None:
    return record(Email, await conn.fetch_one("get_email", id=email_id))


async def mark_sent(conn: Connection, email_id: int, now: datetime) -> Email:
    return required(Email, await conn.fetch_one("mark_email_sent", id=email_id, now=now))


async def mark_kept(conn: Connection, email_id: int, now: datetime) -> Email:
    return required(Email, await conn.fetch_one("mark_email_kept", id=email_id, now=now))


async def record_failure(conn: Connection, email_id: int, error: str, *, attempts: int) -> Email:
    """Counts a failed attempt; the email is `failed` once it made `attempts` of them."""
    return required(
        Email, await conn.fetch_one("record_email_failure", id=email_id, error=error, max_attempts=attempts)
    )


async def list_emails(
    conn: Connection,
    account_id: int,
    *,
    limit: int,
    after: int | None = None,
    before: int | None = None,
    status: str | None = None,
) -> list[Email]:
    """A page of the account's emails, newest first; only those of `status` when it is given."""
    rows = await conn.fetch_all(
        "list_emails", account_id=account_id, status=status, limit=limit, after=after, before=before
    )
    return records(Email, rows)
