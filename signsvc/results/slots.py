"""Result documents as they are made: a file for a slot of `result_documents`, and recording it.

A slot is `(submission, kind, submitter, position)`; its kinds are `submitter` (a submitter's own documents),
`final` (the signed documents), `audit_log`, `combined`, and the files made on request, `preview` and
`merged`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import storage.results as stored
from signsvc.infra.clock import Clock
from signsvc.infra.files import NewFile
from signsvc.infra.pdf_calls import Hashed
from storage import Connection
from storage.records import Submission

PDF = "application/pdf"


@dataclass(frozen=True)
class Produced:
    """A file to record in a slot."""

    kind: str
    position: int
    name: str
    file: NewFile
    pades_level: str | None = None  # a signed file's PAdES level (signsvc.results.sealing)
    timestamp_renew_at: datetime | None = None  # when its archive timestamp is renewed


def pdf_file(name: str, made: Hashed) -> NewFile:
    """A PDF an engine made, named after what it shows."""
    return NewFile(made.data, filename(name), PDF, made.sha256)


def filename(name: str) -> str:
    return f"{_safe(name)}.pdf"


def download_name(title: str, document: str | None = None, *, part: str | None = None) -> str:
    """What a result file is called in a downloads folder: the submission's (or template's) title first, so one
    submission's files sort together, then the document when it is not the title, then which part it is
    ("Services Agreement - contract - signed by Alice.pdf", "Services Agreement - Audit Log.pdf")."""
    words = [title]
    if document and document != title:
        words.append(document)
    if part:
        words.append(part)
    return " - ".join(words)


def _safe(name: str) -> str:
    """No path separators or control characters in a name a browser saves a file under."""
    return "".join("-" if char in "/\\" or ord(char) < 32 else char for char in name).strip() or "document"


def digest(data: Any) -> str:
    """A hash of what a file made on request shows, to know when to make it again."""
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()


async def insert(
    tx: Connection,
    clock: Clock,
    submission: Submission,
    submitter_id: int | None,
    item: Produced,
    blob_id: int,
    values_sha256: str | None = None,
) -> None:
    await stored.insert_result_document(
        tx,
        submission_id=submission.id,
        submitter_id=submitter_id,
        kind=item.kind,
        position=item.position,
        name=item.name,
        blob_id=blob_id,
        sha256=item.file.sha256,
        values_sha256=values_sha256,
        now=clock.now(),
        pades_level=item.pades_level,
        timestamp_renew_at=item.timestamp_renew_at,
    )
