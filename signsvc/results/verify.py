"""Whether the service issued a PDF: its hash is that of a file the service produced, or one of the
service's certificates signed all of it and it is intact; with a report per signature."""

from __future__ import annotations

from datetime import datetime

import storage.results as stored
from signsvc.infra import pdf_calls
from signsvc.infra.pool import PdfPool
from signsvc.results.answers import Verification
from signsvc.results.signing_identity import SigningIdentity
from storage import Database


async def verify(db: Database, pool: PdfPool, identity: SigningIdentity, file: str, now: datetime) -> Verification:
    """`file` is a base64 PDF; signatures no timestamp dates are validated at `now`. Raises EngineError for
    input that is not a readable PDF."""
    stampers = tuple(await identity.timestamp_authorities())
    verified = await pool.run(pdf_calls.verify_base64, file, await identity.trusted(), now, stampers)
    produced = await stored.issued(db, verified.sha256)
    signed = any(signature.issued_by_service for signature in verified.signatures)
    return Verification(
        produced or signed, "verified" if produced else "not_found", verified.sha256, verified.signatures
    )
