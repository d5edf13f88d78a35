"""The PDF engine functions as the process pool runs them.

`signsvc.pdf` takes about a second to import (pypdf, fpdf2, Pillow, PDFium), so only pool workers
import it; the server process refers to these functions by name and never loads the engines.
Decoding, hashing and the rest of the CPU work on uploads happen here too, off the event loop.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from datetime import datetime
from typing import Any

IMAGES = {"png", "jpeg", "webp", "gif", "tiff"}
_DATA_URI = re.compile(r"^data:[\w.+-]+/[\w.+-]+;base64,", re.IGNORECASE)


class EngineError(Exception):
    """The input cannot be used; the message says why, for the API user."""


class NotBase64(EngineError):
    """The text is not base64."""


def ingest(file: str | bytes) -> dict[str, Any]:
    """A document as uploaded (base64 text, or downloaded bytes) made ready for a template.

    Answers `{"kind"}` alone, with `"data"`, when the file is not a PDF or an image (an office
    file for LibreOffice, or an unsupported kind); otherwise what `prepare` answers plus `"kind"`.
    """
    data = file if isinstance(file, bytes) else _decode(file)
    kind = _call("sniff", data)
    if kind not in IMAGES and kind != "pdf":
        return {"kind": kind, "data": data}
    return {"kind": kind, **prepare(_call("image_to_pdf", data) if kind in IMAGES else data)}


def prepare(pdf: bytes) -> dict[str, Any]:
    """The PDF with its hash, pages, form fields and page images (with their hashes)."""
    from signsvc.pdf import previews

    info = _call("inspect_pdf", pdf)  # first: it names a PDF without pages, which rendering cannot
    images = _call("render_pages", pdf)
    return {**info, "pdf": pdf, "pdf_sha256": _sha256(pdf), "previews": images,
            "preview_sha256s": [_sha256(image) for image in images],
            "preview_extension": previews.EXTENSION, "preview_content_type": previews.CONTENT_TYPE}


def merge_pdfs(documents: list[bytes]) -> tuple[bytes, str]:
    """One PDF of all the documents, with its hash."""
    merged = _call("merge_pdfs", documents)
    return merged, _sha256(merged)


def merge_base64(files: list[str]) -> str:
    """The merge tool (REFERENCE 11.1): base64 PDFs in, one base64 PDF of all their pages out.

    Raises EngineError naming the first file (`files[i]`) that is not base64, not a PDF or unreadable.
    """
    documents = []
    for index, text in enumerate(files):
        try:
            data = _decode(text)
        except NotBase64:
            raise EngineError(f"files[{index}] is not valid base64") from None
        if _call("sniff", data) != "pdf":
            raise EngineError(f"files[{index}] is not a PDF")
        documents.append(data)
    merged = _call("merge_pdfs", documents, names=[f"files[{index}]" for index in range(len(files))])
    return base64.b64encode(merged).decode()


def _decode(text: str) -> bytes:
    try:
        return base64.b64decode(_DATA_URI.sub("", text), validate=True)
    except (binascii.Error, ValueError):
        raise NotBase64() from None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _call(engine: str, /, *args: Any, **kwargs: Any) -> Any:
    """Calls the engine function named `engine` (dotted below `signsvc.pdf`, as `seal.sign`)."""
    import signsvc.pdf as engines

    function: Any = engines
    for part in engine.split("."):
        function = getattr(function, part)
    try:
        return function(*args, **kwargs)
    except engines.PdfError as exc:
        raise EngineError(str(exc)) from None


ATTACHMENT_IMAGES = ("png", "jpeg", "webp", "gif")
# Programs refused by content whatever their name; the label is what the refusal calls them.
_EXECUTABLES = [(b"MZ", ".exe"), (b"\x7fELF", "ELF executable"), (b"\xfe\xed\xfa\xce", "Mach-O executable"),
                (b"\xfe\xed\xfa\xcf", "Mach-O executable"), (b"\xce\xfa\xed\xfe", "Mach-O executable"),
                (b"\xcf\xfa\xed\xfe", "Mach-O executable"), (b"#!", "script")]


def attachment(file: str | bytes, images_only: bool) -> dict[str, Any]:
    """A signature, image or file value as uploaded (base64 text or downloaded bytes): `{data, kind, sha256}`,
    `kind` as `sniff` names it (None when unknown).

    Raises NotBase64; EngineError for an executable, or, when `images_only`, for anything but a PNG,
    JPEG, WebP or GIF that can be drawn into a PDF.
    """
    data = file if isinstance(file, bytes) else _decode(file)
    if not data:
        raise EngineError("The file is empty")
    if label := next((label for magic, label in _EXECUTABLES if data.startswith(magic)), None):
        raise EngineError(f"File type '{label}' is not allowed")
    kind = _call("sniff", data)
    if images_only:
        if kind not in ATTACHMENT_IMAGES:
            raise EngineError("The file is not an image: send a PNG, JPEG, WebP or GIF")
        _call("image_to_pdf", data)  # proves now that completion will be able to draw it
    return {"data": data, "kind": kind, "sha256": _sha256(data)}


def typed_signature(text: str, font_dir: str | None = None) -> tuple[bytes, str]:
    """A PNG of the text in a handwriting-like font, with its hash."""
    png = _call("render_typed_signature", text, font_dir)
    return png, _sha256(png)


def audit_log(log: dict[str, Any], font_dir: str | None = None) -> tuple[bytes, str]:
    """The audit log PDF of a submission, with its hash; `signsvc.pdf.audit_log` documents `log`."""
    pdf = _call("render_audit_log", log, font_dir)
    return pdf, _sha256(pdf)


def fill_pdf(pdf: bytes, document_uuid: str, fields: list[dict[str, Any]], values: dict[str, object],
             files: dict[str, bytes], *, filenames: dict[str, str] | None = None, stamp: dict[str, Any] | None = None,
             font_dir: str | None = None, footer: str | None = None) -> tuple[bytes, str]:
    """The document with the values drawn in and its form flattened (`signsvc.pdf.fill_pdf`), with its hash."""
    filled = _call("fill_pdf", pdf, document_uuid, fields, values, files, filenames=filenames, stamp=stamp,
                   font_dir=font_dir, footer=footer)
    return filled, _sha256(filled)


def seal_pdf(pdf: bytes, signer_pems: dict[str, Any], reason: str, name: str | None, signing_time: datetime,
             tsa_url: str | None = None) -> tuple[bytes, str]:
    """The PDF with the service's certification signature (`signsvc.pdf.seal`), with its hash.

    Raises EngineError for a PDF that can't be signed, ConnectionError when the timestamp server fails.
    """
    signed = _call("seal.sign", pdf, signer_pems, reason=reason, name=name, signing_time=signing_time,
                          tsa_url=tsa_url)
    return signed, _sha256(signed)


def verify_pdf(pdf: bytes, trusted_pems: list[str]) -> tuple[list[dict[str, Any]], str]:
    """A report per signature in the PDF (`signsvc.pdf.verify`), with the file's hash to look up."""
    return _call("verify.verify", pdf, trusted_pems), _sha256(pdf)


def verify_base64(file: str, trusted_pems: list[str]) -> tuple[list[dict[str, Any]], str]:
    """The verify tool's input (base64 text) checked as `verify_pdf` does."""
    try:
        data = _decode(file)
    except NotBase64:
        raise EngineError("file is not valid base64") from None
    return verify_pdf(data, trusted_pems)


def generate_signing_chain(common_name: str, organization: str, now: datetime) -> dict[str, Any]:
    """A new signing key and certificate chain as PEM text, with the certificate's SHA-256 (`sha256`)."""
    chain = _call("certificates.generate", common_name, organization, now=now)
    return {**chain, "sha256": _call("certificates.fingerprint", chain["cert_pem"])}


def load_signing_p12(data: bytes, password: str | None) -> dict[str, Any]:
    """The chain inside a PKCS#12 file, as `generate_signing_chain` answers; EngineError says what is wrong."""
    chain = _call("certificates.load_p12", data, password)
    return {**chain, "sha256": _call("certificates.fingerprint", chain["cert_pem"])}


def warm(signer_pems: dict[str, Any], font_dir: str | None = None) -> None:
    """Loads the signing key and the text font into this worker's caches (P5), as a server starts."""
    _call("seal.signer_for", signer_pems)
    _call("fonts.coverage", _call("fonts.check", font_dir))
