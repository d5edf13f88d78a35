"""Sealing a finished PDF: the service's PAdES certification signature over the entire file, with a
timestamp when a timestamp server is configured."""

from __future__ import annotations

import functools
import logging
from datetime import datetime, timedelta

from signsvc.infra import pdf_calls
from signsvc.infra.clock import Clock
from signsvc.infra.pdf_calls import Hashed
from signsvc.infra.pool import PdfPool
from signsvc.results.signing_identity import SigningIdentity

log = logging.getLogger(__name__)

REASON = "Signed with signsvc"
TSA_PAUSE = timedelta(minutes=5)


class Sealer:
    """Without an answer from the timestamp server a document is signed without its timestamp (PAdES B-B
    instead of B-T) and the failure logged as an error: a completion never waits on it. The server is then
    left alone for `TSA_PAUSE`, so each seal doesn't wait for its time limit."""

    def __init__(self, clock: Clock, pool: PdfPool, identity: SigningIdentity, tsa_url: str | None) -> None:
        self.clock, self.pool, self.identity, self.tsa_url = clock, pool, identity, tsa_url
        self._tsa_failed_at: datetime | None = None

    async def seal(self, pdf: bytes, what: str) -> Hashed:
        """The PDF signed by the service now; `what` names it in the log."""
        chain, now = await self.identity.chain(), self.clock.now()
        tsa_url = self.tsa_url
        if self._tsa_failed_at and now - self._tsa_failed_at < TSA_PAUSE:
            tsa_url = None
        try:
            return await self.pool.run(
                functools.partial(pdf_calls.seal_pdf, tsa_url=tsa_url), pdf, chain, REASON, None, now
            )
        except ConnectionError as error:
            log.error("%s signed without a timestamp: %s", what, error)
            self._tsa_failed_at = now
            return await self.pool.run(pdf_calls.seal_pdf, pdf, chain, REASON, None, now)
