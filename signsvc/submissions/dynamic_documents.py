"""A template's dynamic documents filled with a submission's `variables` (docs/docx-variables.md).

Each document that kept its DOCX is filled (docx_variables, in the pool), converted by LibreOffice and taken in
as a new document with the template document's uuid and name: the submission's copy of it, the template left as
it is. The fields follow: a field whose `{{tag}}` is in the filled document has its areas there moved to where
the tag now is (by the field's name); the other areas keep their page fractions, and those on pages the filled
document no longer has are dropped. All of it happens before the submission's transaction. A one-off
submission's documents of `template_ids` are filled the same way (`filled_documents`).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import storage.files as stored_files
from signsvc.infra import errors, pdf_calls
from signsvc.infra.files import Files
from signsvc.submissions.basis import Basis, Document
from signsvc.templates import document_tags, docx_variables, patterns
from signsvc.templates.documents import Ingest, IngestedDocument
from storage import Database
from storage.records import Template, TemplateDocument
from storage.shapes import Area, Field


async def filled(
    db: Database,
    files: Files,
    ingest: Ingest,
    template: Template,
    documents: list[TemplateDocument],
    variables: dict[str, Any],
) -> Basis:
    """The basis of a submission of `template` (whose `documents` they are): its dynamic documents filled with
    `variables`, its fields moved."""
    basis = Basis.of_template(template)
    if not any(document.source_blob_id for document in documents):
        return basis
    fields, made = await filled_documents(db, files, ingest, basis.fields, documents, variables)
    replaced = {document.uuid: document for document in made if isinstance(document, IngestedDocument)}
    conditions = {document.uuid: document.conditions for document in documents if document.conditions}
    return dataclasses.replace(basis, fields=fields, filled=replaced, conditions=conditions)


async def filled_documents(
    db: Database,
    files: Files,
    ingest: Ingest,
    fields: list[Field],
    documents: list[TemplateDocument],
    variables: dict[str, Any],
) -> tuple[list[Field], list[Document]]:
    """The documents, each dynamic one filled with `variables` (the others as they are), and `fields` moved."""
    made: list[Document] = []
    for document in documents:
        if document.source_blob_id is None:
            made.append(document)
            continue
        one = await _filled_document(db, files, ingest, document, variables)
        await patterns.prepare(document_tags.patterns([one]))  # compiled off the event loop before tags are read
        fields = _moved_fields(fields, document.uuid, one)
        made.append(one)
    return fields, made


async def _filled_document(
    db: Database, files: Files, ingest: Ingest, document: TemplateDocument, variables: dict[str, Any]
) -> IngestedDocument:
    assert document.source_blob_id is not None
    blob = await stored_files.get_blob(db, document.source_blob_id)
    if blob is None:  # the template was deleted meanwhile
        raise errors.NotFound(f"Template {document.template_id} not found")
    try:
        docx = await ingest.pool.run(docx_variables.render, await files.read(blob), variables)
    except docx_variables.DocxProblem as exc:
        raise errors.at(("variables",), f"cannot fill the document {document.name}: {exc.message}") from None
    where = ("variables",)
    made = await ingest.from_source(docx, document.name, where, pdf_calls.TagReading())
    return dataclasses.replace(made, uuid=document.uuid, name=document.name)


def _moved_fields(fields: list[Field], document_uuid: str, made: IngestedDocument) -> list[Field]:
    tagged = {tag["name"]: tag for tag in document_tags.fields(made, ("variables",)) if tag.get("name")}
    return [_moved(field, document_uuid, made, tagged.get(field["name"])) for field in fields]


def _moved(field: Field, document_uuid: str, made: IngestedDocument, tag: dict[str, Any] | None) -> Field:
    others = [area for area in field.get("areas", []) if area["attachment_uuid"] != document_uuid]
    here = [area for area in field.get("areas", []) if area["attachment_uuid"] == document_uuid]
    if not here:
        return field
    if tag is not None and tag.get("areas"):
        moved: list[Area] = [
            {**area, "page": area["page"] - 1, "attachment_uuid": document_uuid}  # type: ignore[typeddict-item]
            for area in tag["areas"]
        ]
    else:
        moved = [area for area in here if area["page"] < len(made.pages)]
    return {**field, "areas": others + moved}
