"""PKCS#12 files as self-hosters bring them: a CA, an intermediate and a signing certificate, exported with
modern encryption (AES-256, PBKDF2), legacy 3DES (PBESv1, as older Windows exports), RC2-40 (OpenSSL 1.x's
default, through the `openssl pkcs12 -legacy` command), and broken in the ways they break."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from tests.support.seals import NOW
from tests.support.system import requires

OPENSSL = requires("openssl", package="openssl")
PASSWORD = "s3cret"
SIGNING_USAGE = x509.KeyUsage(True, True, False, False, False, False, False, False, False)
ENCIPHER_ONLY_USAGE = x509.KeyUsage(False, False, True, False, False, False, False, False, False)
TLS_SERVER_ONLY = x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH])


@dataclass(frozen=True)
class Issued:
    key: rsa.RSAPrivateKey
    certificate: x509.Certificate


def name(common_name: str) -> x509.Name:
    return x509.Name(
        [x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Acme"), x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    )


_KEYS: list[rsa.RSAPrivateKey] = []


def key(index: int) -> rsa.RSAPrivateKey:
    """RSA keys made once per test process: each takes a tenth of a second."""
    while len(_KEYS) <= index:
        _KEYS.append(rsa.generate_private_key(public_exponent=65537, key_size=2048))
    return _KEYS[index]


def issue(
    common_name: str,
    subject_key: rsa.RSAPrivateKey,
    issuer: Issued | None,
    *extensions: Any,
    ca: bool = False,
    valid: tuple[datetime, datetime] = (NOW - timedelta(days=30), NOW + timedelta(days=3650)),
) -> Issued:
    """A certificate for `subject_key`, signed by `issuer` (self-signed without one)."""
    builder = (
        x509.CertificateBuilder()
        .subject_name(name(common_name))
        .issuer_name(issuer.certificate.subject if issuer else name(common_name))
        .public_key(subject_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid[0])
        .not_valid_after(valid[1])
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(subject_key.public_key()), critical=False)
    )
    if issuer:
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer.key.public_key()), critical=False
        )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), True
        )
    for extension in extensions:
        builder = builder.add_extension(extension, critical=isinstance(extension, x509.KeyUsage))
    return Issued(subject_key, builder.sign((issuer or Issued(subject_key, None)).key, hashes.SHA256()))  # type: ignore[arg-type]


def acme_chain(*leaf_extensions: Any, valid: tuple[datetime, datetime] | None = None) -> list[Issued]:
    """The signing certificate, its intermediate CA and the root, in that order."""
    root = issue("Acme Root CA", key(0), None, ca=True)
    intermediate = issue("Acme Issuing CA", key(1), root, ca=True)
    extensions = leaf_extensions or (SIGNING_USAGE,)
    leaf = issue("Acme Signing", key(2), intermediate, *extensions, **({"valid": valid} if valid else {}))
    return [leaf, intermediate, root]


def modern(chain: list[Issued], password: str = PASSWORD) -> bytes:
    """AES-256-CBC with PBKDF2 and a SHA-256 MAC: what current OpenSSL and Windows export."""
    leaf, *above = chain
    encryption = serialization.BestAvailableEncryption(password.encode())
    return pkcs12.serialize_key_and_certificates(
        b"acme", leaf.key, leaf.certificate, [c.certificate for c in above], encryption
    )


def triple_des(chain: list[Issued], password: str = PASSWORD) -> bytes:
    """PBES1 with SHA-1 and 3DES for the key and the certificates, a SHA-1 MAC: older Windows exports."""
    leaf, *above = chain
    encryption = (
        serialization.PrivateFormat.PKCS12.encryption_builder()
        .kdf_rounds(2048)
        .key_cert_algorithm(pkcs12.PBES.PBESv1SHA1And3KeyTripleDESCBC)
        .hmac_hash(hashes.SHA1())
        .build(password.encode())
    )
    return pkcs12.serialize_key_and_certificates(
        b"acme", leaf.key, leaf.certificate, [c.certificate for c in above], encryption
    )


def rc2(chain: list[Issued], folder: Path, password: str = PASSWORD) -> bytes:
    """RC2-40 for the certificates and 3DES for the key: OpenSSL 1.x's default, made by OpenSSL's own
    `pkcs12 -export -legacy`."""
    leaf, *above = chain
    key_file, cert_file, others_file, out = (folder / n for n in ("k.pem", "c.pem", "ca.pem", "legacy.p12"))
    key_file.write_bytes(
        leaf.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    cert_file.write_bytes(leaf.certificate.public_bytes(serialization.Encoding.PEM))
    others_file.write_bytes(b"".join(c.certificate.public_bytes(serialization.Encoding.PEM) for c in above))
    openssl = shutil.which("openssl") or "openssl"
    command = [openssl, "pkcs12", "-export", "-legacy", "-inkey", str(key_file), "-in", str(cert_file)]
    command += ["-certfile", str(others_file), "-out", str(out), "-passout", f"pass:{password}"]
    subprocess.run(command, check=True, capture_output=True)
    return out.read_bytes()


def certificates_only(chain: list[Issued]) -> bytes:
    """A file with the certificates and no private key, as an export without the key makes it."""
    return pkcs12.serialize_key_and_certificates(
        None, None, None, [c.certificate for c in chain], serialization.BestAvailableEncryption(PASSWORD.encode())
    )


def broken_mac(data: bytes) -> bytes:
    """The file with the last byte of its MAC changed (the MAC digest sits near the end, before the salt)."""
    from asn1crypto import pkcs12 as asn1_pkcs12

    pfx = asn1_pkcs12.Pfx.load(data)
    digest = bytearray(pfx["mac_data"]["mac"]["digest"].native)
    digest[-1] ^= 0xFF
    pfx["mac_data"]["mac"]["digest"] = bytes(digest)
    return pfx.dump(force=True)
