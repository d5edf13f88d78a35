"""Stored result documents and signing certificates."""

from __future__ import annotations

from datetime import datetime

from storage.database import Connection
from storage.records import ResultDocument, SigningCertificate, SigningCrl, TimestampDue
from storage.rows import record, records


async def insert_result_document(
    conn: Connection,
    *,
    submission_id: int,
    submitter_id: int | None,
    kind: str,
    position: int,
    name: str,
    blob_id: int,
    sha256: str,
    now: datetime,
    values_sha256: str | None = None,
    pades_level: str | None = None,
    timestamp_renew_at: datetime | None = None,
) -> None:
    await conn.execute(
        "insert_result_document",
        pades_level=pades_level,
        timestamp_renew_at=timestamp_renew_at,
        submission_id=submission_id,
        submitter_id=submitter_id,
        kind=kind,
        position=position,
        name=name,
        blob_id=blob_id,
        sha256=sha256,
        values_sha256=values_sha256,
        now=now,
    )


async def results_of(conn: Connection, submission_id: int) -> list[ResultDocument]:
    return records(ResultDocument, await conn.fetch_all("list_result_documents", submission_id=submission_id))


async def delete_kind(conn: Connection, submission_id: int, kind: str) -> list[int]:
    """Forgets the submission's files of this kind; answers their blob ids."""
    rows = await conn.fetch_all("delete_result_documents", submission_id=submission_id, kind=kind)
    return [row["blob_id"] for row in rows]


async def issued(conn: Connection, sha256: str) -> bool:
    """Whether the service produced a file with this hash (a signed result or an audit log)."""
    row = await conn.fetch_one("count_issued_with_sha256", sha256=sha256)
    return bool(row and row["count"])


async def insert_certificate(
    conn: Connection,
    *,
    sha256: str,
    cert_pem: str,
    chain_pems: list[str],
    key_pem: str | None,
    source: str,
    now: datetime,
    ca_key_sealed: str | None = None,
) -> None:
    await conn.execute(
        "insert_signing_certificate",
        ca_key_sealed=ca_key_sealed,
        sha256=sha256,
        cert_pem=cert_pem,
        chain_pems=chain_pems,
        key_pem=key_pem,
        source=source,
        now=now,
    )


async def current_generated(conn: Connection) -> SigningCertificate | None:
    return record(SigningCertificate, await conn.fetch_one("current_generated_certificate"))


async def certificates(conn: Connection) -> list[SigningCertificate]:
    return records(SigningCertificate, await conn.fetch_all("list_signing_certificates"))


async def retire_generated(conn: Connection, now: datetime) -> None:
    await conn.execute("retire_generated_certificates", now=now)


async def completed_results_of_many(conn: Connection, submission_ids: list[int]) -> list[ResultDocument]:
    """The audit logs and combined documents of several submissions (a list page)."""
    if not submission_ids:
        return []
    return records(ResultDocument, await conn.fetch_all("list_completed_results_of_many", ids=submission_ids))


async def results_of_many(conn: Connection, submission_ids: list[int]) -> list[ResultDocument]:
    """The produced files of several submissions (whole records of a page, or of one)."""
    if not submission_ids:
        return []
    return records(ResultDocument, await conn.fetch_all("list_result_documents_of_many", ids=submission_ids))


async def get_crl(conn: Connection, issuer_sha256: str) -> SigningCrl | None:
    return record(SigningCrl, await conn.fetch_one("get_signing_crl", issuer_sha256=issuer_sha256))


async def put_crl(conn: Connection, crl: SigningCrl) -> None:
    """Keeps the CRL unless a newer one is kept already."""
    await conn.execute(
        "put_signing_crl",
        issuer_sha256=crl.issuer_sha256,
        crl=crl.crl,
        this_update=crl.this_update,
        next_update=crl.next_update,
    )


async def timestamps_due(conn: Connection, now: datetime, limit: int) -> list[TimestampDue]:
    """Stored files whose archive timestamp is due for renewal, each file once."""
    return records(TimestampDue, await conn.fetch_all("list_timestamps_due", now=now, limit=limit))


async def renew_result_file(
    conn: Connection, blob_id: int, old_sha256: str, sha256: str, renew_at: datetime | None
) -> None:
    """The result documents of the file hold its renewed version (the earlier one stays issued); a consent
    certificate's renewal is due again at `renew_at`."""
    await conn.execute("renew_consent_certificate", blob_id=blob_id, renew_at=renew_at)
    rows = await conn.fetch_all(
        "renew_result_file", blob_id=blob_id, old_sha256=old_sha256, sha256=sha256, renew_at=renew_at
    )
    for row in rows:
        await conn.execute("insert_result_version", sha256=old_sha256, id=row["id"])


async def postpone_timestamp_renewal(conn: Connection, blob_id: int, renew_at: datetime) -> None:
    """The file's archive timestamp is asked for again at `renew_at`."""
    await conn.execute("postpone_timestamp_renewal", blob_id=blob_id, renew_at=renew_at)
    await conn.execute("postpone_consent_certificate_renewal", blob_id=blob_id, renew_at=renew_at)
