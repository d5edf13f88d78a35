"""Revocation information for a configured (PKCS#12) signing chain and for a timestamp authority's certificates:
the CRLs the certificates name in their CRL distribution points, fetched when a document is signed, through the
download rules (public addresses only, a size cap, one time limit for all the CRLs a seal asks for), and kept per
certificate until the CRL's nextUpdate (at most `KEEP_AT_MOST`), so most seals fetch nothing.

A fetched CRL is used only when its issuer's certificate (from the same chain) signed it and it is current
(thisUpdate <= now < nextUpdate): plain http is the norm for CRLs, so anything on the path could answer. A CRL
that lists the certificate itself is logged as an error and not embedded: the document is not B-LT then.

When a CRL can't be had (no distribution point, the server fails or answers something that is not a usable CRL)
the document is signed without it, at a lower PAdES level (for a timestamp authority, the DSS carries its
certificates and the CRLs that could be had), and the failure is logged; the server is then left alone for
`FAILURE_PAUSE`, so each seal doesn't wait for its time limit. At most `MAX_CERTIFICATES` certificates and
`MAX_POINTS` distribution points each are asked. OCSP (AIA) is not asked.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

from signsvc.infra.clock import Clock
from signsvc.infra.errors import ServiceError
from signsvc.infra.pdf_calls import SigningChain

log = logging.getLogger(__name__)

FETCH_TIMEOUT = 10  # seconds for all the CRLs of one seal's chain (or of its timestamp authorities)
FAILURE_PAUSE = timedelta(minutes=5)
KEEP_AT_MOST = timedelta(days=1)
MAX_CRL_BYTES = 10 * 2**20
MAX_CERTIFICATES = 4
MAX_POINTS = 2

Fetch = Callable[[str], Awaitable[bytes]]
_CRL_SIGNERS = (rsa.RSAPublicKey, ec.EllipticCurvePublicKey, ed25519.Ed25519PublicKey, ed448.Ed448PublicKey)


@dataclass(frozen=True)
class _Kept:
    crl: bytes | None  # None: fetching failed, asked again after `until`
    until: datetime


class Revocations:
    def __init__(self, clock: Clock, fetch: Fetch) -> None:
        self.clock, self.fetch = clock, fetch
        self._kept: dict[bytes, _Kept] = {}
        self._fetching: dict[bytes, asyncio.Lock] = {}  # one fetch per certificate at a time
        self._parsed: dict[tuple[str, ...], list[x509.Certificate]] = {}

    async def crls(self, chain: SigningChain) -> tuple[bytes, ...] | None:
        """A CRL (DER) for each certificate of the chain but its root; None when one can't be had."""
        found = await self._found((chain.cert_pem, *chain.chain_pems))
        return None if None in found else tuple(crl for crl in found if crl is not None)

    async def crls_of(self, pems: tuple[str, ...]) -> tuple[bytes, ...]:
        """The CRLs (DER) that could be had for the certificates (a timestamp authority's) but the self-signed ones."""
        return tuple(crl for crl in await self._found(pems) if crl is not None)

    async def _found(self, pems: tuple[str, ...]) -> list[bytes | None]:
        if pems not in self._parsed:
            self._parsed[pems] = [x509.load_pem_x509_certificate(pem.encode()) for pem in pems]
        certificates = self._parsed[pems]
        # A trust anchor (self-signed) needs none: nobody revokes it.
        revocable = [c for c in certificates if c.issuer != c.subject][:MAX_CERTIFICATES]
        deadline = asyncio.get_running_loop().time() + FETCH_TIMEOUT
        return [await self._crl(certificate, certificates, deadline) for certificate in revocable]

    async def _crl(self, certificate: x509.Certificate, chain: list[x509.Certificate], deadline: float) -> bytes | None:
        key = certificate.fingerprint(hashes.SHA256())
        async with self._fetching.setdefault(key, asyncio.Lock()):
            now = self.clock.now()
            if (kept := self._kept.get(key)) and now < kept.until:
                return kept.crl
            name = certificate.subject.rfc4514_string()
            try:
                async with asyncio.timeout_at(deadline):
                    crl = await self._fetch_first(certificate, _issuer(certificate, chain), now)
            except (CrlUnavailable, TimeoutError) as error:
                reason = str(error) or f"no answer within {FETCH_TIMEOUT} seconds"
                log.warning("no revocation information for the certificate %s: %s", name, reason)
                self._kept[key] = _Kept(None, now + FAILURE_PAUSE)
                return None
            except CertificateRevoked as error:
                log.error("the certificate %s is revoked: %s", name, error)
                self._kept[key] = _Kept(None, now + FAILURE_PAUSE)
                return None
            self._kept[key] = _Kept(crl.der, min(crl.next_update, now + KEEP_AT_MOST))
            return crl.der

    async def _fetch_first(self, certificate: x509.Certificate, issuer: x509.Certificate, now: datetime) -> _Checked:
        urls = distribution_points(certificate)[:MAX_POINTS]
        if not urls:
            raise CrlUnavailable("it names no CRL distribution point")
        failures = []
        for url in urls:
            try:
                data = await self.fetch(url)
                return await asyncio.to_thread(_checked, data, certificate, issuer, now)
            except (ServiceError, ValueError) as error:
                failures.append(f"{url}: {error}")
        raise CrlUnavailable("; ".join(failures))


@dataclass(frozen=True)
class _Checked:
    der: bytes
    next_update: datetime


def _issuer(certificate: x509.Certificate, chain: list[x509.Certificate]) -> x509.Certificate:
    for candidate in chain:
        if candidate.subject == certificate.issuer:
            try:
                certificate.verify_directly_issued_by(candidate)
            except (ValueError, TypeError, InvalidSignature):
                continue
            return candidate
    raise CrlUnavailable("its issuer's certificate is not in the chain, so no CRL can be checked")


def _checked(data: bytes, certificate: x509.Certificate, issuer: x509.Certificate, now: datetime) -> _Checked:
    """The CRL if it is the issuer's, signed by it and current; raises ValueError saying what is wrong with it,
    CertificateRevoked when it lists the certificate."""
    crl, key = _parse(data), issuer.public_key()
    if not isinstance(key, _CRL_SIGNERS) or crl.issuer != issuer.subject or not crl.is_signature_valid(key):
        raise ValueError("the CRL is not signed by the certificate's issuer")
    next_update = crl.next_update_utc
    if not crl.last_update_utc <= now or next_update is None or not now < next_update:
        raise ValueError("the CRL is not current (thisUpdate to nextUpdate)")
    if (revoked := crl.get_revoked_certificate_by_serial_number(certificate.serial_number)) is not None:
        raise CertificateRevoked(f"its issuer's CRL lists it, revoked on {revoked.revocation_date_utc:%Y-%m-%d}")
    return _Checked(crl.public_bytes(serialization.Encoding.DER), next_update)


class CertificateRevoked(Exception):
    """The issuer's CRL lists the certificate; the message says since when."""


class CrlUnavailable(Exception):
    """No CRL could be fetched for a certificate; the message says why."""


def distribution_points(certificate: x509.Certificate) -> list[str]:
    """The http(s) URLs of the certificate's CRL distribution points."""
    try:
        points = certificate.extensions.get_extension_for_class(x509.CRLDistributionPoints).value
    except x509.ExtensionNotFound:
        return []
    return [
        name.value
        for point in points
        for name in point.full_name or ()
        if isinstance(name, x509.UniformResourceIdentifier) and name.value.startswith(("http://", "https://"))
    ]


def _parse(data: bytes) -> x509.CertificateRevocationList:
    if data.lstrip().startswith(b"-----BEGIN"):
        return x509.load_pem_x509_crl(data)
    return x509.load_der_x509_crl(data)
