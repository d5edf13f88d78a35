"""PDFs signed at each PAdES level, made with pyHanko's own signer, DSS helper and document timestamper:
a test CA whose signing certificate names a CRL distribution point, a CRL the CA issued, and the `tsa`
fixture's stamper for signature and document timestamps."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import timedelta

from asn1crypto import crl as asn1_crl
from asn1crypto import keys as asn1_keys
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from pyhanko.pdf_utils import generic
from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
from pyhanko.sign import fields, signers
from pyhanko.sign.timestamps import TimeStamper
from pyhanko.sign.validation.dss import DocumentSecurityStore
from pyhanko_certvalidator.registry import SimpleCertificateStore

from tests.support import pkcs12_files as files
from tests.support.documents import pdf
from tests.support.seals import NOW

CRL_URL = "http://127.0.0.1:9/acme.crl"  # named, never fetched: verification is offline


@dataclass(frozen=True)
class TestCa:
    leaf: files.Issued
    root: files.Issued
    crl: asn1_crl.CertificateList

    def pems(self) -> list[str]:
        """The certificates as the service trusts its own: leaf and root."""
        return [_pem(self.leaf), _pem(self.root)]

    def chain(self) -> dict[str, object]:
        """The signing chain in `signsvc.pdf.certificates`' shape, to seal with as the service does."""
        key_pem = self.leaf.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()
        return {"key_pem": key_pem, "cert_pem": _pem(self.leaf), "chain_pems": [_pem(self.root)]}


def test_ca(root_key: int = 3, leaf_key: int = 4, crl_url: str | None = CRL_URL) -> TestCa:
    """A root and a signing certificate that names `crl_url` as its CRL distribution point, and the root's
    CRL (issued an hour before NOW, next update 30 days later, nothing revoked)."""
    root = files.issue("Acme Test Root", files.key(root_key), None, ca=True)
    points = (
        [
            x509.CRLDistributionPoints(
                [x509.DistributionPoint([x509.UniformResourceIdentifier(crl_url)], None, None, None)]
            )
        ]
        if crl_url
        else []
    )
    leaf = files.issue("Acme Test Signer", files.key(leaf_key), root, files.SIGNING_USAGE, *points)
    crl = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(root.certificate.subject)
        .last_update(NOW - timedelta(hours=1))
        .next_update(NOW + timedelta(days=30))
        .add_extension(x509.CRLNumber(1), critical=False)
        .sign(root.key, hashes.SHA256())
    )
    return TestCa(leaf, root, asn1_crl.CertificateList.load(crl.public_bytes(serialization.Encoding.DER)))


def signer(ca: TestCa) -> signers.SimpleSigner:
    return signers.SimpleSigner(
        signing_cert=_asn1(ca.leaf),
        signing_key=asn1_keys.PrivateKeyInfo.load(
            ca.leaf.key.private_bytes(
                serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        ),
        cert_registry=SimpleCertificateStore.from_certs([_asn1(ca.root)]),
    )


def signed(
    ca: TestCa, stamper: TimeStamper | None = None, *, pades: bool = True, original: bytes | None = None
) -> bytes:
    """A PAdES approval signature (B-B), with a signature timestamp from `stamper` (B-T)."""
    subfilter = fields.SigSeedSubFilter.PADES if pades else fields.SigSeedSubFilter.ADOBE_PKCS7_DETACHED
    meta = signers.PdfSignatureMetadata(field_name="Signature1", subfilter=subfilter, md_algorithm="sha256")
    writer = IncrementalPdfFileWriter(io.BytesIO(original or pdf()))
    out: io.BytesIO = signers.PdfSigner(meta, signer(ca), timestamper=stamper).sign_pdf(writer)
    return out.getvalue()


def with_dss(data: bytes, ca: TestCa, *, crls: bool = True) -> bytes:
    """`data` with a DSS holding the chain and (unless `crls` is False) the CA's CRL, in a new revision."""
    out = io.BytesIO(data)
    DocumentSecurityStore.add_dss(
        out, None, certs=[_asn1(ca.leaf), _asn1(ca.root)], crls=[ca.crl] if crls else [], force_write=True
    )
    return out.getvalue()


def with_document_timestamp(data: bytes, stamper: TimeStamper) -> bytes:
    """`data` with a document timestamp over everything it holds, in a new revision."""
    out: io.BytesIO = signers.PdfTimeStamper(stamper).timestamp_pdf(
        IncrementalPdfFileWriter(io.BytesIO(data)), "sha256"
    )
    return out.getvalue()


def edited(data: bytes, change) -> bytes:
    writer = IncrementalPdfFileWriter(io.BytesIO(data))
    change(writer)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def retitle(writer: IncrementalPdfFileWriter) -> None:
    info = writer.trailer["/Info"].get_object()
    info[generic.NameObject("/Title")] = generic.TextStringObject("Changed")
    writer.update_container(info)


def certificate(issued: files.Issued) -> asn1_x509.Certificate:
    """The certificate as pyHanko takes it."""
    return _asn1(issued)


def _asn1(issued: files.Issued) -> asn1_x509.Certificate:
    return asn1_x509.Certificate.load(issued.certificate.public_bytes(serialization.Encoding.DER))


def _pem(issued: files.Issued) -> str:
    return issued.certificate.public_bytes(serialization.Encoding.PEM).decode()


def p12(ca: TestCa, password: str = files.PASSWORD) -> bytes:
    """The test CA's signing certificate as a PKCS#12 file, to make the service sign (and trust) with it."""
    return files.modern([ca.leaf, ca.root], password)
