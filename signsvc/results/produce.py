"""The completion job: each submitter's documents; for the submitter who completed the submission, its
signed documents, audit log and combined document.

The completion transaction enqueues a job per completed submitter. The job draws the values of every
submitter completed so far into the submission's documents. For the last one it also seals them,
renders and seals the audit log, and makes the combined document: the filled documents and the audit
log merged, then sealed (a signed file can't be merged into another one without breaking its
signature). It then records the files together with `form.completed` (and `submission.completed` and
the completed emails) in one transaction, so every event's payload links documents that exist.
Everything is made again from stored values: a job run again after a crash finds its rows and produces
nothing twice.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import storage.events as stored_events
import storage.results as stored
import storage.submissions as stored_submissions
from signsvc.infra import jobs, pdf_calls
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files
from signsvc.infra.mail import Outbox
from signsvc.infra.pdf_calls import Hashed, Sealed
from signsvc.infra.pool import PdfPool
from signsvc.results import audit_log, emails, filling, inputs, slots
from signsvc.results.inputs import Inputs
from signsvc.results.sealing import Sealer
from signsvc.results.slots import Produced
from signsvc.webhooks import events
from storage import Connection, Database
from storage.records import Submission, Submitter
from storage.shapes import SubmissionDocument

log = logging.getLogger(__name__)

JOB = "results.produce"
LEGACY_JOB = "submissions.completed"  # enqueued by earlier versions; what it did is done by JOB now


async def enqueue(tx: Connection, clock: Clock, submitter: Submitter, *, last: bool) -> None:
    """In the completion transaction: the job that produces the documents of a submitter who just completed."""
    await jobs.enqueue(
        tx,
        clock,
        JOB,
        {"submission_id": submitter.submission_id, "submitter_id": submitter.id, "last": last},
        dedupe_key=f"results:{submitter.id}",
        one_by_one=True,
    )


async def emitted(db: Database, record_type: str, record_id: int, event_type: str) -> bool:
    """Whether the event was recorded for the record: a documents job records it with what it made."""
    return any(
        event.event_type == event_type
        for event in await stored_events.list_events_of_record(db, record_type, record_id)
    )


class Producer:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        files: Files,
        pool: PdfPool,
        sealer: Sealer,
        outbox: Outbox,
        font_dir: str | None,
    ) -> None:
        self.db, self.clock, self.files, self.pool = db, clock, files, pool
        self.sealer, self.outbox, self.font_dir = sealer, outbox, font_dir

    def kinds(self) -> list[jobs.Kind]:
        return [jobs.Kind(JOB, self.produce), jobs.Kind(LEGACY_JOB, _legacy)]

    async def produce(self, payload: dict[str, Any]) -> None:
        """The job: a completed submitter's documents, and for the last submitter everything else."""
        submission = await stored_submissions.get_submission(self.db, payload["submission_id"])
        submitter = await stored_submissions.get_submitter(self.db, payload["submitter_id"])
        if submission is None or submitter is None:
            return  # deleted since
        if await emitted(self.db, "submitter", submitter.id, "form.completed"):
            return  # recorded by an earlier run, with its documents
        submitters = await stored_submissions.submitters_of(self.db, submission.id)
        last = bool(payload.get("last"))
        try:
            produced = await self._documents(submission, submitters, submitter, last)
        except pdf_calls.EngineError as error:
            # The values can't be drawn (a font is missing, say): the submitter has still signed.
            log.error("submission %s: documents of submitter %s not produced: %s", submission.id, submitter.id, error)
            produced = []
        await self._record(submission, submitter, produced, last)

    async def _documents(
        self, submission: Submission, submitters: list[Submitter], submitter: Submitter, last: bool
    ) -> list[Produced]:
        # The values of the submitters completed up to this one: later ones are in their own documents.
        until = submitter.completed_at or self.clock.now()
        completed = [s for s in submitters if s.completed_at and s.completed_at <= until]
        read = await inputs.read(self.db, self.files, submission, submitters)
        filled = await filling.fill(self.pool, self.font_dir, submission, completed, read)
        if not last:
            signed_by = f"signed by {submitter.name or submitter.email or submitter.role}"
            return [
                Produced(
                    "submitter", i, document["name"], slots.pdf_file(_download(submission, document, signed_by), pdf)
                )
                for i, (document, pdf) in enumerate(filled)
            ]
        return await self._final(submission, submitters, filled, read)

    async def _final(
        self,
        submission: Submission,
        submitters: list[Submitter],
        filled: list[tuple[SubmissionDocument, Hashed]],
        read: Inputs,
    ) -> list[Produced]:
        """The signed documents (each also the last submitter's own), the audit log and the combined document."""
        sealed = [(document, await self._seal(submission, pdf.data, document["name"])) for document, pdf in filled]
        produced = [
            self._signed(kind, position, document["name"], pdf, _download(submission, document))
            for position, (document, pdf) in enumerate(sealed)
            for kind in ("submitter", "final")
        ]
        hashes = [
            {"name": slots.filename(document["name"]), "original_sha256": original.sha256, "result_sha256": pdf.sha256}
            for (document, pdf), original in zip(sealed, read.originals, strict=True)
        ]
        log_data = audit_log.log(
            submission,
            submitters,
            await stored_submissions.events_of(self.db, submission.id),
            documents=hashes,
            images=read.images,
            filenames=read.filenames,
            test_mode=read.test_mode,
            generated_at=self.clock.now(),
        )
        audit_pdf = await self.pool.run(pdf_calls.audit_log, log_data, self.font_dir)
        title = submission.name or submission.template_name
        audit_name = f"Audit Log - {title}"
        # Both at once, in two pool workers when two are free: the audit log sealed; the combined document made, sealed.
        sealed_audit, combined = await asyncio.gather(
            self._seal(submission, audit_pdf.data, audit_name), self._combined(submission, filled, audit_pdf, title)
        )
        audit_download = slots.download_name(title, part="Audit Log")
        produced.append(self._signed("audit_log", 0, audit_name, sealed_audit, audit_download))
        produced.append(self._signed("combined", 0, title, combined, title))
        return produced

    def _signed(self, kind: str, position: int, name: str, sealed: Sealed, download: str) -> Produced:
        file = slots.pdf_file(download, sealed)
        return Produced(kind, position, name, file, sealed.level, self.sealer.renew_at(sealed))

    async def _combined(
        self, submission: Submission, filled: list[tuple[SubmissionDocument, Hashed]], audit_pdf: Hashed, title: str
    ) -> Sealed:
        """The filled documents and the audit log as one PDF, sealed (the parts unsealed: a sealed file can't
        be merged into another one without breaking its signature)."""
        merged = await self.pool.run(pdf_calls.merge_pdfs, [pdf.data for _, pdf in filled] + [audit_pdf.data])
        return await self._seal(submission, merged.data, title)

    async def _seal(self, submission: Submission, pdf: bytes, name: str) -> Sealed:
        return await self.sealer.seal(pdf, f"submission {submission.id}: {slots.filename(name)}")

    async def _record(self, submission: Submission, submitter: Submitter, produced: list[Produced], last: bool) -> None:
        files = list({p.file.sha256: p.file for p in produced}.values())
        await self.files.write(files)
        try:
            async with self.db.transaction() as tx:
                blob_ids: dict[tuple[str, str], int] = {}
                for item in produced:
                    key = (item.file.sha256, item.file.filename)
                    if key not in blob_ids:
                        blob_ids[key] = (await self.files.record(tx, submission.account_id, item.file)).id
                    await slots.insert(
                        tx,
                        self.clock,
                        submission,
                        submitter.id if item.kind == "submitter" else None,
                        item,
                        blob_ids[key],
                    )
                await self._event(tx, submission, "form.completed", "submitter", submitter.id)
                if last:
                    await self._event(tx, submission, "submission.completed", "submission", submission.id)
                    await emails.queue(tx, self.outbox, self.files, submission, produced)
                    await self.files.delete(tx, await stored.delete_kind(tx, submission.id, "preview"))
        except BaseException:
            await self.files.discard(files)
            raise

    async def _event(
        self, tx: Connection, submission: Submission, event_type: str, record_type: str, record_id: int
    ) -> None:
        await events.record(
            tx,
            self.clock,
            account_id=submission.account_id,
            event_type=event_type,
            record_type=record_type,
            record_id=record_id,
        )


def _download(submission: Submission, document: SubmissionDocument, part: str | None = None) -> str:
    """A document's download name, the submission's first (the combined document alone is named just that)."""
    title = submission.name or submission.template_name
    if part is None and document["name"] == title:
        part = "signed"
    return slots.download_name(title, document["name"], part=part)


async def _legacy(payload: dict[str, Any]) -> None:
    log.info("submission %s: a completion job of an earlier version, nothing left to do", payload.get("submission_id"))
