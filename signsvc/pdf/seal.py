"""The service's digital signature on a result PDF: a PAdES certification signature over the whole file.

The signature is added as an incremental update, so the bytes before it stay as they were; DocMDP
NO_CHANGES tells every validator that any later change breaks it (besides DSS and document timestamp updates,
which PDF 2.0 allows). With a timestamp server (RFC 3161) the signature carries a timestamp token (PAdES B-T);
without one the signing time is the service's claim. Given revocation information (CRLs, OCSP responses) for the
chain, the revision the signature covers also holds a DSS with the chain and that information (B-LT, see
`long_term`).
pyHanko's sync API runs `asyncio.run`, so this runs in a pool worker, never on the server's loop.
"""

from __future__ import annotations

import functools
import io
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from asn1crypto import keys as asn1_keys
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from pyhanko.pdf_utils import misc
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign import fields, signers
from pyhanko.sign.general import SigningError
from pyhanko.sign.timestamps import HTTPTimeStamper
from pyhanko_certvalidator.registry import SimpleCertificateStore
from pyhanko_certvalidator.util import get_pyca_cryptography_hash

from signsvc.pdf import certificates, kinds, long_term, reading
from signsvc.pdf.errors import PdfError

FIELD = "signsvc"  # the invisible signature field the seal creates
TSA_TIMEOUT = 10  # seconds for the timestamp server to answer
# Room for the signature container, in hex digits (two per byte). Giving it skips pyHanko's sizing dry
# run; ours needs about 5,000. A timestamp token adds the TSA's signature and certificates.
RESERVED = 8192
RESERVED_TIMESTAMP = 16384


class Signer(signers.SimpleSigner):
    """pyHanko's in-memory signer, keeping the parsed key: stock SimpleSigner re-parses it for every raw
    signature, which costs ~45 ms per call for RSA. Built from a chain of PEM text (see certificates)."""

    def __init__(self, pems: dict[str, Any]) -> None:
        key = _key(pems["key_pem"])
        certificate = _asn1_certificate(pems["cert_pem"])
        der = key.private_bytes(
            serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        if x509.load_der_x509_certificate(certificate.dump()).public_key() != key.public_key():
            raise PdfError("The signing key does not belong to the signing certificate")
        chain = [_asn1_certificate(pem) for pem in pems.get("chain_pems", [])]
        super().__init__(
            signing_cert=certificate,
            signing_key=asn1_keys.PrivateKeyInfo.load(der),
            cert_registry=SimpleCertificateStore.from_certs(chain),
        )
        self.key = key
        # Certificates travel inside every signature: a long supplied chain needs more room than ours.
        self.certificates_size = sum(len(c.dump()) for c in [certificate, *chain])

    async def async_sign_raw(self, data: bytes, digest_algorithm: str, dry_run: bool = False) -> bytes:
        return self.sign_raw(data, digest_algorithm)

    def sign_raw(self, data: bytes, digest_algorithm: str) -> bytes:
        algorithm = get_pyca_cryptography_hash(digest_algorithm)
        if isinstance(self.key, rsa.RSAPrivateKey):
            return self.key.sign(data, padding.PKCS1v15(), algorithm)
        return self.key.sign(data, ec.ECDSA(algorithm))

    def reserved(self, timestamped: bool) -> int:
        """Hex digits to reserve for the signature container."""
        room = max(RESERVED, 2 * (self.certificates_size + 2048))
        return room + RESERVED_TIMESTAMP if timestamped else room


class _Certification(signers.PdfSigner):
    """A PdfSigner that signs at a given time: pyHanko otherwise takes the wall clock."""

    def __init__(
        self,
        meta: signers.PdfSignatureMetadata,
        signer: Signer,
        signing_time: datetime,
        timestamper: HTTPTimeStamper | None,
    ) -> None:
        super().__init__(meta, signer, timestamper=timestamper)
        self.signing_time = signing_time

    def init_signing_session(self, pdf_out: Any, existing_fields_only: bool = False) -> Any:
        session = super().init_signing_session(pdf_out, existing_fields_only)
        session.system_time = self.signing_time
        return session


def signer_for(pems: dict[str, Any]) -> Signer:
    """The Signer of a chain, parsed once per process (a worker warms it at start)."""
    return _signer(pems["key_pem"], pems["cert_pem"], tuple(pems.get("chain_pems", ())))


@functools.lru_cache(maxsize=4)  # the current chain, and a few more while a rotation settles
def _signer(key_pem: str, cert_pem: str, chain_pems: tuple[str, ...]) -> Signer:
    return Signer({"key_pem": key_pem, "cert_pem": cert_pem, "chain_pems": list(chain_pems)})


def sign(
    pdf: bytes,
    signer_pems: dict[str, Any],
    *,
    reason: str,
    name: str | None,
    signing_time: datetime,
    tsa_url: str | None = None,
    crls: Sequence[bytes] = (),
    ocsps: Sequence[bytes] = (),
) -> bytes:
    """`pdf` with the service's certification signature appended; `signing_time` naive means UTC. With `crls` or
    `ocsps` (DER), the signed revision carries a DSS with the signing chain and them.

    Raises PdfError for a PDF that can't be read or signed (encrypted, damaged, already certified), and
    ConnectionError when the timestamp server at `tsa_url` fails (worth retrying later).
    """
    signer = signer_for(signer_pems)
    if signing_time.tzinfo is None:
        signing_time = signing_time.replace(tzinfo=UTC)
    meta = signers.PdfSignatureMetadata(
        field_name=FIELD,
        certify=True,
        docmdp_permissions=fields.MDPPerm.NO_CHANGES,
        subfilter=fields.SigSeedSubFilter.PADES,
        md_algorithm="sha256",
        reason=reason,
        name=name,
    )
    timestamper = HTTPTimeStamper(tsa_url, timeout=TSA_TIMEOUT) if tsa_url else None
    writer = _writer(pdf)
    if crls or ocsps:
        long_term.add_dss(writer, [signer.signing_cert, *signer.cert_registry], crls, ocsps)
    try:
        output: io.BytesIO = _Certification(meta, signer, signing_time, timestamper).sign_pdf(
            writer, bytes_reserved=signer.reserved(timestamper is not None)
        )
    except SigningError as error:
        raise PdfError(f"The PDF can't be signed: {error}") from error
    except misc.PdfError as error:
        raise PdfError(reading.DAMAGED) from error
    except OSError as error:  # pyHanko's TimestampRequestError: no answer, or a refusal. A builtin error
        # crosses the pool boundary without the server process importing pyHanko to unpickle it.
        raise ConnectionError(f"The timestamp server {tsa_url} failed: {error}") from None
    return output.getvalue()


def _writer(pdf: bytes) -> IncrementalPdfFileWriter:
    if kinds.sniff(pdf) != "pdf":
        raise PdfError(reading.NOT_PDF)
    try:
        writer = IncrementalPdfFileWriter(io.BytesIO(pdf), strict=False)
    except Exception as error:  # pyHanko raises its own errors and KeyError, ValueError... on damaged files
        raise PdfError(reading.DAMAGED) from error
    if writer.prev.encrypted:
        raise PdfError(reading.ENCRYPTED)
    return writer


def _key(pem: str) -> rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey:
    try:
        key = serialization.load_pem_private_key(pem.encode(), password=None)
    except (ValueError, TypeError):
        raise PdfError("The signing key is not an unencrypted PEM private key") from None
    if not isinstance(key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
        raise PdfError("The signing key must be an RSA or EC key")
    return key


def _asn1_certificate(pem: str) -> asn1_x509.Certificate:
    return asn1_x509.Certificate.load(certificates.der(pem))
