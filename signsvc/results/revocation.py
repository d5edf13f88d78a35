"""Revocation information for a configured (PKCS#12) signing chain and for a timestamp authority's certificates:
the CRLs the certificates name in their CRL distribution points, fetched when a document is signed, through the
download rules (public addresses only, a size cap, a time limit), and kept per certificate until the CRL's
nextUpdate, so most seals fetch nothing.

When a CRL can't be had (no distribution point, the server fails or answers something that is not a CRL) the
document is signed without it, at a lower PAdES level (for a timestamp authority, the DSS carries its
certificates only), and the failure is logged; the server is then left alone
for `FAILURE_PAUSE`, so each seal doesn't wait for its time limit. OCSP (AIA) is not asked.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization

from signsvc.infra.clock import Clock
from signsvc.infra.errors import ServiceError
from signsvc.infra.pdf_calls import SigningChain

log = logging.getLogger(__name__)

FETCH_TIMEOUT = 10  # seconds for all the CRLs of one chain
FAILURE_PAUSE = timedelta(minutes=5)
MAX_CRL_BYTES = 10 * 2**20

Fetch = Callable[[str], Awaitable[bytes]]


@dataclass(frozen=True)
class _Kept:
    crl: bytes | None  # None: fetching failed, asked again after `until`
    until: datetime


class Revocations:
    def __init__(self, clock: Clock, fetch: Fetch) -> None:
        self.clock, self.fetch = clock, fetch
        self._kept: dict[bytes, _Kept] = {}
        self._parsed: dict[tuple[str, ...], list[x509.Certificate]] = {}

    async def crls(self, chain: SigningChain) -> tuple[bytes, ...] | None:
        """A CRL (DER) for each certificate of the chain but its root; None when one can't be had."""
        return await self.crls_of((chain.cert_pem, *chain.chain_pems))

    async def crls_of(self, pems: tuple[str, ...]) -> tuple[bytes, ...] | None:
        """A CRL (DER) for each of the certificates but the self-signed ones; None when one can't be had."""
        if pems not in self._parsed:
            self._parsed[pems] = [x509.load_pem_x509_certificate(pem.encode()) for pem in pems]
        found = []
        for certificate in self._parsed[pems]:
            if certificate.issuer == certificate.subject:
                continue  # a trust anchor: nobody revokes it
            crl = await self._crl(certificate)
            if crl is None:
                return None
            found.append(crl)
        return tuple(found)

    async def _crl(self, certificate: x509.Certificate) -> bytes | None:
        key, now = certificate.fingerprint(hashes.SHA256()), self.clock.now()
        if (kept := self._kept.get(key)) and now < kept.until:
            return kept.crl
        name = certificate.subject.rfc4514_string()
        try:
            async with asyncio.timeout(FETCH_TIMEOUT):
                crl = await self._fetch_first(certificate)
        except (CrlUnavailable, TimeoutError) as error:
            reason = str(error) or f"no answer within {FETCH_TIMEOUT} seconds"
            log.warning("no revocation information for the certificate %s: %s", name, reason)
            self._kept[key] = _Kept(None, now + FAILURE_PAUSE)
            return None
        next_update = crl.next_update_utc or now + FAILURE_PAUSE
        der = crl.public_bytes(serialization.Encoding.DER)
        self._kept[key] = _Kept(der, next_update)
        return der

    async def _fetch_first(self, certificate: x509.Certificate) -> x509.CertificateRevocationList:
        urls = distribution_points(certificate)
        if not urls:
            raise CrlUnavailable("it names no CRL distribution point")
        failures = []
        for url in urls:
            try:
                crl = _parse(await self.fetch(url))
            except (ServiceError, ValueError) as error:
                failures.append(f"{url}: {error}")
                continue
            if crl.issuer != certificate.issuer:
                failures.append(f"{url}: the CRL is not of the certificate's issuer")
                continue
            return crl
        raise CrlUnavailable("; ".join(failures))


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
