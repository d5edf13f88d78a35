"""Fixtures: a self-signed certificate for local HTTPS servers and a client context that trusts it; the
"remote" servers that documents and images are downloaded from in the tests.

Registered for every tier by tests/conftest.py (`pytest_plugins`).
"""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from dataclasses import dataclass

import pytest
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

OTHER_HOST = "127.0.0.2"  # a second loopback address: "another host" for redirects and private-address checks


@dataclass(frozen=True)
class Certificate:
    cert_pem: bytes
    key_pem: bytes


@pytest.fixture(scope="module")
def certificate() -> Certificate:
    """A self-signed certificate for localhost, 127.0.0.1 and 127.0.0.2."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "signsvc test server")])
    now = datetime.datetime.now(datetime.UTC)
    names = [x509.DNSName("localhost")] + [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ("127.0.0.1", OTHER_HOST)]
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return Certificate(cert.public_bytes(serialization.Encoding.PEM), key_pem)


@pytest.fixture
def client_ssl(certificate) -> ssl.SSLContext:
    return ssl.create_default_context(cadata=certificate.cert_pem.decode())


async def serve_https(app: web.Application, certificate: Certificate, tmp_path) -> tuple[web.AppRunner, int]:
    """Serves `app` over HTTPS on 127.0.0.1 with the test certificate: the runner (to clean up) and the port."""
    runner = web.AppRunner(app)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", 0, ssl_context=server_ssl(certificate, tmp_path)).start()
    return runner, runner.addresses[0][1]


def server_ssl(certificate: Certificate, tmp_path) -> ssl.SSLContext:
    (tmp_path / "cert.pem").write_bytes(certificate.cert_pem)
    (tmp_path / "key.pem").write_bytes(certificate.key_pem)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    return context
