"""Result documents and verification reports as the API shows them."""

from __future__ import annotations

import dataclasses
from typing import Any

from signsvc.infra.links import Links
from signsvc.results.answers import Completed, Verification
from storage.records import ResultDocument, Submission


def documents_json(links: Links, submission: Submission, documents: list[ResultDocument]) -> dict[str, Any]:
    """GET /submissions/{id}/documents."""
    return {"id": submission.id, "documents": [document_json(links, d) for d in documents]}


def completed_json(links: Links, submission: Submission, completed: Completed) -> dict[str, Any]:
    """GET /submissions/{id}/pdf."""
    main, audit_log = completed.main, completed.audit_log
    return {
        "id": submission.id,
        "envelope_id": submission.envelope_id,
        "pdf_url": links.link(main.blob_uuid, main.filename),
        "filename": main.filename,
        "documents": [document_json(links, d) for d in completed.documents],
        "combined_document_url": links.link(completed.combined.blob_uuid, completed.combined.filename),
        "audit_log_url": links.link(audit_log.blob_uuid, audit_log.filename) if audit_log else None,
    }


def document_json(links: Links, document: ResultDocument) -> dict[str, str]:
    return {"name": document.name, "url": links.link(document.blob_uuid, document.filename)}


def verification_json(verification: Verification) -> dict[str, Any]:
    return {
        "issued_by_service": verification.issued_by_service,
        "checksum_status": verification.checksum_status,
        "sha256": verification.sha256,
        "signatures": [dataclasses.asdict(signature) for signature in verification.signatures],
    }
