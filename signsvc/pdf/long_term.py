"""What keeps a signed PDF verifiable for years (PAdES B-LT and B-LTA): a Document Security Store (DSS) with the
certificates and revocation information a validator needs, and document timestamps over it.

The seal writes the DSS into the very revision its certification signature covers (before signing), so the
signature still covers the entire file. A document timestamp is an incremental update after it: it first adds
what its own validation needs (the timestamp authority's certificates, and revocation information for them when
given) to the DSS, in the revision the timestamp covers, then the timestamp. Renewing the archive timestamp is
the same step again, before the last timestamp authority's certificate expires. Runs in a pool worker
(pyHanko's sync API runs `asyncio.run`).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import datetime

from asn1crypto import crl as asn1_crl
from asn1crypto import ocsp as asn1_ocsp
from asn1crypto import pem
from asn1crypto import x509 as asn1_x509
from pyhanko.pdf_utils import misc
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.pdf_utils.writer import BasePdfFileWriter
from pyhanko.sign import signers
from pyhanko.sign.general import SigningError
from pyhanko.sign.timestamps import HTTPTimeStamper
from pyhanko.sign.validation import DocumentSecurityStore
from pyhanko.sign.validation.generic_cms import extract_tst_data_iter

from signsvc.pdf import reading
from signsvc.pdf.errors import PdfError

ARCHIVE_FIELD = "signsvc-archive"  # document timestamps are fields signsvc-archive-1, -2, ...
TSA_TIMEOUT = 10  # seconds
# Hex digits for a document timestamp token: the TSA's signature and certificates (a few KB at most). Given, so
# that pyHanko does not ask the server for a dummy token first.
TIMESTAMP_RESERVED = 16384


def add_dss(
    writer: BasePdfFileWriter,
    certificates: Sequence[asn1_x509.Certificate],
    crls: Sequence[bytes] = (),
    ocsps: Sequence[bytes] = (),
) -> None:
    """Adds (or extends) the DSS in the revision the writer is making, with no VRI entry (the signature it would
    name does not exist yet)."""
    DocumentSecurityStore.supply_dss_in_writer(
        writer,
        None,
        certs=list(certificates),
        crls=[asn1_crl.CertificateList.load(crl) for crl in crls],
        ocsps=[asn1_ocsp.OCSPResponse.load(ocsp) for ocsp in ocsps],
    )


def archive_timestamp(pdf: bytes, tsa_url: str, crls: Sequence[bytes] = ()) -> bytes:
    """`pdf` with a DSS update (the certificates of every timestamp in the file, `crls`) and a document timestamp
    over it, in one incremental update. Raises ConnectionError when the timestamp server fails, PdfError for a
    file that can't be updated."""
    try:
        writer = IncrementalPdfFileWriter(io.BytesIO(pdf), strict=False)
        add_dss(writer, timestamp_certificates(writer.prev), crls)
        field = f"{ARCHIVE_FIELD}-{len(writer.prev.embedded_timestamp_signatures) + 1}"
        stamper = signers.PdfTimeStamper(HTTPTimeStamper(tsa_url, timeout=TSA_TIMEOUT), field_name=field)
        output: io.BytesIO = stamper.timestamp_pdf(writer, "sha256", bytes_reserved=TIMESTAMP_RESERVED)
    except OSError as error:  # pyHanko's TimestampRequestError; a builtin error crosses the pool boundary
        raise ConnectionError(f"The timestamp server {tsa_url} failed: {error}") from None
    except (SigningError, misc.PdfError) as error:
        raise PdfError(reading.DAMAGED) from error
    return output.getvalue()


def timestamp_certificates(reader: PdfFileReader) -> list[asn1_x509.Certificate]:
    """The certificates inside every timestamp token of the file: the signatures' own timestamps and the
    document timestamps."""
    found: list[asn1_x509.Certificate] = []
    for signature in reader.embedded_signatures:
        tokens = (
            [signature.signed_data]
            if signature.sig_object_type == "/DocTimeStamp"
            else list(extract_tst_data_iter(signature.signer_info, signed=False))
        )
        for token in tokens:
            found.extend(c.chosen for c in token["certificates"] if c.name == "certificate")
    return found


def timestamp_certificate_pems(pdf: bytes) -> tuple[str, ...]:
    """`timestamp_certificates` of a file, as PEM texts, each once."""
    reader = PdfFileReader(io.BytesIO(pdf), strict=False)
    ders = dict.fromkeys(certificate.dump() for certificate in timestamp_certificates(reader))
    return tuple(pem.armor("CERTIFICATE", der).decode() for der in ders)


def last_timestamp_expiry(pdf: bytes) -> datetime | None:
    """When the certificate of the file's last document timestamp expires (None: no document timestamp): the
    archive timestamp must be renewed before then."""
    reader = PdfFileReader(io.BytesIO(pdf), strict=False)
    if not (stamps := reader.embedded_timestamp_signatures):
        return None
    expiry: datetime = stamps[-1].signer_cert.not_valid_after
    return expiry
