"""What the signatures inside a PDF say: intact, valid, trusted by the service, covering the whole file,
and how long they can be shown valid (`pades_levels`).

"Issued by the service" needs all four of: the signed bytes are unchanged (intact), the signature
checks out against its certificate (valid), that certificate is one of the service's (its SHA-256, so
certificates kept from before a key rotation still count), and the signature covers the entire file, or
is the service's certification signature followed only by DSS and document-timestamp updates
(`archival_updates`). Coverage matters on its own: pyHanko calls a later metadata-only update harmless,
but the file is then no longer the one the service issued.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from asn1crypto import cms
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils.crypt import AuthStatus
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import (
    EmbeddedPdfSignature,
    async_validate_detached_cms,
    validate_pdf_signature,
    validate_pdf_timestamp,
)
from pyhanko.sign.validation.status import SignatureCoverageLevel
from pyhanko_certvalidator import ValidationContext

from signsvc.pdf import archival_updates, certificates, kinds, pades_levels, reading
from signsvc.pdf.errors import PdfError

COVERAGE = {
    SignatureCoverageLevel.ENTIRE_FILE: "entire_file",
    SignatureCoverageLevel.ENTIRE_REVISION: "entire_revision",
}  # anything less is "partial"
_CONTAINER = re.compile(rb"<([0-9A-Fa-f]{1024,})>")  # a signature's /Contents: a CMS container in hex
_DOCMDP = re.compile(rb"/TransformMethod\s*/DocMDP")

# A signature by a certificate the service doesn't trust is an answer, not an error, yet these log it
# with a full ERROR traceback; damaged files make the reader warn about every repair; a later edit after a
# certification signature is logged as an error by the modification analysis, though it is an answer too.
for _name in ("pyhanko.sign.validation", "pyhanko.sign.diff_analysis", "pyhanko_certvalidator", "pyhanko.pdf_utils"):
    logging.getLogger(_name).setLevel(logging.CRITICAL)


MAX_SIGNATURES = 50
TOO_MANY_SIGNATURES = f"The file holds more than {MAX_SIGNATURES} signatures; verify looks at {MAX_SIGNATURES} at most"
_DATED_COVERAGE = (SignatureCoverageLevel.ENTIRE_REVISION, SignatureCoverageLevel.ENTIRE_FILE)


def verify(
    pdf: bytes, trusted_pems: list[str], now: datetime, timestamp_pems: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """One report per signature, in signing order; [] when there is none.

    `trusted_pems` are the service's certificates in PEM, current and past, signing certificates as
    well as their CAs: a signature is trusted when its chain leads to one of them, and issued by the
    service only when its signing certificate is one of them. `timestamp_pems` are the timestamp authorities'
    certificates the service stamped with: trusted for timestamps only. `now` (aware, the service clock's) is when
    a signature that no trusted timestamp dates is validated. Raises PdfError for a file that is not a readable
    PDF, that needs a password to open, or that holds more than MAX_SIGNATURES signatures.
    """
    roots = [asn1_x509.Certificate.load(certificates.der(pem)) for pem in trusted_pems]
    stamp_roots = [*roots, *(asn1_x509.Certificate.load(certificates.der(pem)) for pem in timestamp_pems)]
    ours = {certificates.fingerprint(pem) for pem in trusted_pems}
    try:
        embedded = _signatures(pdf)
    except PdfError as error:
        # A file damaged past reading may still hold a signature, which then tells that it was changed.
        if error.args[0] == reading.ENCRYPTED or not (reports := _found_in_bytes(pdf, roots, ours, now)):
            raise
        return reports
    if len(embedded) > MAX_SIGNATURES:
        raise PdfError(TOO_MANY_SIGNATURES)
    judged = [_report(signature, roots, stamp_roots, ours, now) for signature in embedded]
    return _with_long_term(embedded, judged, roots, stamp_roots, now) or _found_in_bytes(pdf, roots, ours, now)


def _with_long_term(
    embedded: list[EmbeddedPdfSignature],
    judged: list[tuple[dict[str, Any], Any]],
    roots: list[asn1_x509.Certificate],
    stamp_roots: list[asn1_x509.Certificate],
    now: datetime,
) -> list[dict[str, Any]]:
    if not embedded:
        return []
    latest = pades_levels.dss(embedded[0].reader)  # read once for every signature
    checked: dict[tuple[Any, ...], bool] = {}
    timestamps = []
    for signature, (report, status) in zip(embedded, judged, strict=True):
        # Only a timestamp over its whole revision dates what came before it.
        if (
            report["type"] == "timestamp"
            and report["intact"]
            and report["valid"]
            and signature.coverage in _DATED_COVERAGE
        ):
            with contextlib.suppress(Exception):  # a timestamp whose revision can't be read proves nothing here
                timestamps.append(pades_levels.document_timestamp(signature, status.timestamp, bool(status.trusted)))
    context = _LongTermContext(timestamps, latest, roots, stamp_roots, now, checked)
    return [
        {**report, **_long_term(signature, report, status, context)}
        for signature, (report, status) in zip(embedded, judged, strict=True)
    ]


@dataclass(frozen=True)
class _LongTermContext:
    timestamps: list[pades_levels.DocumentTimestamp]
    latest: pades_levels.Evidence
    roots: list[asn1_x509.Certificate]
    stamp_roots: list[asn1_x509.Certificate]
    now: datetime
    checked: dict[tuple[Any, ...], bool]


def _long_term(
    signature: EmbeddedPdfSignature, report: dict[str, Any], status: Any, at: _LongTermContext
) -> dict[str, Any]:
    """The long-term fields; those of a failing report (no level, nothing judged) when the signature could not
    be evaluated or its validation data can't be read."""
    try:
        if status is not None and report["type"] == "timestamp":
            return pades_levels.assess_timestamp(
                signature, status.signing_cert, at.latest, at.stamp_roots, status.timestamp, at.checked
            )
        if status is not None:
            return pades_levels.assess(signature, status, at.timestamps, at.latest, at.roots, at.now, at.checked)
    except Exception:  # pyHanko's and asn1crypto's errors on a DSS or a container damaged in its own way
        pass
    return {key: _failing(None)[key] for key in ("pades_level", "chain_validates_offline", "missing_for_long_term")}


def _signatures(pdf: bytes) -> list[EmbeddedPdfSignature]:
    if kinds.sniff(pdf) != "pdf":
        raise PdfError(reading.NOT_PDF)
    try:
        reader = PdfFileReader(io.BytesIO(pdf), strict=False)
        # The empty user password opens owner-password-only files, as every viewer does.
        if reader.encrypted and reader.decrypt("").status == AuthStatus.FAILED:
            raise PdfError(reading.ENCRYPTED)
        signatures: list[EmbeddedPdfSignature] = reader.embedded_signatures
        return signatures
    except PdfError:
        raise
    except Exception as error:  # on a damaged file pyHanko raises its own errors and KeyError, ValueError...
        raise PdfError(reading.DAMAGED) from error


def _report(
    signature: EmbeddedPdfSignature,
    roots: list[asn1_x509.Certificate],
    stamp_roots: list[asn1_x509.Certificate],
    ours: set[str],
    now: datetime,
) -> tuple[dict[str, Any], Any]:
    """The signature's report, with pyHanko's status (None when the signature could not be evaluated). A
    timestamp's time is the signing time only when its authority is trusted (`stamp_roots`)."""
    report = _failing(signature.field_name)
    # Fresh contexts per signature: pyHanko releases a context's resources after each validation.
    context = ValidationContext(trust_roots=roots, allow_fetching=False, moment=now)
    stamp_context = ValidationContext(trust_roots=stamp_roots, allow_fetching=False, moment=now)
    try:
        report.update(type=_type(signature), reason=_text(signature, "/Reason"))
        status: Any
        if report["type"] == "timestamp":
            status = validate_pdf_timestamp(signature, validation_context=stamp_context)
            report.update(
                signing_time=_iso(status.timestamp), signing_time_source="timestamp", timestamp=_iso(status.timestamp)
            )
        else:
            status = validate_pdf_signature(
                signature,
                signer_validation_context=context,
                ts_validation_context=stamp_context,
                diff_policy=archival_updates.POLICY,
            )
            token = status.timestamp_validity
            stamped = _iso(token.timestamp) if token and token.intact and token.valid else None
            dated = stamped if token and token.trusted else None
            report.update(
                signing_time=dated or _iso(status.signer_reported_dt),
                signing_time_source="timestamp" if dated else "claimed",
                timestamp=stamped,
            )
        coverage = COVERAGE.get(signature.coverage, "partial") if signature.coverage is not None else "partial"
        report.update(
            _judged(status),
            coverage=coverage,
            signer_name=_text(signature, "/Name") or _common_name(status.signing_cert),
        )
    except Exception:  # a signature too broken to evaluate is reported as failing, not as a bad file
        return _failing(signature.field_name), None
    issued = _issued(report, ours) or _issued_then_archived(report, status, ours)
    return {**report, "issued_by_service": issued}, status


def _found_in_bytes(
    pdf: bytes, roots: list[asn1_x509.Certificate], ours: set[str], now: datetime
) -> list[dict[str, Any]]:
    """Reports on the signature containers in the bytes of a file whose structure no longer leads to them
    (a damaged cross-reference table, a renamed key). Each is checked as covering all of the file but
    itself, as the service's seal does, so any byte changed anywhere makes it not intact; the type is a
    guess from the bytes, and there is no field, reason or time to report."""
    kind = "certification" if _DOCMDP.search(pdf) else "approval"
    reports = []
    for match in _CONTAINER.finditer(pdf):
        try:
            signed_data = cms.ContentInfo.load(bytes.fromhex(match[1].decode()))["content"]
            status = asyncio.run(
                async_validate_detached_cms(
                    pdf[: match.start()] + pdf[match.end() :],
                    signed_data,
                    signer_validation_context=ValidationContext(trust_roots=roots, allow_fetching=False, moment=now),
                )
            )
        except Exception:  # hex that is not a signature container
            continue
        report = {**_failing(None), **_judged(status), "type": kind, "signer_name": _common_name(status.signing_cert)}
        report["coverage"] = "entire_file" if report["intact"] else "partial"
        reports.append({**report, "issued_by_service": _issued(report, ours)})
    return reports


def _failing(field: str | None) -> dict[str, Any]:
    return {
        "field": field,
        "signer_name": None,
        "reason": None,
        "signing_time": None,
        "signing_time_source": None,
        "timestamp": None,
        "type": "approval",
        "intact": False,
        "valid": False,
        "trusted": False,
        "coverage": "partial",
        "certificate_sha256": None,
        "issued_by_service": False,
        "pades_level": None,
        "chain_validates_offline": False,
        "missing_for_long_term": None,
    }


def _judged(status: Any) -> dict[str, Any]:
    return {
        "intact": bool(status.intact),
        "valid": bool(status.valid),
        "trusted": bool(status.trusted),
        "certificate_sha256": hashlib.sha256(status.signing_cert.dump()).hexdigest(),
    }


def _issued(report: dict[str, Any], ours: set[str]) -> bool:
    return bool(
        report["intact"]
        and report["valid"]
        and report["coverage"] == "entire_file"
        and report["certificate_sha256"] in ours
    )


def _issued_then_archived(report: dict[str, Any], status: Any, ours: set[str]) -> bool:
    """The service's certification signature over its revision, followed only by DSS and document-timestamp
    updates: what making a document B-LT or B-LTA appends."""
    return bool(
        report["type"] == "certification"
        and report["coverage"] == "entire_revision"
        and report["intact"]
        and report["valid"]
        and report["certificate_sha256"] in ours
        and archival_updates.only_archival(status)
    )


def _type(signature: EmbeddedPdfSignature) -> str:
    if signature.sig_object_type == "/DocTimeStamp":
        return "timestamp"
    references = signature.sig_object.get("/Reference") or []
    methods = {reference.get_object().get("/TransformMethod") for reference in references}
    return "certification" if "/DocMDP" in methods else "approval"


def _text(signature: EmbeddedPdfSignature, key: str) -> str | None:
    value = signature.sig_object.get(key)
    return str(value) if value is not None else None


def _common_name(certificate: asn1_x509.Certificate) -> str:
    name = certificate.subject.native.get("common_name")
    found = name[0] if isinstance(name, list) else name
    friendly: str = certificate.subject.human_friendly
    return str(found) if found else friendly


def _iso(moment: datetime | None) -> str | None:
    """ISO 8601 UTC with milliseconds and Z, the API's wire format."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
