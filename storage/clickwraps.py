"""Stored clickwraps, their published versions and consents."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from storage.database import Connection
from storage.records import Clickwrap, ClickwrapVersion, Consent
from storage.rows import record, records, required


async def insert_clickwrap(
    conn: Connection,
    *,
    account_id: int,
    author_id: int,
    slug: str,
    name: str,
    kind: str,
    settings: dict[str, Any],
    now: datetime,
) -> Clickwrap:
    row = await conn.fetch_one(
        "insert_clickwrap",
        account_id=account_id,
        author_id=author_id,
        slug=slug,
        name=name,
        kind=kind,
        settings=settings,
        now=now,
    )
    return required(Clickwrap, row)


async def required_clickwrap(conn: Connection, clickwrap_id: int) -> Clickwrap:
    """A clickwrap that must exist (read back in the transaction that holds it)."""
    return required(Clickwrap, await conn.fetch_one("get_clickwrap", id=clickwrap_id))


async def get_clickwrap(conn: Connection, clickwrap_id: int) -> Clickwrap | None:
    return record(Clickwrap, await conn.fetch_one("get_clickwrap", id=clickwrap_id))


async def list_clickwraps(
    conn: Connection, account_id: int, *, archived: bool, limit: int, after: int | None, before: int | None
) -> list[Clickwrap]:
    rows = await conn.fetch_all(
        "list_clickwraps", account_id=account_id, archived=archived, limit=limit, after=after, before=before
    )
    return records(Clickwrap, rows)


async def update_draft(
    conn: Connection,
    clickwrap_id: int,
    *,
    name: str,
    kind: str,
    settings: dict[str, Any],
    archived_at: datetime | None,
    now: datetime,
) -> None:
    await conn.execute(
        "update_clickwrap_draft",
        id=clickwrap_id,
        name=name,
        kind=kind,
        settings=settings,
        archived_at=archived_at,
        now=now,
    )


async def publish(conn: Connection, clickwrap: Clickwrap, now: datetime) -> int:
    """Freezes the clickwrap's draft as its next version; answers the version number."""
    number = int(await conn.fetch_value("next_clickwrap_version", "active_version_number", id=clickwrap.id, now=now))
    await conn.execute(
        "insert_clickwrap_version",
        clickwrap_id=clickwrap.id,
        number=number,
        name=clickwrap.name,
        kind=clickwrap.kind,
        settings=clickwrap.settings,
        now=now,
    )
    return number


async def get_version(conn: Connection, clickwrap_id: int, number: int) -> ClickwrapVersion | None:
    return record(
        ClickwrapVersion, await conn.fetch_one("get_clickwrap_version", clickwrap_id=clickwrap_id, number=number)
    )


async def insert_consent(
    conn: Connection,
    *,
    account_id: int,
    clickwrap_id: int,
    version: int,
    uuid: str,
    source: str,
    name: str | None,
    email: str | None,
    external_id: str | None,
    ip: str | None,
    user_agent: str | None,
    checkboxes: list[dict[str, Any]],
    now: datetime,
    language: str | None = None,
) -> Consent:
    consent_id = await conn.fetch_value(
        "insert_consent",
        "id",
        account_id=account_id,
        clickwrap_id=clickwrap_id,
        clickwrap_version_number=version,
        uuid=uuid,
        source=source,
        name=name,
        email=email,
        external_id=external_id,
        ip=ip,
        user_agent=user_agent,
        checkboxes=checkboxes,
        agreed_at=now,
        language=language,
    )
    return required(Consent, await conn.fetch_one("get_consent", id=consent_id))


async def set_consent_submission(conn: Connection, consent_id: int, submission_id: int) -> None:
    await conn.execute("set_consent_submission", id=consent_id, submission_id=submission_id)


async def set_consent_certificate(
    conn: Connection, consent_id: int, blob_id: int, pades_level: str, renew_at: datetime | None
) -> bool:
    """Whether the certificate (sealed at `pades_level`, its archive timestamp to renew at `renew_at`) was
    recorded: False when another run recorded one first."""
    row = await conn.fetch_one(
        "set_consent_certificate", id=consent_id, blob_id=blob_id, pades_level=pades_level, renew_at=renew_at
    )
    return row is not None


async def clickwrap_by_slug(conn: Connection, slug: str) -> Clickwrap | None:
    return record(Clickwrap, await conn.fetch_one("get_clickwrap_by_slug", slug=slug))


async def get_consent(conn: Connection, consent_id: int) -> Consent | None:
    return record(Consent, await conn.fetch_one("get_consent", id=consent_id))


async def consents_by_ids(conn: Connection, ids: list[int]) -> dict[int, Consent]:
    """The consents among these ids that exist, by id."""
    if not ids:
        return {}
    return {c.id: c for c in records(Consent, await conn.fetch_all("get_consents", ids=ids))}


async def list_consents(
    conn: Connection, clickwrap_id: int, *, limit: int, after: int | None, before: int | None
) -> list[Consent]:
    rows = await conn.fetch_all("list_consents", clickwrap_id=clickwrap_id, limit=limit, after=after, before=before)
    return records(Consent, rows)
