"""The service's signing key and certificate chain as PEM text: generated per installation, or read from a PKCS#12.

A chain is `{"key_pem", "cert_pem", "chain_pems"}`: the private key (unencrypted PKCS#8), the signing
(leaf) certificate, and the certificates above it, issuer first and root last.

The generated chain is a root CA and a leaf, RSA-2048 with SHA-256. The root's private key is kept too
(`ca_key_pem`): it issues the CRL that the leaf's CRL distribution point names, so that every signed file can
carry the revocation information a long-term (PAdES B-LT) validation needs. A sub-CA would only add a
certificate to every signature.
RSA rather than EC P-256: every PDF validator accepts it, and with the key object kept a seal costs
the same with either (measured 15-26 ms RSA, 17-28 ms EC per document); the RSA pair takes ~0.2 s to
generate, once per installation.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from cryptography import x509
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

from signsvc.pdf import p12_diagnosis, signing_fitness
from signsvc.pdf.errors import PdfError

VALIDITY = timedelta(days=100 * 365 + 25)  # 100 years: the leaf never needs renewing
BACKDATE = timedelta(hours=1)  # tolerates a validator (or a TSA) whose clock runs a little behind ours


def generate(
    common_name: str = "signsvc", organization: str = "signsvc", *, now: datetime, crl_url: str | None = None
) -> dict[str, Any]:
    """A new root CA and a leaf certificate for signing documents, valid from `now` (aware) for 100 years, with
    the root's key (`ca_key_pem`). `crl_url` is where the leaf says its CRL is published; the URL's last part
    is the root's fingerprint (`{crl_url}/{sha256}.crl`)."""
    root_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    root_name = _name(f"{common_name} Root CA", organization)
    root = _certificate(root_name, root_name, root_key.public_key(), root_key, now, ca=True)
    leaf_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    leaf = _certificate(
        _name(common_name, organization),
        root_name,
        leaf_key.public_key(),
        root_key,
        now,
        ca=False,
        issuer_key=root_key.public_key(),
        crl_url=f"{crl_url}/{fingerprint(_pem(root))}.crl" if crl_url else None,
    )
    return {**_pems(leaf_key, leaf, [root]), "ca_key_pem": _key_pem(root_key)}


def issue_crl(ca_key_pem: str, ca_cert_pem: str, *, now: datetime, valid_for: timedelta) -> bytes:
    """A CRL (DER) of the CA, revoking nothing, valid from `now` for `valid_for`: what a validator needs to
    know that the leaf was not revoked. Its number is the issue time, so a later one is always greater."""
    key = serialization.load_pem_private_key(ca_key_pem.encode(), password=None)
    issuer = x509.load_pem_x509_certificate(ca_cert_pem.encode())
    if not isinstance(key, rsa.RSAPrivateKey):
        raise PdfError("The CA key of a generated chain is an RSA key")
    builder = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(issuer.subject)
        .last_update(now - BACKDATE)
        .next_update(now + valid_for)
        .add_extension(x509.CRLNumber(int(now.timestamp() * 1000)), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), critical=False)
    )
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


def load_p12(data: bytes, password: str | None, *, now: datetime) -> dict[str, Any]:
    """The chain inside a PKCS#12 file (`SIGNSVC_SIGNING_P12`), its certificates above the signing one ordered
    issuer first. Legacy files (RC2-40, 3DES, as older Windows and OpenSSL 1.x export them) load as modern
    ones do. Raises PdfError with one sentence saying what is wrong with the file or its certificate."""
    try:
        key, certificate, others = pkcs12.load_key_and_certificates(data, password.encode() if password else None)
    except (ValueError, TypeError, UnsupportedAlgorithm):  # OpenSSL's refusals, whatever their kind
        raise PdfError(p12_diagnosis.diagnose(data, password)) from None
    if key is None:
        raise PdfError("The PKCS#12 file holds no private key (export it with its private key)")
    if certificate is None:
        raise PdfError("The PKCS#12 file holds no certificate for its private key")
    if not isinstance(key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)):
        raise PdfError("The PKCS#12 key must be an RSA or EC key")
    if key.public_key() != certificate.public_key():
        raise PdfError("The PKCS#12 private key does not belong to its certificate")
    if unfit := signing_fitness.problem(certificate, now):
        raise PdfError(unfit)
    return _pems(key, certificate, _issuers_first(certificate, [c for c in others if c != certificate]))


def _issuers_first(leaf: x509.Certificate, others: list[x509.Certificate]) -> list[x509.Certificate]:
    """The certificates above `leaf` from its issuer up to the root, then any others in the file's order."""
    ordered, current, left = [], leaf, list(others)
    while issuer := next((c for c in left if c.subject == current.issuer and c != current), None):
        ordered.append(issuer)
        left.remove(issuer)
        current = issuer
    return ordered + left


def fingerprint(cert_pem: str) -> str:
    """The SHA-256 of the certificate's DER bytes, lower-case hex (as verify reports it)."""
    return hashlib.sha256(der(cert_pem)).hexdigest()


def der(cert_pem: str) -> bytes:
    """The certificate's DER bytes. Raises PdfError when the text is not a PEM certificate."""
    try:
        return x509.load_pem_x509_certificate(cert_pem.encode()).public_bytes(serialization.Encoding.DER)
    except ValueError:
        raise PdfError("The certificate is not a PEM certificate") from None


def _name(common_name: str, organization: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _certificate(
    subject: x509.Name,
    issuer: x509.Name,
    public_key: Any,
    signing_key: Any,
    now: datetime,
    *,
    ca: bool,
    issuer_key: Any = None,
    crl_url: str | None = None,
) -> x509.Certificate:
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(now + VALIDITY)
        .add_extension(x509.BasicConstraints(ca=ca, path_length=0 if ca else None), critical=True)
        .add_extension(_key_usage(ca), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public_key), critical=False)
    )
    if issuer_key is not None:
        builder = builder.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key), critical=False)
    if crl_url:
        point = x509.DistributionPoint([x509.UniformResourceIdentifier(crl_url)], None, None, None)
        builder = builder.add_extension(x509.CRLDistributionPoints([point]), critical=False)
    return builder.sign(signing_key, hashes.SHA256())


def _key_usage(ca: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=not ca,
        content_commitment=not ca,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=ca,
        crl_sign=ca,
        encipher_only=False,
        decipher_only=False,
    )


def _pems(key: Any, certificate: x509.Certificate, chain: list[x509.Certificate]) -> dict[str, Any]:
    return {"key_pem": _key_pem(key), "cert_pem": _pem(certificate), "chain_pems": [_pem(c) for c in chain]}


def _key_pem(key: Any) -> str:
    pem: bytes = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return pem.decode()


def _pem(certificate: x509.Certificate) -> str:
    return certificate.public_bytes(serialization.Encoding.PEM).decode()
