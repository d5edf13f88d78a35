"""A timestamp authority (RFC 3161) for tests and laptops: pyHanko's DummyTimeStamper (which builds real, signed
timestamp tokens with asn1crypto) behind an aiohttp app. Not for production: its key sits in a plain file.

Its certificate and key are kept in a directory (made on the first start), so a validator that trusts the
certificate keeps trusting it across restarts. `python run.py tsa --directory DIR` serves it; point
`SIGNSVC_TSA_URL` at the address it prints. The certificate is self-signed (a trust root of its own), so there
is no revocation information to carry for it.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from aiohttp import web
from asn1crypto import keys as asn1_keys
from asn1crypto import tsp
from asn1crypto import x509 as asn1_x509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from pyhanko.sign.timestamps import DummyTimeStamper
from pyhanko_certvalidator.registry import SimpleCertificateStore

CERTIFICATE, KEY = "tsa-certificate.pem", "tsa-key.pem"
VALIDITY = timedelta(days=10 * 365)
QUERY, REPLY = "application/timestamp-query", "application/timestamp-reply"


@dataclass(frozen=True)
class Authority:
    """The authority's certificate and key; `stamper(moment)` gives tokens at that time (None: the wall clock)."""

    certificate: x509.Certificate
    key: rsa.RSAPrivateKey
    issuers: tuple[x509.Certificate, ...] = ()  # carried in every token, above the authority's certificate

    @property
    def cert_pem(self) -> str:
        return self.certificate.public_bytes(serialization.Encoding.PEM).decode()

    def stamper(self, moment: Callable[[], datetime] | None = None) -> DummyTimeStamper:
        key_der = self.key.private_bytes(
            serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        stamper = _Stamper(
            tsa_cert=_asn1(self.certificate),
            tsa_key=asn1_keys.PrivateKeyInfo.load(key_der),
            certs_to_embed=SimpleCertificateStore.from_certs([_asn1(issuer) for issuer in self.issuers]),
        )
        stamper.moment = moment
        return stamper


class _Stamper(DummyTimeStamper):
    """DummyTimeStamper reads its time once, at construction (`fixed_dt`) or from the wall clock: this one asks
    `moment` for every token, so a test can move it."""

    moment: Callable[[], datetime] | None = None

    def request_tsa_response(self, req: tsp.TimeStampReq) -> tsp.TimeStampResp:
        self.fixed_dt = self.moment() if self.moment else None
        return super().request_tsa_response(req)


def create(
    common_name: str = "signsvc local TSA",
    *,
    now: datetime,
    valid_for: timedelta = VALIDITY,
    issuer: tuple[x509.Certificate, rsa.RSAPrivateKey] | None = None,
    crl_url: str | None = None,
) -> Authority:
    """A new authority: an RSA key and a certificate for time stamping, valid from `now`, self-signed or issued
    by `issuer` (a CA's certificate and key; then `crl_url` may name the CA's CRL)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    issuer_name, signing_key = (issuer[0].subject, issuer[1]) if issuer else (name, key)
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(days=1))
        .not_valid_after(now + valid_for)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
        .add_extension(x509.KeyUsage(True, True, False, False, False, False, False, False, False), critical=True)
    )
    if crl_url:
        point = x509.DistributionPoint([x509.UniformResourceIdentifier(crl_url)], None, None, None)
        builder = builder.add_extension(x509.CRLDistributionPoints([point]), critical=False)
    return Authority(builder.sign(signing_key, hashes.SHA256()), key, (issuer[0],) if issuer else ())


def _asn1(certificate: x509.Certificate) -> asn1_x509.Certificate:
    return asn1_x509.Certificate.load(certificate.public_bytes(serialization.Encoding.DER))


def load_or_create(directory: Path) -> Authority:
    """The authority kept in `directory`, made there on the first call."""
    certificate_path, key_path = directory / CERTIFICATE, directory / KEY
    if certificate_path.exists() and key_path.exists():
        key = serialization.load_pem_private_key(key_path.read_bytes(), password=None)
        assert isinstance(key, rsa.RSAPrivateKey), f"{key_path} holds an RSA key"
        return Authority(x509.load_pem_x509_certificate(certificate_path.read_bytes()), key)
    authority = create(now=datetime.now(UTC))
    directory.mkdir(parents=True, exist_ok=True)
    key_path.touch(mode=0o600)
    key_path.write_bytes(
        authority.key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    certificate_path.write_text(authority.cert_pem)
    return authority


def app(stamper: DummyTimeStamper) -> web.Application:
    """Answers a timestamp query (POST, any path) with a token; anything else is a 400 naming the problem."""

    async def answer(request: web.Request) -> web.Response:
        if request.content_type != QUERY:
            return web.json_response({"error": f"Content-Type must be {QUERY}"}, status=400)
        try:
            query = tsp.TimeStampReq.load(await request.read())
            query.native  # noqa: B018 (parses it whole: a broken query fails here, not in the stamper)
        except ValueError as error:
            return web.json_response({"error": f"not an RFC 3161 timestamp query: {error}"}, status=400)
        reply = await asyncio.to_thread(stamper.request_tsa_response, query)
        return web.Response(body=reply.dump(), content_type=REPLY)

    application = web.Application()
    application.router.add_post("/{tail:.*}", answer)
    return application


@contextmanager
def serving(stamper: DummyTimeStamper, host: str = "127.0.0.1") -> Iterator[str]:
    """Serves the authority on a free port in a thread with its own event loop (for test suites, from inside a
    running loop or not); yields its URL."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app(stamper), access_log=None)
    started = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, host, 0).start())
        started.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())
        loop.close()

    thread = threading.Thread(target=run, name="signsvc-test-tsa", daemon=True)
    thread.start()
    started.wait()
    try:
        yield f"http://{host}:{runner.addresses[0][1]}/tsa"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
