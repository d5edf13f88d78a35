"""The document id a result carries when the account draws signature ids (`with_signature_id`): the MD5 of the
submission's slug in upper-case hex, written in a footer on every page and in the PDF's `/DocumentID` info."""

from __future__ import annotations

import hashlib

TEST_MARK = "Test document, not legally binding"


def of(slug: str) -> str:
    # MD5 names the document, as the reference does; it protects nothing (the seal does).
    return hashlib.md5(slug.encode(), usedforsecurity=False).hexdigest().upper()


def footer(*, test_mode: bool, document_id: str | None) -> str | None:
    """A test account's mark (with `| ID: …` when there is an id), else `Document ID: …`, else no footer."""
    if test_mode:
        return f"{TEST_MARK} | ID: {document_id}" if document_id else TEST_MARK
    return f"Document ID: {document_id}" if document_id else None
