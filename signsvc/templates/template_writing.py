"""What the template operations write with, in the caller's transaction: a document's row and its files (taken in,
or copied from another template's; a dynamic document's DOCX among them), the files the fields' defaults name
checked against the account's, the template's events; and a stored document's PDF read back."""

from __future__ import annotations

from dataclasses import dataclass

import storage.files as stored_files
import storage.templates as stored
from signsvc.infra import errors
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files, NewFile, as_preview
from signsvc.submissions import field_values
from signsvc.templates.documents import IngestedDocument
from signsvc.webhooks import events
from storage import Connection, Database
from storage.records import TemplateDocument
from storage.shapes import Condition, Field


@dataclass(frozen=True)
class Writer:
    db: Database
    clock: Clock
    files: Files

    async def record_document(
        self,
        tx: Connection,
        account_id: int,
        template_id: int,
        position: int,
        document: IngestedDocument,
        conditions: list[Condition],
        source: NewFile | None = None,
    ) -> None:
        """The document with its files; `source`: a dynamic document's DOCX."""
        blob = await self.files.record(tx, account_id, document.pdf)
        previews = [await self.files.record(tx, account_id, preview) for preview in document.previews]
        source_blob = await self.files.record(tx, account_id, source) if source else None
        await stored.insert_document(
            tx,
            template_id=template_id,
            uuid=document.uuid,
            position=position,
            name=document.name,
            blob_id=blob.id,
            pages=document.pages,
            previews=[as_preview(p) for p in previews],
            conditions=conditions,
            source_blob_id=source_blob.id if source_blob else None,
        )

    async def copy_document(
        self,
        tx: Connection,
        template_id: int,
        document: TemplateDocument,
        uuid: str,
        position: int,
        conditions: list[Condition],
    ) -> None:
        """A copy of another template's document, with files of its own (a dynamic document's DOCX too)."""
        blob = await self.files.copy(tx, document.blob_id)
        previews = [await self.files.copy(tx, preview["id"]) for preview in document.previews]
        source = await self.files.copy(tx, document.source_blob_id) if document.source_blob_id else None
        await stored.insert_document(
            tx,
            template_id=template_id,
            uuid=uuid,
            position=position,
            name=document.name,
            blob_id=blob.id,
            pages=document.pages,
            previews=[as_preview(p) for p in previews],
            conditions=conditions,
            source_blob_id=source.id if source else None,
        )

    async def check_defaults(self, conn: Connection, account_id: int, fields: list[Field]) -> None:
        await check_defaults(self.files, conn, account_id, fields)

    async def event(self, tx: Connection, account_id: int, event_type: str, template_id: int) -> None:
        await events.record(
            tx, self.clock, account_id=account_id, event_type=event_type, record_type="template", record_id=template_id
        )

    async def stored_pdf(self, document: TemplateDocument) -> bytes:
        blob = await stored_files.get_blob(self.db, document.blob_id)
        if blob is None:  # the template was deleted meanwhile
            raise errors.NotFound(f"Template {document.template_id} not found")
        return await self.files.read(blob)


def blob_ids(document: TemplateDocument) -> list[int]:
    """The files of a stored document: its PDF, its page images and a dynamic document's DOCX."""
    source = [document.source_blob_id] if document.source_blob_id else []
    return [document.blob_id] + [preview["id"] for preview in document.previews] + source


async def check_defaults(files: Files, conn: Connection, account_id: int, fields: list[Field]) -> None:
    """A default of a signature, initials, image, stamp or file field names files of the account by their ids
    (a file field's, a list of them; images but for a file field): 422 naming the field otherwise."""
    named = field_values.named(fields)
    given = [(f, item) for f in named for item in field_values.named_files(f, f.get("default_value"))]
    owned = await files.owned(conn, account_id, [item for _, item in given])
    for found, item in given:
        if not isinstance(item, str) or item not in owned:
            shown = str(item) if len(str(item)) <= 50 else f"{str(item)[:50]}..."
            raise errors.Invalid(
                f"{found['name']}: default_value must name a file of this account by its id, not {shown}"
            )
        if found["type"] != "file" and not owned[item].content_type.startswith("image/"):
            raise errors.Invalid(f"{found['name']}: default_value must name an image, the file {item} is not one")
