"""Documents of a new template: fetched or decoded, recognised by content, turned into a PDF,
inspected for pages, form fields and (when asked) `{{...}}` text tags, and rendered to page images.

The PDF work runs in the process pool; office conversion in a LibreOffice subprocess.
"""

from __future__ import annotations

import re
import uuid as uuids
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from signsvc.infra import downloads, errors, pdf_calls
from signsvc.infra.files import NewFile
from signsvc.infra.office import OfficeConverter
from signsvc.infra.pool import PdfPool
from signsvc.pdf.boxes import TextTag
from storage.shapes import PageSize

OFFICE = {"docx", "doc", "odt", "rtf", "xlsx", "pptx"}
PDF = "application/pdf"
MAX_MERGED = 50
SUPPORTED = "a PDF, an image (PNG, JPEG, WebP, GIF, TIFF) or an office document (DOCX, DOC, ODT, RTF, XLSX, PPTX)"


@dataclass(frozen=True)
class IngestedDocument:
    uuid: str
    name: str
    pdf: NewFile
    pages: list[PageSize]
    previews: list[NewFile]
    form_fields: list[dict[str, Any]]
    tags: list[TextTag] = field(default_factory=list)  # when looked for (`pdf_calls.TagReading`)


class Ingest:
    """Takes in what callers upload: documents for templates, files for values. Holds the PDF pool, the
    office converter and the downloader, and where the fonts are."""

    def __init__(
        self, pool: PdfPool, office: OfficeConverter, downloader: downloads.Downloader, font_dir: str | None = None
    ) -> None:
        self.pool, self.office, self.downloader, self.font_dir = pool, office, downloader, font_dir

    async def document(
        self, raw: Any, where: errors.Location, tags: pdf_calls.TagReading | None = None
    ) -> IngestedDocument:
        """`{"file": base64 or URL, "name": ...}` taken in; with `tags`, its text tags found (and removed from its
        PDF and pictures when `tags.remove`), also in an office document, after its conversion."""
        file, name = _file_and_name(raw, where)
        content = await self._download(file, where) if _is_url(file) else file
        return await self._ingested(content, name, where, tags)

    async def source(self, raw: Any, where: errors.Location) -> tuple[bytes, str | None]:
        """A document's file as bytes (decoded in the pool, or downloaded) and its name, for callers that read the
        file themselves before it is taken in (`from_source`)."""
        file, name = _file_and_name(raw, where)
        if _is_url(file):
            return await self._download(file, where), name
        try:
            return await self.pool.run(pdf_calls.decode, file), name
        except pdf_calls.NotBase64:
            raise errors.at((*where, "file"), "is neither valid base64 nor an https:// URL") from None

    async def from_source(
        self, data: bytes, name: str | None, where: errors.Location, tags: pdf_calls.TagReading | None = None
    ) -> IngestedDocument:
        """A document's file that `source` answered, taken in as `document` takes it."""
        return await self._ingested(data, name, where, tags)

    async def uploaded(
        self, data: bytes, filename: str, where: errors.Location, tags: pdf_calls.TagReading | None = None
    ) -> IngestedDocument:
        """A document uploaded as a file (the console's upload form), taken as `document` takes the same file
        as base64 text, with no text between: named by its file name without its extension."""
        return await self._ingested(data, _document_name(filename, ""), where, tags)

    async def _ingested(
        self, content: str | bytes, name: str | None, where: errors.Location, tags: pdf_calls.TagReading | None
    ) -> IngestedDocument:
        """Base64 text, a download or an upload, recognised by content and made ready for a template."""
        try:
            prepared = await self._prepared(content, where, tags)
        except pdf_calls.NotBase64:
            raise errors.at((*where, "file"), "is neither valid base64 nor an https:// URL") from None
        except pdf_calls.EngineError as exc:
            raise _file_refused(where, str(exc)) from None
        return ingested(prepared, name or "document")

    async def combined(self, documents: list[IngestedDocument], name: str) -> NewFile | None:
        """One PDF of every document, when there is more than one."""
        if len(documents) < 2:
            return None
        merged = await self.pool.run(pdf_calls.merge_pdfs, [document.pdf.data for document in documents])
        return NewFile(merged.data, f"{name}.pdf", PDF, merged.sha256)

    async def merge(self, files: Any) -> str:
        """The merge tool: `files`, two to `MAX_MERGED` base64 PDFs, as one base64 PDF of all their pages."""
        if not files:
            raise errors.Invalid("Files are required: files must be an array of base64 PDFs")
        if not isinstance(files, list) or not all(isinstance(file, str) for file in files):
            raise errors.Invalid("files must be an array of base64 PDFs (strings)")
        if not 2 <= len(files) <= MAX_MERGED:
            raise errors.Invalid(f"At least 2 files are required, and at most {MAX_MERGED}")
        try:
            return await self.pool.run(pdf_calls.merge_base64, files)
        except pdf_calls.EngineError as exc:
            raise errors.Invalid(str(exc)) from None

    async def combined_pdfs(self, pdfs: list[bytes], name: str) -> NewFile | None:
        """One PDF of all these PDFs, when there is more than one (the documents of a template as stored)."""
        if len(pdfs) < 2:
            return None
        merged = await self.pool.run(pdf_calls.merge_pdfs, pdfs)
        return NewFile(merged.data, f"{name}.pdf", PDF, merged.sha256)

    async def merged(self, pdfs: list[bytes], name: str, where: errors.Location) -> IngestedDocument:
        """One new document of all the pages of these PDFs, in order, with its own page images."""
        try:
            merged = await self.pool.run(pdf_calls.merge_pdfs, pdfs)
            return ingested(await self.pool.run(pdf_calls.prepare, merged.data), name)
        except pdf_calls.EngineError as exc:
            raise errors.at(where, f"the documents cannot be merged into one: {exc}") from None

    async def _prepared(
        self, content: str | bytes, where: errors.Location, tags: pdf_calls.TagReading | None
    ) -> pdf_calls.PreparedPdf:
        """Decoding, recognising and inspecting run in the pool; office files visit LibreOffice between."""
        ingested = await self.pool.run(pdf_calls.ingest, content, tags)
        if ingested.kind in OFFICE:
            try:
                pdf = await self.office.to_pdf(ingested.data, ingested.kind)
            except errors.Invalid as exc:
                raise _file_refused(where, exc.message) from None
            return await self.pool.run(pdf_calls.prepare, pdf, tags)
        if ingested.prepared is None:
            raise errors.at((*where, "file"), f"is not a supported file: send {SUPPORTED}")
        return ingested.prepared

    async def _download(self, url: str, where: errors.Location) -> bytes:
        try:
            return await self.downloader.fetch(url)
        except downloads.DownloadError as exc:
            raise _file_refused(where, exc.message) from None


def ingested(prepared: pdf_calls.PreparedPdf, name: str) -> IngestedDocument:
    """A prepared PDF as a document of a new template, with a fresh uuid, its file named after it."""
    extension, content_type = prepared.preview_extension, prepared.preview_content_type
    return IngestedDocument(
        uuid=str(uuids.uuid4()),
        name=name,
        pages=prepared.pages,
        form_fields=prepared.fields,
        tags=prepared.tags,
        pdf=NewFile(prepared.pdf.data, f"{name}.pdf", PDF, prepared.pdf.sha256),
        previews=[
            NewFile(image.data, f"{page}.{extension}", content_type, image.sha256)
            for page, image in enumerate(prepared.previews)
        ],
    )


def _file_and_name(raw: Any, where: errors.Location) -> tuple[str, str | None]:
    """A document input's `file` (base64 or a URL, trimmed) and its name: `name`, else the URL's file name."""
    if not isinstance(raw, dict):
        raise errors.at(where, errors.must_be(dict))
    file = raw.get("file")
    if not isinstance(file, str) or not file.strip():
        raise errors.at((*where, "file"), "is required: the file as base64 or an https:// URL")
    name = raw.get("name")
    if name is not None and not isinstance(name, str):
        raise errors.at((*where, "name"), errors.must_be(str))
    file = file.strip()
    return file, _document_name(name, file)


def _is_url(file: str) -> bool:
    return re.match(r"^[a-z][a-z0-9+.-]*://", file, re.IGNORECASE) is not None


def _document_name(name: str | None, file: str) -> str | None:
    """The given name, else the URL's file name, without its extension."""
    if not name and file.lower().startswith("https://"):
        name = unquote(PurePosixPath(urlsplit(file).path).name)
    stem = PurePosixPath(name).stem.strip() if name else ""
    return stem or None


def _file_refused(where: errors.Location, problem: str) -> errors.Invalid:
    """A document's file refused for what it holds: `documents[0].file: <why>`."""
    return errors.Invalid(f"{errors.written((*where, 'file'))}: {problem}", location=(*where, "file"))
