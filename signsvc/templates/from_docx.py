"""The documents of a template made from DOCX files (`POST /templates/docx`).

Each file (base64 or an https:// URL) must be a DOCX. Its `[[...]]` variables are read (docx_variables) and it is
converted to PDF as it is written, through LibreOffice like any office document; its `{{...}}` field tags are then
found as in any document taken in. The template's `variables_schema` lists the variables of all its documents.

With `"dynamic": true` the DOCX itself is kept with the document, to be filled with a submission's `variables`;
the template's PDF shows the document as written, its `[[...]]` tags visible where the values will go. Without
it the document is static: its PDF is what the template keeps, the `[[...]]` text stays as written, and nothing
fills it later (its variables are still listed in the schema, so that a caller sees what the file expected).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from signsvc.infra import errors, json_fields, pdf_calls
from signsvc.infra.files import NewFile
from signsvc.templates import docx_variables, variables_schema
from signsvc.templates.documents import Ingest, IngestedDocument
from signsvc.templates.docx_variables import DocxProblem

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


@dataclass(frozen=True)
class DocxDocument:
    document: IngestedDocument
    source: NewFile | None  # a dynamic document's DOCX
    variables_schema: dict[str, Any]


@dataclass(frozen=True)
class Inspected:
    variables_schema: dict[str, Any]
    sha256: str


def inspect(data: bytes) -> Inspected:
    """In the pool: the variables the DOCX reads, and its hash; a DocxProblem when it is no DOCX or a tag is wrong."""
    return Inspected(docx_variables.variables_schema(data), hashlib.sha256(data).hexdigest())


async def taken_in(ingest: Ingest, raw_documents: Any) -> list[DocxDocument]:
    if not isinstance(raw_documents, list) or not raw_documents:
        raise errors.at(("documents",), "must be a non-empty array")
    return [await _taken_in(ingest, raw, ("documents", index)) for index, raw in enumerate(raw_documents)]


def variables_of(documents: list[DocxDocument]) -> dict[str, Any]:
    return variables_schema.union([document.variables_schema for document in documents])


async def _taken_in(ingest: Ingest, raw: Any, where: errors.Location) -> DocxDocument:
    data, name = await ingest.source(raw, where)
    return await document_of(ingest, data, name, json_fields.flag(raw, "dynamic", False, where=where), where)


async def filled(
    ingest: Ingest, raw: Any, variables: dict[str, Any], where: errors.Location, tags: pdf_calls.TagReading
) -> IngestedDocument:
    """A document of a request (`where` its item, for messages) with its `[[...]]` tags filled with `variables`,
    then taken in (converted, its text tags read by `tags`); a PDF is taken in as it is."""
    data, name = await ingest.source(raw, where)
    if not data.startswith(b"%PDF"):
        data = await rendered(ingest, data, variables, where)
    return await ingest.from_source(data, name, where, tags)


async def rendered(ingest: Ingest, docx: bytes, variables: dict[str, Any], where: errors.Location) -> bytes:
    """The DOCX filled with `variables` (in the pool); a 422 naming the document's file and the tag otherwise."""
    try:
        return await ingest.pool.run(docx_variables.render, docx, variables)
    except DocxProblem as exc:
        raise errors.Invalid(f"{errors.written((*where, 'file'))}: {exc.message}", location=(*where, "file")) from None


async def document_of(
    ingest: Ingest, data: bytes, name: str | None, dynamic: bool, where: errors.Location
) -> DocxDocument:
    """The DOCX file's document (`where` is its item in the request, for messages), kept when `dynamic`."""
    try:
        inspected = await ingest.pool.run(inspect, data)
    except DocxProblem as exc:
        raise errors.Invalid(f"{errors.written((*where, 'file'))}: {exc.message}", location=(*where, "file")) from None
    document = await ingest.from_source(data, name, where, pdf_calls.TagReading())
    source = NewFile(data, f"{document.name}.docx", DOCX, inspected.sha256) if dynamic else None
    return DocxDocument(document, source, inspected.variables_schema)
