"""The PDF engine calls as the process pool runs them: typed functions of plain data, answering records.

`signsvc.pdf` takes about a second to import (pypdf, fpdf2, Pillow, PDFium), so only pool workers
import it, each call the engine module it needs; the server process never loads the engines.
Decoding, hashing and the rest of the CPU work on uploads happen here too, off the event loop.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from signsvc.pdf.boxes import FieldTag, TextTag

if TYPE_CHECKING:  # the pool's processes import this module: they load no storage
    from storage.shapes import PageSize

IMAGES = {"png", "jpeg", "webp", "gif", "tiff"}
ATTACHMENT_IMAGES = ("png", "jpeg", "webp", "gif")
# What a browser's FileReader (and other clients) put before base64: `data:image/png;base64,`, with or
# without a media type and its parameters.
DATA_URI = re.compile(r"data:[^,]*;base64,", re.IGNORECASE)
_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/=\-_\r\n]")  # either alphabet, padding, line breaks
_STANDARD_ALPHABET = bytes.maketrans(b"-_", b"+/")
# Programs refused by content whatever their name; the label is what the refusal calls them.
_EXECUTABLES = [
    (b"MZ", ".exe"),
    (b"\x7fELF", "ELF executable"),
    (b"\xfe\xed\xfa\xce", "Mach-O executable"),
    (b"\xfe\xed\xfa\xcf", "Mach-O executable"),
    (b"\xce\xfa\xed\xfe", "Mach-O executable"),
    (b"\xcf\xfa\xed\xfe", "Mach-O executable"),
    (b"#!", "script"),
]


class EngineError(Exception):
    """The input cannot be used; the message says why, for the API user."""


class NotBase64(EngineError):
    """The text is not base64; the message says why."""


@dataclass(frozen=True)
class Hashed:
    """Bytes an engine made, with their SHA-256 (computed in the worker that made them)."""

    data: bytes
    sha256: str

    @classmethod
    def of(cls, data: bytes) -> Hashed:
        return cls(data, _sha256(data))


@dataclass(frozen=True)
class TagReading:
    """Look for a document's text tags; `remove`: and take them out of the PDF that is kept, and its pictures."""

    remove: bool = True


@dataclass(frozen=True)
class PreparedPdf:
    """A PDF ready for a template: its pages as displayed, its own form fields, a picture of each page, and its
    text tags when they were looked for."""

    pdf: Hashed
    pages: list[PageSize]
    fields: list[dict[str, Any]]
    previews: list[Hashed]
    preview_extension: str
    preview_content_type: str
    tags: list[TextTag] = field(default_factory=list)


@dataclass(frozen=True)
class PageImages:
    """Pictures of some of a PDF's pages, in the order they were asked for, and their texts (`PageSize`)."""

    images: list[Hashed]
    extension: str
    content_type: str
    texts: list[str]


@dataclass(frozen=True)
class RenderedHtml:
    """HTML rendered: the PDF prepared as an uploaded one is, and its field tags; or, when the HTML names https
    resources not given yet, only their URLs (`wanted`), to download and render again."""

    prepared: PreparedPdf | None
    tags: list[FieldTag]
    wanted: list[str]
    took: float = 0.0  # seconds the rendering took, of the `seconds` it was given


@dataclass(frozen=True)
class Ingested:
    """An uploaded document: prepared when it is a PDF or an image; else its kind and bytes (an office file
    for LibreOffice, or a kind nobody can use)."""

    kind: str | None
    prepared: PreparedPdf | None = None
    data: bytes = b""


@dataclass(frozen=True)
class Attachment:
    """A signature, image or file value as uploaded: its bytes, their kind as sniffed (None: unknown), hash."""

    data: bytes
    kind: str | None
    sha256: str


@dataclass(frozen=True)
class Sealed(Hashed):
    """A signed file with the PAdES level it reached (B-B, B-T, B-LT, B-LTA) and, when it carries a document
    timestamp, when that timestamp's certificate expires (the archive timestamp is renewed before then)."""

    level: str = "B-B"
    timestamp_expires_at: datetime | None = None
    timestamp_certificates: tuple[str, ...] = ()  # PEM, of the timestamp authorities in the file


@dataclass(frozen=True)
class SigningChain:
    """A signing key (None when it stays in a PKCS#12 file) and its certificate chain, as PEM text. `issues_crl`:
    the service holds the root CA's key of this generated chain, so it issues the CRL (the key itself never
    comes with the chain: only `issue_crl` takes it)."""

    key_pem: str | None
    cert_pem: str
    chain_pems: tuple[str, ...]
    sha256: str
    issues_crl: bool = False

    def pems(self) -> dict[str, Any]:
        """As `signsvc.pdf.seal` takes it."""
        return {"key_pem": self.key_pem, "cert_pem": self.cert_pem, "chain_pems": list(self.chain_pems)}


@dataclass(frozen=True)
class SignatureReport:
    """One signature of a verified PDF (`signsvc.pdf.verify`)."""

    field: str | None
    signer_name: str | None
    reason: str | None
    signing_time: str | None
    signing_time_source: str | None  # "timestamp" or "claimed"
    timestamp: str | None
    type: str | None
    intact: bool
    valid: bool
    trusted: bool
    coverage: str | None
    certificate_sha256: str | None
    issued_by_service: bool
    pades_level: str | None  # B-B, B-T, B-LT, B-LTA (signsvc.pdf.pades_levels)
    chain_validates_offline: bool
    missing_for_long_term: list[str] | None


@dataclass(frozen=True)
class Verified:
    signatures: list[SignatureReport]
    sha256: str


def ingest(file: str | bytes, tags: TagReading | None = None) -> Ingested:
    """A document as uploaded (base64 text, or downloaded bytes) made ready for a template (`prepare`)."""
    from signsvc.pdf import images, kinds

    data = file if isinstance(file, bytes) else decode(file)
    kind = kinds.sniff(data)
    if kind not in IMAGES and kind != "pdf":
        return Ingested(kind, data=data)
    with _engine_errors():
        pdf = images.image_to_pdf(data) if kind in IMAGES else data
    return Ingested(kind, prepare(pdf, tags))


def prepare(pdf: bytes, tags: TagReading | None = None, image_pages: int | None = None) -> PreparedPdf:
    """The PDF with its hash, pages, form fields and page images (with their hashes); with `tags`, its text tags,
    and when they are to be removed, the PDF and its images without them. `image_pages`: only so many images and
    texts, of the first pages (the others' texts are empty: `page_images` makes both later); None: every page's."""
    from signsvc.pdf import forms, previews, text_tags

    with _engine_errors():
        # First, and with the bound of rendering: it names a PDF without pages, and too many, before any page work.
        info = forms.inspect_pdf(pdf, max_pages=previews.MAX_PAGES)
        found = text_tags.find_tags(pdf) if tags else []
        if found and tags and tags.remove:
            pdf = text_tags.remove_tags(pdf, found)
        count = len(info["pages"])
        shown = range(count if image_pages is None else min(image_pages, count))
        pictures = previews.render_pages(pdf, pages=shown)
        texts = previews.page_texts(pdf, pages=shown) + [""] * (count - len(shown))
    pages: list[PageSize] = [
        {"width": page["width"], "height": page["height"], "text": text}
        for page, text in zip(info["pages"], texts, strict=True)
    ]
    return PreparedPdf(
        Hashed.of(pdf),
        pages,
        info["fields"],
        [Hashed.of(p) for p in pictures],
        previews.EXTENSION,
        previews.CONTENT_TYPE,
        found,
    )


def render_html(
    html: str,
    page_size: str,
    header: str | None,
    footer: str | None,
    resources: dict[str, tuple[bytes, str] | None],
    wanting: bool,
    max_pages: int,
    seconds: float,
    image_pages: int | None = None,
) -> RenderedHtml:
    """HTML rendered to PDF (`signsvc.pdf.html_render` says how, and what the arguments are), prepared for a
    template with its field tags (`image_pages`: as `prepare` takes it)."""
    from signsvc.pdf import html_render

    started = time.monotonic()
    with _engine_errors():
        rendering = html_render.render(
            html,
            page_size=page_size,
            header=header,
            footer=footer,
            resources=resources,
            wanting=wanting,
            max_pages=max_pages,
            seconds=seconds,
        )
    took = time.monotonic() - started
    if rendering.pdf is None:
        return RenderedHtml(None, [], rendering.wanted, took)
    return RenderedHtml(prepare(rendering.pdf, image_pages=image_pages), rendering.tags, [], took)


def page_images(pdf: bytes, pages: list[int]) -> PageImages:
    """The pictures and texts of these pages (0-based) of a PDF `prepare` took, as it makes them."""
    from signsvc.pdf import previews

    with _engine_errors():
        pictures = previews.render_pages(pdf, pages=pages)
        texts = previews.page_texts(pdf, pages=pages)
    return PageImages([Hashed.of(p) for p in pictures], previews.EXTENSION, previews.CONTENT_TYPE, texts)


def find_text_tags(pdf: bytes) -> list[TextTag]:
    """The `{{...}}` text tags of a PDF."""
    from signsvc.pdf import text_tags

    with _engine_errors():
        return text_tags.find_tags(pdf)


def remove_text_tags(pdf: bytes) -> Hashed:
    """The PDF without its text tags (those it can remove: `signsvc.pdf.text_tags`)."""
    from signsvc.pdf import text_tags

    with _engine_errors():
        return Hashed.of(text_tags.remove_tags(pdf))


def merge_pdfs(documents: list[bytes]) -> Hashed:
    """One PDF of all the documents."""
    from signsvc.pdf import merge

    with _engine_errors():
        return Hashed.of(merge.merge_pdfs(documents))


def merge_base64(files: list[str]) -> str:
    """The merge tool: base64 PDFs in, one base64 PDF of all their pages out.

    Raises EngineError naming the first file (`files[i]`) that is not base64, not a PDF or unreadable.
    """
    from signsvc.pdf import kinds, merge

    documents = []
    for index, text in enumerate(files):
        try:
            data = decode(text)
        except NotBase64 as exc:
            raise EngineError(f"files[{index}] is not valid base64: {exc}") from None
        if kinds.sniff(data) != "pdf":
            raise EngineError(f"files[{index}] is not a PDF")
        documents.append(data)
    with _engine_errors():
        merged = merge.merge_pdfs(documents, names=[f"files[{index}]" for index in range(len(files))])
    return base64.b64encode(merged).decode()


def attachment(file: str | bytes, images_only: bool) -> Attachment:
    """A signature, image or file value as uploaded (base64 text or downloaded bytes).

    Raises NotBase64; EngineError for an executable, or, when `images_only`, for anything but a PNG,
    JPEG, WebP or GIF that can be drawn into a PDF.
    """
    from signsvc.pdf import images, kinds

    data = file if isinstance(file, bytes) else decode(file)
    if not data:
        raise EngineError("The file is empty")
    if label := next((label for magic, label in _EXECUTABLES if data.startswith(magic)), None):
        raise EngineError(f"File type '{label}' is not allowed")
    kind = kinds.sniff(data)
    if images_only:
        if kind not in ATTACHMENT_IMAGES:
            raise EngineError("The file is not an image: send a PNG, JPEG, WebP or GIF")
        with _engine_errors():
            images.image_to_pdf(data)  # proves now that completion will be able to draw it
    return Attachment(data, kind, _sha256(data))


def typed_signature(text: str, font_dir: str | None = None) -> Hashed:
    """A PNG of the text in a handwriting-like font."""
    from signsvc.pdf import typed_signature as engine

    with _engine_errors():
        return Hashed.of(engine.render_typed_signature(text, font_dir))


def qr_code(text: str) -> str:
    """The text as a QR code, an SVG data URI (`signsvc.pdf.qr_codes`)."""
    from signsvc.pdf import qr_codes

    return qr_codes.svg_data_uri(text)


def audit_log(log: dict[str, Any], font_dir: str | None = None) -> Hashed:
    """The audit log PDF of a submission; `signsvc.pdf.audit_log` documents `log`."""
    from signsvc.pdf import audit_log as engine

    with _engine_errors():
        return Hashed.of(engine.render(log, font_dir))


def consent_certificate(data: dict[str, Any], font_dir: str | None = None) -> Hashed:
    """The consent certificate PDF of a consent; `signsvc.pdf.consent_certificate` documents `data`."""
    from signsvc.pdf import consent_certificate as engine

    with _engine_errors():
        return Hashed.of(engine.render(data, font_dir))


def fill_pdf(
    pdf: bytes,
    document_uuid: str,
    fields: list[dict[str, Any]],
    values: dict[str, object],
    files: dict[str, bytes],
    *,
    filenames: dict[str, str] | None = None,
    stamp: dict[str, Any] | None = None,
    font_dir: str | None = None,
    footer: str | None = None,
    captions: dict[str, list[str]] | None = None,
    info: dict[str, str] | None = None,
) -> Hashed:
    """The document with the values drawn in and its form flattened (`signsvc.pdf.fill`)."""
    from signsvc.pdf import fill

    with _engine_errors():
        return Hashed.of(
            fill.fill_pdf(
                pdf,
                document_uuid,
                fields,
                values,
                files,
                filenames=filenames,
                stamp=stamp,
                font_dir=font_dir,
                footer=footer,
                captions=captions,
                info=info,
            )
        )


def seal_pdf(
    pdf: bytes,
    chain: SigningChain,
    reason: str,
    name: str | None,
    signing_time: datetime,
    tsa_url: str | None = None,
    crls: tuple[bytes, ...] = (),
    ocsps: tuple[bytes, ...] = (),
) -> Sealed:
    """The PDF with the service's certification signature (`signsvc.pdf.seal`): with revocation information
    (`crls`, `ocsps`) a DSS in the signed revision (B-LT). With a timestamp server, the certificates of its
    timestamp come back (`timestamp_certificates`), for the revocation information of the document timestamp
    that `archive_timestamp` adds next (B-LTA).

    Raises EngineError for a PDF that can't be signed, ConnectionError when the timestamp server fails.
    """
    from signsvc.pdf import long_term, seal

    with _engine_errors():
        signed = seal.sign(
            pdf,
            chain.pems(),
            reason=reason,
            name=name,
            signing_time=signing_time,
            tsa_url=tsa_url,
            crls=crls,
            ocsps=ocsps,
        )
        stampers = long_term.timestamp_certificate_pems(signed) if tsa_url else ()
    level = "B-LT" if crls or ocsps else "B-T" if tsa_url else "B-B"
    return Sealed(signed, _sha256(signed), level, None, stampers)


def archive_timestamp(pdf: bytes, tsa_url: str, crls: tuple[bytes, ...] = ()) -> Sealed:
    """The file with a DSS update (`crls`, for the timestamp authority's chain, and the certificates of its
    timestamps) and a document timestamp over it: B-LTA, and how a B-LTA file's archive timestamp is renewed.
    The certificates of its timestamps come back, the new one's included: verify trusts the authorities the
    service stamped with. Raises ConnectionError when the timestamp server fails."""
    from signsvc.pdf import long_term

    with _engine_errors():
        stamped = long_term.archive_timestamp(pdf, tsa_url, crls)
        expires_at = long_term.last_timestamp_expiry(stamped)
        stampers = long_term.timestamp_certificate_pems(stamped)
    return Sealed(stamped, _sha256(stamped), "B-LTA", expires_at, stampers)


def timestamp_state(pdf: bytes) -> tuple[tuple[str, ...], datetime | None]:
    """The certificates (PEM) of every timestamp in a signed file, and when the certificate of its last document
    timestamp expires (None: it has none)."""
    from signsvc.pdf import long_term

    with _engine_errors():
        return long_term.timestamp_certificate_pems(pdf), long_term.last_timestamp_expiry(pdf)


def issue_crl(ca_key_pem: str, ca_cert_pem: str, now: datetime, valid_for: timedelta) -> bytes:
    """A CRL (DER) from a generated chain's root CA, revoking nothing, valid from `now` for `valid_for`."""
    from signsvc.pdf import certificates

    with _engine_errors():
        return certificates.issue_crl(ca_key_pem, ca_cert_pem, now=now, valid_for=valid_for)


def verify_pdf(pdf: bytes, trusted_pems: list[str], now: datetime, timestamp_pems: tuple[str, ...] = ()) -> Verified:
    """A report per signature in the PDF (`signsvc.pdf.verify`, validating at `now` what no timestamp dates),
    with the file's hash to look up."""
    from signsvc.pdf import verify

    with _engine_errors():
        reports = verify.verify(pdf, trusted_pems, now, timestamp_pems)
    return Verified([SignatureReport(**report) for report in reports], _sha256(pdf))


def verify_base64(file: str, trusted_pems: list[str], now: datetime, timestamp_pems: tuple[str, ...] = ()) -> Verified:
    """The verify tool's input (base64 text) checked as `verify_pdf` does."""
    try:
        data = decode(file)
    except NotBase64 as exc:
        raise EngineError(f"file is not valid base64: {exc}") from None
    return verify_pdf(data, trusted_pems, now, timestamp_pems)


def generate_signing_chain(
    common_name: str, organization: str, now: datetime, crl_url: str | None = None
) -> tuple[SigningChain, str]:
    """A new signing key and certificate chain, and the root CA's key (PEM); the leaf names its CRL under
    `crl_url`."""
    from signsvc.pdf import certificates

    with _engine_errors():
        generated = certificates.generate(common_name, organization, now=now, crl_url=crl_url)
    return replace(_chain(generated), issues_crl=True), generated["ca_key_pem"]


def load_signing_p12(data: bytes, password: str | None, now: datetime) -> SigningChain:
    """The chain inside a PKCS#12 file, its certificate fit to sign at `now`; EngineError says what is wrong."""
    from signsvc.pdf import certificates

    with _engine_errors():
        return _chain(certificates.load_p12(data, password, now=now))


def warm(chain: SigningChain, font_dir: str | None = None) -> None:
    """Loads the signing key and every font the documents are drawn with (the text font, its bold, the fallback
    fonts) into this worker's caches, as a server starts: no document waits for them later. The fonts a
    default install has are parsed already (by the forkserver, `signsvc.pdf.preload`); fonts in a configured
    font directory are parsed here."""
    from signsvc.pdf import font_cache, record_pages, seal

    with _engine_errors():
        seal.signer_for(chain.pems())
        for path in record_pages.every_font(font_dir):
            font_cache.load(path)


def decode(text: str) -> bytes:
    """Base64 text as clients send it, as bytes: after a `data:` prefix or not, broken into lines (MIME, PEM)
    or not, in the standard or the URL-safe alphabet, padded or not. Anything else (a space, a character
    of neither alphabet, padding before the end, a length no base64 has) raises NotBase64 saying so."""
    start = prefix.end() if (prefix := DATA_URI.match(text)) else 0
    if found := _NOT_BASE64.search(text, start):
        raise NotBase64(f"{found.group()!a} at character {found.start() + 1} is not a base64 character")
    data = text[start:].encode("ascii").translate(_STANDARD_ALPHABET, b"\r\n").rstrip(b"=")
    if b"=" in data:
        raise NotBase64("padding (=) comes before the end")
    if len(data) % 4 == 1:
        raise NotBase64(
            f"{len(data)} characters (line breaks and padding aside) cannot be base64: one is missing or one too many"
        )
    try:
        return base64.b64decode(data + b"=" * (-len(data) % 4), validate=True)
    except binascii.Error as exc:
        raise NotBase64(str(exc)) from None


def _chain(pems: dict[str, Any]) -> SigningChain:
    from signsvc.pdf import certificates

    return SigningChain(
        pems["key_pem"],
        pems["cert_pem"],
        tuple(pems["chain_pems"]),
        certificates.fingerprint(pems["cert_pem"]),
    )


@contextlib.contextmanager
def _engine_errors() -> Iterator[None]:
    """Engines raise PdfError for an input they can't use: the caller hears it as EngineError."""
    from signsvc.pdf.errors import PdfError

    try:
        yield
    except PdfError as exc:
        raise EngineError(str(exc)) from None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
