"""Files given as field values (signatures, initials, images, stamps, files) made ready to store.

URLs are downloaded here, through the SSRF-safe downloader; decoding, recognising and drawing run
in the process pool, which also hashes the result.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

from signsvc.infra import downloads, errors, pdf_calls
from signsvc.infra.files import NewFile
from signsvc.submissions.field_values import Typed, Upload
from signsvc.templates.documents import Ingest
from storage.shapes import Field

OCTET_STREAM = "application/octet-stream"
CONTENT_TYPES = {
    "pdf": "application/pdf",
    "png": "image/png",
    "jpeg": "image/jpeg",
    "webp": "image/webp",
    "gif": "image/gif",
    "tiff": "image/tiff",
    "doc": "application/msword",
    "rtf": "application/rtf",
    "odt": "application/vnd.oasis.opendocument.text",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
}
EXTENSIONS = {"jpeg": "jpg"}
# Refused by name, as DocuSeal does: scripts and shortcuts carry no magic bytes to sniff.
DANGEROUS = frozenset(
    {
        "exe",
        "com",
        "scr",
        "pif",
        "bat",
        "cmd",
        "msi",
        "msp",
        "dll",
        "cpl",
        "sys",
        "vbs",
        "vbe",
        "js",
        "jse",
        "wsf",
        "wsh",
        "ps1",
        "psm1",
        "hta",
        "lnk",
        "reg",
        "jar",
        "app",
        "dmg",
        "pkg",
        "sh",
        "bash",
        "deb",
        "rpm",
        "apk",
        "elf",
        "bin",
        "run",
        "scf",
        "inf",
    }
)
_UNSAFE_NAME = re.compile(r"[\x00-\x1f\x7f\\/]")


async def store(ingest: Ingest, source: Upload | Typed, field: Field, where: errors.Location) -> NewFile:
    """The content of one file value of `field`; a 422 naming the field (pass it as `field_values.named`
    gives it) and `where` when it cannot be had or is not allowed."""
    name = field.get("name") or f"{field['type'].capitalize()} Field"
    try:
        if isinstance(source, Typed):
            png = await ingest.pool.run(pdf_calls.typed_signature, source.text, ingest.font_dir)
            return NewFile(png.data, f"{field['type']}.png", "image/png", png.sha256)
        return await _upload(ingest, source, field, name, where)
    except pdf_calls.NotBase64 as exc:
        raise errors.located(f"{name}: the value is neither valid base64 nor an https:// URL ({exc})", where) from None
    except downloads.DownloadError as exc:
        raise errors.located(f"{name}: {exc.message}", where) from None
    except pdf_calls.EngineError as exc:
        raise errors.located(f"{name}: {exc}", where) from None


async def _upload(ingest: Ingest, source: Upload, field: Field, name: str, where: errors.Location) -> NewFile:
    url_name = _url_filename(source.source) if source.is_url else ""
    extension = PurePosixPath(url_name).suffix.lower().lstrip(".")
    if field["type"] == "file" and extension in DANGEROUS:
        raise errors.located(f"{name}: File type '.{extension}' is not allowed", where)
    file = await ingest.downloader.fetch(source.source) if source.is_url else source.source
    content = await ingest.pool.run(pdf_calls.attachment, file, field["type"] != "file")
    return NewFile(
        content.data,
        _filename(field["type"], content.kind, url_name),
        CONTENT_TYPES.get(content.kind or "", OCTET_STREAM),
        content.sha256,
    )


def _filename(field_type: str, kind: str | None, url_name: str) -> str:
    """ "signature.png", "image.jpg"; a file keeps its URL's name, with the extension its content shows."""
    extension = EXTENSIONS.get(kind, kind) if kind else None
    stem = PurePosixPath(url_name).stem if field_type == "file" and url_name else field_type
    if extension:
        return f"{stem}.{extension}"
    return url_name or stem


def _url_filename(url: str) -> str:
    return _UNSAFE_NAME.sub("", unquote(PurePosixPath(urlsplit(url).path).name)).strip()[:200]
