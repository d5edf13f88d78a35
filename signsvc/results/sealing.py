"""Sealing a finished PDF: the service's PAdES certification signature over the entire file, at the highest level
it can reach now (docs/signatures.md):

- B-LT by default: the signed revision carries a DSS with the signing chain and revocation information for it
  (the CRL the service issues for its own generated CA, or the CRLs a configured PKCS#12 chain names);
- with a timestamp server, the signature carries a timestamp and a document timestamp follows the DSS: B-LTA;
- what can't be had lowers the level (no revocation information: B-T or B-B; no timestamp: B-LT or B-B), is
  logged, and the level reached is recorded with the stored file.
"""

from __future__ import annotations

import functools
import logging
from datetime import datetime, timedelta

from signsvc.infra import pdf_calls
from signsvc.infra.clock import Clock
from signsvc.infra.pdf_calls import Sealed, SigningChain
from signsvc.infra.pool import PdfPool
from signsvc.results.revocation import Revocations
from signsvc.results.signing_identity import SigningIdentity

log = logging.getLogger(__name__)

REASON = "Signed with signsvc"
TSA_PAUSE = timedelta(minutes=5)
# Archive timestamps are renewed this long before their timestamp authority's certificate expires (the renewal
# job runs daily; a month of failures in a row still leaves time).
RENEW_MARGIN = timedelta(days=90)
RENEW_RETRY = timedelta(days=1)


class Sealer:
    """Without an answer from the timestamp server a document is signed without its timestamp and the failure
    logged as an error: a completion never waits on it. The server is then left alone for `TSA_PAUSE`, so each
    seal doesn't wait for its time limit."""

    def __init__(
        self,
        clock: Clock,
        pool: PdfPool,
        identity: SigningIdentity,
        tsa_url: str | None,
        revocations: Revocations | None = None,
    ) -> None:
        self.clock, self.pool, self.identity, self.tsa_url = clock, pool, identity, tsa_url
        self.revocations = revocations
        self._tsa_failed_at: datetime | None = None

    async def seal(self, pdf: bytes, what: str) -> Sealed:
        """The PDF signed by the service now; `what` names it in the log."""
        chain, now = await self.identity.chain(), self.clock.now()
        crls = await self.revocation(chain)
        if crls is None:
            log.warning("%s signed without revocation information (not PAdES B-LT)", what)
        seal = functools.partial(pdf_calls.seal_pdf, crls=crls or ())
        tsa_url = self.tsa_url
        if self._tsa_failed_at and now - self._tsa_failed_at < TSA_PAUSE:
            tsa_url = None
        try:
            sealed = await self.pool.run(functools.partial(seal, tsa_url=tsa_url), pdf, chain, REASON, None, now)
        except ConnectionError as error:
            self._tsa_failed(what, error)
            return await self.pool.run(seal, pdf, chain, REASON, None, now)
        if tsa_url and crls is not None:  # () for a self-signed certificate: nothing to revoke
            sealed = await self._archived(sealed, tsa_url, what)
        await self.identity.remember_timestamp_authorities(sealed.timestamp_certificates)
        return sealed

    async def archive(self, pdf: bytes, tsa_url: str) -> tuple[Sealed, datetime | None]:
        """A signed file with a DSS update (revocation information for its timestamp authorities) and a new
        document timestamp, and when the certificate of the file's last document timestamp before it expires.
        Raises ConnectionError when the timestamp server fails."""
        stampers, expires_at = await self.pool.run(pdf_calls.timestamp_state, pdf)
        renewed = await self.pool.run(pdf_calls.archive_timestamp, pdf, tsa_url, await self._crls_of(stampers))
        await self.identity.remember_timestamp_authorities(renewed.timestamp_certificates)
        return renewed, expires_at

    async def _archived(self, sealed: Sealed, tsa_url: str, what: str) -> Sealed:
        """B-LT with a signature timestamp made B-LTA; kept as it is when the timestamp server fails now."""
        crls = await self._crls_of(sealed.timestamp_certificates)
        try:
            return await self.pool.run(pdf_calls.archive_timestamp, sealed.data, tsa_url, crls)
        except ConnectionError as error:
            self._tsa_failed(what, error)
            return sealed

    async def _crls_of(self, timestamp_certificates: tuple[str, ...]) -> tuple[bytes, ...]:
        """Revocation information for timestamp authorities' certificates that name any (a self-signed one needs
        none); without it the DSS carries their certificates only (logged by `revocation`)."""
        if self.revocations is None or not timestamp_certificates:
            return ()
        return await self.revocations.crls_of(timestamp_certificates)

    def _tsa_failed(self, what: str, error: ConnectionError) -> None:
        log.error("%s signed without a timestamp: %s", what, error)
        self._tsa_failed_at = self.clock.now()

    async def revocation(self, chain: SigningChain) -> tuple[bytes, ...] | None:
        """The revocation information to embed for the chain; None when it can't be had."""
        if chain.issues_crl:
            crl = await self.identity.crl(chain)
            return (crl,) if crl else None
        if self.revocations is None or self.identity.configured is None:  # a generated chain without its CA key
            return None
        return await self.revocations.crls(chain)

    def renew_at(self, sealed: Sealed) -> datetime | None:
        """When the file's archive timestamp is to be renewed (None: it has none)."""
        if sealed.timestamp_expires_at is None:
            return None
        due = sealed.timestamp_expires_at - RENEW_MARGIN
        if due <= self.clock.now():
            log.warning(
                "the timestamp authority's certificate expires on %s, within %s days: archive timestamps are "
                "renewed daily until it is replaced",
                sealed.timestamp_expires_at.date(),
                RENEW_MARGIN.days,
            )
            return self.clock.now() + RENEW_RETRY
        return due
