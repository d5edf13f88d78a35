"""Certificates and sealed PDFs as the seal tests and the verify tool tests build and tamper with them."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.x509.oid import NameOID

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
SIGNED_AT = datetime(2026, 1, 2, 9, 30, 15, tzinfo=UTC)


def self_signed(key: Any, common_name: str, *extensions: tuple[Any, bool]) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW - timedelta(days=400))
        .not_valid_after(NOW + timedelta(days=3650))
    )
    for extension, critical in extensions:
        builder = builder.add_extension(extension, critical=critical)
    return builder.sign(key, hashes.SHA256())


def pem_of(key: Any, certificate: x509.Certificate) -> dict[str, Any]:
    """A signing chain (`signsvc.pdf.certificates`' shape) of one certificate and its key."""
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    return {
        "key_pem": key_pem,
        "cert_pem": certificate.public_bytes(serialization.Encoding.PEM).decode(),
        "chain_pems": [],
    }


def signed_positions(data: bytes) -> list[int]:
    """Byte positions inside the signed ranges: a sample throughout, and every byte of the parts a reader
    needs to find the signature (its /ByteRange, the last cross-reference offset)."""
    byte_range = re.search(rb"/ByteRange \[\s*(\d+) (\d+) (\d+) (\d+)\s*\]", data)
    start, length, second, rest = map(int, byte_range.groups())
    assert (start, second + rest) == (0, len(data))
    startxref = data.rindex(b"startxref")
    return sorted(
        {*range(0, length, 37), *range(second, len(data), 11), *range(*byte_range.span()), *range(startxref, len(data))}
    )
