"""A submitter's field values from input: checked per field type, their files made and stored.

Files (signatures, images, uploads) are fetched, decoded and drawn before the transaction, written
to the content store, and recorded as the submission's attachments inside it; a value then holds the
file's uuid. A refused transaction leaves no file behind (`Files.discard`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import storage.submissions as stored
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files, NewFile
from signsvc.submissions import attachments, field_values
from signsvc.templates.documents import Ingest
from storage import Connection
from storage.records import Submitter

_SOURCES = (field_values.Upload, field_values.Typed)  # values that become files


@dataclass
class PreparedValues:
    """Checked values by field uuid; a file value is still a `NewFile` (or a list of them)."""

    values: dict[str, Any] = field(default_factory=dict)
    files: list[NewFile] = field(default_factory=list)


async def prepare(ingest: Ingest, fields: list[dict[str, Any]], raw: Any, where: str) -> PreparedValues:
    """`raw` values of the role's `fields` checked, their files made (not yet stored)."""
    prepared = PreparedValues()
    by_uuid = {f["uuid"]: f for f in fields}
    for uuid, value in field_values.prefill(fields, raw, where).items():
        if isinstance(value, list) and any(isinstance(item, _SOURCES) for item in value):
            made = [await attachments.store(ingest, item, by_uuid[uuid], where) for item in value]
            prepared.files += made
            prepared.values[uuid] = made
        elif isinstance(value, _SOURCES):
            prepared.values[uuid] = file = await attachments.store(ingest, value, by_uuid[uuid], where)
            prepared.files.append(file)
        else:
            prepared.values[uuid] = value
    return prepared


async def record(tx: Connection, clock: Clock, files: Files, submitter: Submitter,
                 prepared: PreparedValues) -> dict[str, Any]:
    """The values as stored: each file recorded as an attachment of the submitter's submission."""
    stored_values = {}
    for uuid, value in prepared.values.items():
        if isinstance(value, list) and value and isinstance(value[0], NewFile):
            value = [await _attach(tx, clock, files, submitter, item) for item in value]
        elif isinstance(value, NewFile):
            value = await _attach(tx, clock, files, submitter, value)
        stored_values[uuid] = value
    return stored_values


async def _attach(tx: Connection, clock: Clock, files: Files, submitter: Submitter, file: NewFile) -> str:
    blob = await files.record(tx, submitter.account_id, file)
    await stored.insert_attachment(tx, submission_id=submitter.submission_id, submitter_id=submitter.id,
                                   blob_id=blob.id, now=clock.now())
    return blob.uuid
