"""Renewing archive timestamps (PAdES B-LTA): a stored file's last document timestamp proves its content only
while that timestamp authority's certificate is valid, so before it expires (`sealing.RENEW_MARGIN`, on the
service clock) a daily job appends a DSS update and a new document timestamp over the whole file.

The renewed file replaces the stored one under the same file id and uuid, so every link already sent keeps
working, and the hash of each earlier version stays recorded: the service still recognises it as a file it
issued. Without a timestamp server configured nothing is renewed (and a warning says so).

A new timestamp that expires no later than the file's last one (the authority still signs with the certificate
that is about to expire) proves nothing more: it is discarded, the file asked again after `RENEW_RETRY` and a
warning logged. A timestamp server that fails stops the run (tried again later); any other failure is one
file's: logged, that file asked again after `RENEW_RETRY`, the others renewed.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import storage.files as stored_files
import storage.results as stored
from signsvc.infra import jobs
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files, NewFile
from signsvc.infra.pool import PdfPool
from signsvc.results.sealing import RENEW_RETRY, Sealer
from storage import Database
from storage.records import TimestampDue

log = logging.getLogger(__name__)

JOB = "signing.archive_timestamps"
EVERY = timedelta(days=1)
BATCH = 20


class ArchiveTimestamps:
    def __init__(self, db: Database, clock: Clock, files: Files, pool: PdfPool, sealer: Sealer) -> None:
        self.db, self.clock, self.files, self.pool, self.sealer = db, clock, files, pool, sealer

    def kinds(self) -> list[jobs.Kind]:
        return [jobs.Kind(JOB, self.renew, every=EVERY)]

    async def renew(self, payload: dict[str, Any]) -> None:
        """The job: every file whose archive timestamp is due, a batch at a time. A timestamp server that fails
        fails the run, which is tried again later; another failure postpones that file only."""
        done: set[int] = set()
        while due := [
            d for d in await stored.timestamps_due(self.db, self.clock.now(), BATCH) if d.blob_id not in done
        ]:
            if self.sealer.tsa_url is None:
                log.warning("%s+ files are due for a new archive timestamp, but no SIGNSVC_TSA_URL is set", len(due))
                return
            for file in due:
                done.add(file.blob_id)
                try:
                    await self._renew(file, self.sealer.tsa_url)
                except ConnectionError:
                    raise
                except Exception:
                    log.exception("file %s: archive timestamp not renewed, tried again later", file.blob_id)
                    await self._postpone(file.blob_id)

    async def _renew(self, due: TimestampDue, tsa_url: str) -> None:
        blob = await stored_files.required_blob(self.db, due.blob_id)
        renewed, previous_expiry = await self.sealer.archive(await self.files.read(blob), tsa_url)
        if previous_expiry and (
            renewed.timestamp_expires_at is None or renewed.timestamp_expires_at <= previous_expiry
        ):
            log.warning(
                "file %s: the timestamp authority still signs with a certificate that expires on %s: the archive "
                "timestamp is not renewed until it has a newer one",
                blob.uuid,
                previous_expiry.date(),
            )
            await self._postpone(blob.id)
            return
        file = NewFile(renewed.data, blob.filename, blob.content_type, renewed.sha256)
        await self.files.write([file])
        try:
            async with self.db.transaction() as tx:
                if not await self.files.replace(tx, blob, file):
                    await self.files.discard([file])  # deleted or renewed meanwhile
                    return
                await stored.renew_result_file(tx, blob.id, blob.sha256, renewed.sha256, self.sealer.renew_at(renewed))
        except BaseException:
            await self.files.discard([file])
            raise
        log.info("file %s: archive timestamp renewed (%s -> %s)", blob.uuid, blob.sha256, renewed.sha256)

    async def _postpone(self, blob_id: int) -> None:
        await stored.postpone_timestamp_renewal(self.db, blob_id, self.clock.now() + RENEW_RETRY)
