"""Result documents and verification reports as the API shows them."""

from __future__ import annotations

import dataclasses
from typing import Any

from signsvc.infra.files import Files
from signsvc.results.results import Completed
from signsvc.results.verify import Verification
from storage.records import ResultDocument, Submission


def documents_json(files: Files, submission: Submission, documents: list[ResultDocument]) -> dict[str, Any]:
    """GET /submissions/{id}/documents."""
    return {"id": submission.id, "documents": [document_json(files, d) for d in documents]}


def completed_json(files: Files, submission: Submission, completed: Completed) -> dict[str, Any]:
    """GET /submissions/{id}/pdf."""
    main, audit_log = completed.main, completed.audit_log
    return {
        "id": submission.id,
        "envelope_id": submission.envelope_id,
        "pdf_url": files.link(main.blob_uuid, main.filename),
        "filename": main.filename,
        "documents": [document_json(files, d) for d in completed.documents],
        "combined_document_url": files.link(completed.combined.blob_uuid, completed.combined.filename),
        "audit_log_url": files.link(audit_log.blob_uuid, audit_log.filename) if audit_log else None,
    }


def document_json(files: Files, document: ResultDocument) -> dict[str, str]:
    return {"name": document.name, "url": files.link(document.blob_uuid, document.filename)}


def verification_json(verification: Verification) -> dict[str, Any]:
    return {
        "issued_by_service": verification.issued_by_service,
        "checksum_status": verification.checksum_status,
        "sha256": verification.sha256,
        "signatures": [dataclasses.asdict(signature) for signature in verification.signatures],
    }
