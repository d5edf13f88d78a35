"""Documents of a new template: fetched or decoded, recognised by content, turned into a PDF,
inspected for pages and form fields, and rendered to page images (SPEC section 2, Template).

The PDF work runs in the process pool; office conversion in a LibreOffice subprocess.
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid as uuids
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from signsvc import downloads, errors
from signsvc.files import NewFile
from signsvc.office import OfficeConverter
from signsvc import pdf_calls
from signsvc.pdf_calls import EngineError
from signsvc.pool import PdfPool

IMAGES = {"png", "jpeg", "webp", "gif", "tiff"}
OFFICE = {"docx", "doc", "odt", "rtf", "xlsx", "pptx"}
SUPPORTED = "a PDF, an image (PNG, JPEG, WebP, GIF, TIFF) or an office document (DOCX, DOC, ODT, RTF, XLSX, PPTX)"
_DATA_URI = re.compile(r"^data:[\w.+-]+/[\w.+-]+;base64,", re.IGNORECASE)


@dataclass(frozen=True)
class IngestedDocument:
    uuid: str
    name: str
    pdf: NewFile
    pages: list[dict[str, float]]
    previews: list[NewFile]
    form_fields: list[dict[str, Any]]


class Ingest:
    def __init__(self, pool: PdfPool, office: OfficeConverter, downloader: downloads.Downloader) -> None:
        self.pool, self.office, self.downloader = pool, office, downloader

    async def document(self, raw: Any, where: str) -> IngestedDocument:
        if not isinstance(raw, dict):
            raise errors.Invalid(f"{where} must be an object")
        file = raw.get("file")
        if not isinstance(file, str) or not file.strip():
            raise errors.Invalid(f"{where}.file is required: the file as base64 or an https:// URL")
        name = raw.get("name")
        if name is not None and not isinstance(name, str):
            raise errors.Invalid(f"{where}.name must be a string")
        data = await self._bytes(file.strip(), where)
        pdf = await self._pdf(data, where)
        try:
            prepared = await self.pool.run(pdf_calls.prepare, pdf)
        except EngineError as exc:
            raise errors.Invalid(f"{where}.file: {exc}") from None
        name = _document_name(name, file) or "document"
        return IngestedDocument(uuid=str(uuids.uuid4()), name=name, pdf=NewFile(pdf, f"{name}.pdf", "application/pdf"),
                                pages=prepared["pages"], form_fields=prepared["fields"],
                                previews=[NewFile(image, f"{page}.{prepared['preview_extension']}",
                                                  prepared["preview_content_type"])
                                          for page, image in enumerate(prepared["previews"])])

    async def combined(self, documents: list[IngestedDocument], name: str) -> NewFile | None:
        """One PDF of every document, when there is more than one."""
        if len(documents) < 2:
            return None
        data = await self.pool.run(pdf_calls.merge_pdfs, [document.pdf.data for document in documents])
        return NewFile(data, f"{name}.pdf", "application/pdf")

    async def _bytes(self, file: str, where: str) -> bytes:
        if re.match(r"^[a-z][a-z0-9+.-]*://", file, re.IGNORECASE):
            try:
                return await self.downloader.fetch(file)
            except downloads.DownloadError as exc:
                raise errors.Invalid(f"{where}.file: {exc.message}") from None
        try:
            return base64.b64decode(_DATA_URI.sub("", file), validate=True)
        except (binascii.Error, ValueError):
            raise errors.Invalid(f"{where}.file is neither valid base64 nor an https:// URL") from None

    async def _pdf(self, data: bytes, where: str) -> bytes:
        kind = await self.pool.run(pdf_calls.sniff, data)
        if kind == "pdf":
            return data
        if kind in IMAGES:
            try:
                return await self.pool.run(pdf_calls.image_to_pdf, data)
            except EngineError as exc:
                raise errors.Invalid(f"{where}.file: {exc}") from None
        if kind in OFFICE:
            try:
                return await self.office.to_pdf(data, kind)
            except errors.Invalid as exc:
                raise errors.Invalid(f"{where}.file: {exc.message}") from None
        raise errors.Invalid(f"{where}.file is not a supported file: send {SUPPORTED}")


def _document_name(name: str | None, file: str) -> str | None:
    if not name and file.lower().startswith("https://"):
        name = unquote(PurePosixPath(urlsplit(file).path).name)
    return PurePosixPath(name).stem.strip() or None if name else None
