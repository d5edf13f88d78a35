"""Recognising an upload's kind by its content (magic bytes, and the members of a zip), never by its name."""

from __future__ import annotations

import io
import zipfile

_MAGIC = [
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF87a", "gif"),
    (b"GIF89a", "gif"),
    (b"II*\x00", "tiff"),
    (b"MM\x00*", "tiff"),
    # OLE2 compound file: also XLS and PPT; LibreOffice tells them apart when converting.
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "doc"),
    (b"{\\rtf", "rtf"),
]
_OOXML = [
    (b"wordprocessingml.document.main+xml", "docx"),
    (b"ms-word.document.macroEnabled.main+xml", "docx"),
    (b"spreadsheetml.sheet.main+xml", "xlsx"),
    (b"ms-excel.sheet.macroEnabled.main+xml", "xlsx"),
    (b"presentationml.presentation.main+xml", "pptx"),
    (b"ms-powerpoint.presentation.macroEnabled.main+xml", "pptx"),
]
_ODF = {b"application/vnd.oasis.opendocument.text": "odt"}
_MEMBER_LIMIT = 1 << 20  # read no more of a zip member than this: the archive may be a zip bomb


def sniff(data: bytes) -> str | None:
    """One of pdf, png, jpeg, webp, gif, tiff, docx, xlsx, pptx, odt, doc, rtf; None for anything else."""
    if data.startswith(b"%PDF-"):
        return "pdf"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data.startswith(b"PK\x03\x04"):
        return _zip_kind(data)
    if kind := next((kind for magic, kind in _MAGIC if data.startswith(magic)), None):
        return kind
    # Readers accept a PDF header anywhere in the first 1024 bytes, after junk some generators write;
    # looked for last, so that a zip holding a PDF stays a zip.
    return "pdf" if b"%PDF-" in data[:1024] else None


def _zip_kind(data: bytes) -> str | None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            if "mimetype" in names:
                return _ODF.get(_read(archive, "mimetype").strip())
            if "[Content_Types].xml" in names:
                types = _read(archive, "[Content_Types].xml")
                return next((kind for marker, kind in _OOXML if marker in types), None)
    except Exception:  # a damaged or encrypted zip raises many types; either way it's nothing we convert
        return None
    return None


def _read(archive: zipfile.ZipFile, name: str) -> bytes:
    with archive.open(name) as member:
        return member.read(_MEMBER_LIMIT)
