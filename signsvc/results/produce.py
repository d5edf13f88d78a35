"""Result documents (REFERENCE 8): each signer's documents; a completed submission's signed documents,
audit log and combined document; previews while signing is in progress.

The completion transaction enqueues a job per completed signer. The job draws the values of every
signer completed so far into the submission's documents. For the signer who completed the submission it
also signs them (PAdES, `signsvc.results.signing_identity`), renders and signs the audit log, and makes the combined
document: the filled documents and the audit log merged, then signed (a signed file can't be merged
into another one without breaking its signature). It then records the files together with
`form.completed` (and `submission.completed` and the completed emails) in one transaction, so every
event's payload links documents that exist. Everything is made again from stored values: a job run
again after a crash finds its rows and produces nothing twice.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, AsyncIterator

from aiohttp import web

import storage.accounts as stored_accounts
import storage.events as stored_events
import storage.files as stored_files
import storage.results as stored
import storage.submissions as stored_submissions
from signsvc.results import audit_log as audit_trail
from signsvc.webhooks import events
from signsvc.submissions import field_values
from signsvc.pdf import font_files
from signsvc.infra import jobs
from signsvc.infra import mail
from signsvc.infra import pdf_calls
from signsvc.http.appkeys import INGEST, SERVICES
from signsvc.infra.config import ConfigError
from signsvc.infra.files import NewFile
from signsvc.infra.pool import PdfPool
from signsvc.infra.services import Services
from signsvc.results.signing_identity import Signing
from storage import Connection
from storage.records import ResultDocument, Submission, Submitter

log = logging.getLogger(__name__)

JOB = "results.produce"
REASON = "Signed with signsvc"
TEST_MARK = "Test document, not legally binding"
LEGACY_JOB = "submissions.completed"  # enqueued by earlier versions; what it did is done by JOB now
TSA_PAUSE = timedelta(minutes=5)
ATTACHMENT_LIMIT = 10 * 1024 * 1024  # above it, the completed email links the files instead
PDF = "application/pdf"


@dataclass(frozen=True)
class Inputs:
    """What producing reads once per submission: its original documents (record, blob hash, content), the
    files its values name (image contents and file names by blob uuid), and whether it is a test."""

    originals: list[tuple[dict[str, Any], str, bytes]]
    images: dict[str, bytes]
    filenames: dict[str, str]
    test_mode: bool


@dataclass(frozen=True)
class Produced:
    """A file to record in a slot of `result_documents`."""

    kind: str
    position: int
    name: str
    file: NewFile


class Results:
    """Produces and finds result documents; its job kind runs in the worker, its methods serve the API."""

    def __init__(self, *, warm: bool = False) -> None:
        self.kinds = [jobs.Kind(JOB, self.produce), jobs.Kind(LEGACY_JOB, _legacy)]
        self.warm = warm
        self._tsa_failed_at: datetime | None = None

    async def context(self, app: web.Application) -> AsyncIterator[None]:
        self.services: Services = app[SERVICES]
        self.pool: PdfPool = app[INGEST].pool
        if problem := font_files.no_text_font(self.services.config.font_dir):
            raise ConfigError(problem)
        self.signing = Signing(self.services.db, self.services.clock, self.services.config, self.pool)
        await self.signing.load()
        # After the ready line, not before it: a server used as a fake in test suites starts in well
        # under a second, and its workers load the PDF libraries, fonts and signing key meanwhile.
        warming = asyncio.create_task(self._warm()) if self.warm else None
        yield
        if warming:
            warming.cancel()

    async def _warm(self) -> None:
        try:
            chain = await self.signing.chain()
            await asyncio.gather(*(self.pool.run(pdf_calls.warm, chain, self.services.config.font_dir)
                                   for _ in range(self.pool.workers)))
        except Exception:
            log.exception("warming the PDF workers failed; they will load what they need on first use")

    async def produce(self, services: Services, payload: dict[str, Any]) -> None:
        """The job: a completed signer's documents, and for the last signer everything else."""
        submission = await stored_submissions.get_submission(services.db, payload["submission_id"])
        signer = await stored_submissions.get_submitter(services.db, payload["submitter_id"])
        if submission is None or signer is None:
            return  # deleted since
        if await emitted(services, "submitter", signer.id, "form.completed"):
            return  # recorded by an earlier run, with its documents
        signers = await stored_submissions.submitters_of(services.db, submission.id)
        last = bool(payload.get("last"))
        try:
            produced = await self._documents(submission, signers, signer, last)
        except pdf_calls.EngineError as error:
            # The values can't be drawn (a font is missing, say): the signer has still signed.
            log.error("submission %s: documents of signer %s not produced: %s", submission.id, signer.id, error)
            produced = []
        await self._record(submission, signer, produced, last)

    async def previews(self, submission: Submission) -> list[ResultDocument]:
        """Unsigned documents with every value entered so far; made again only when the values change."""
        signers = await stored_submissions.submitters_of(self.services.db, submission.id)
        digest = _digest({signer.id: [signer.field_values, signer.completed_at] for signer in signers})
        current = await self._of_kind(submission, "preview")
        if current and all(r.values_sha256 == digest for r in current):
            return current
        filled = await self._filled(submission, [s for s in signers if s.field_values],
                                    await self._inputs(submission, signers))
        return await self._replace(submission, "preview", digest, [
            Produced("preview", i, document["name"], NewFile(pdf, _filename(document["name"]), PDF, sha256))
            for i, (document, (pdf, sha256)) in enumerate(filled)])

    async def merged(self, submission: Submission, documents: list[ResultDocument]) -> ResultDocument:
        """The documents in one PDF (`?merge=true`), kept until the documents change. Merging rewrites the
        files: signatures in them no longer verify in the copy."""
        digest = _digest([document.sha256 for document in documents])
        current = await self._of_kind(submission, "merged")
        if current and current[0].values_sha256 == digest:
            return current[0]
        contents = [await self._content(d.blob_id) for d in documents]
        pdf, sha256 = await self.pool.run(pdf_calls.merge_pdfs, contents)
        name = submission.name or submission.template_name
        [merged] = await self._replace(submission, "merged", digest,
                                       [Produced("merged", 0, name, NewFile(pdf, _filename(name), PDF, sha256))])
        return merged

    async def verify(self, file: str) -> dict[str, Any]:
        """Whether the service issued the PDF (base64): its hash is that of a file the service produced, or
        one of the service's certificates signed all of it and it is intact; with a report per signature.
        Raises EngineError for input that is not a readable PDF."""
        signatures, sha256 = await self.pool.run(pdf_calls.verify_base64, file, await self.signing.trusted())
        produced = await stored.issued(self.services.db, sha256)
        signed = any(signature["issued_by_service"] for signature in signatures)
        return {"issued_by_service": produced or signed, "checksum_status": "verified" if produced else "not_found",
                "sha256": sha256, "signatures": signatures}

    # Producing.

    async def _documents(self, submission: Submission, signers: list[Submitter], signer: Submitter,
                         last: bool) -> list[Produced]:
        # The values of the signers completed up to this one: later ones are in their own documents.
        completed = [s for s in signers if s.completed_at and s.completed_at <= signer.completed_at]
        inputs = await self._inputs(submission, signers)
        filled = await self._filled(submission, completed, inputs)
        if not last:
            return [Produced("signer", i, document["name"], NewFile(pdf, _filename(document["name"]), PDF, sha256))
                    for i, (document, (pdf, sha256)) in enumerate(filled)]
        return await self._final(submission, signers, filled, inputs)

    async def _final(self, submission: Submission, signers: list[Submitter],
                     filled: list[tuple[dict[str, Any], tuple[bytes, str]]], inputs: Inputs) -> list[Produced]:
        sealed = [(document, NewFile(*await self._seal(submission, pdf, _filename(document["name"]))))
                  for document, (pdf, _) in filled]
        produced = [Produced(kind, position, document["name"], file)
                    for position, (document, file) in enumerate(sealed) for kind in ("signer", "final")]
        hashes = [{"name": file.filename, "original_sha256": original_sha256, "result_sha256": file.sha256}
                  for (_, file), (_, original_sha256, _) in zip(sealed, inputs.originals)]
        log_data = audit_trail.log(
            submission, signers, await stored_submissions.events_of(self.services.db, submission.id),
            documents=hashes, images=inputs.images, filenames=inputs.filenames, test_mode=inputs.test_mode,
            generated_at=self.services.clock.now())
        audit_pdf, _ = await self.pool.run(pdf_calls.audit_log, log_data, self.services.config.font_dir)
        title = submission.name or submission.template_name
        audit_name = f"Audit Log - {title}"
        produced.append(Produced("audit_log", 0, audit_name,
                                 NewFile(*await self._seal(submission, audit_pdf, _filename(audit_name)))))
        merged, _ = await self.pool.run(pdf_calls.merge_pdfs, [pdf for _, (pdf, _) in filled] + [audit_pdf])
        produced.append(Produced("combined", 0, title, NewFile(*await self._seal(submission, merged, _filename(title)))))
        return produced

    async def _inputs(self, submission: Submission, signers: list[Submitter]) -> Inputs:
        attachments = await stored_submissions.attachments_of(self.services.db, submission.id)
        fields = field_values.named(submission.fields)
        values = {uuid: value for signer in signers for uuid, value in signer.field_values.items()}
        wanted = {str(values[f["uuid"]]) for f in fields
                  if f["type"] in audit_trail.IMAGE_TYPES and values.get(f["uuid"])}
        originals = []
        for document in submission.documents:
            blob = await stored_files.get_blob(self.services.db, document["blob_id"])
            originals.append((document, blob.sha256, await self.services.files.read(blob)))
        account = await stored_accounts.get_account(self.services.db, submission.account_id)
        return Inputs(originals=originals,
                      images={row["uuid"]: await self._content(row["blob_id"])
                              for row in attachments if row["uuid"] in wanted},
                      filenames={row["uuid"]: row["filename"] for row in attachments}, test_mode=account.is_test)

    async def _filled(self, submission: Submission, completed: list[Submitter],
                      inputs: Inputs) -> list[tuple[dict[str, Any], tuple[bytes, str]]]:
        """Each document of the submission with the values of `completed` drawn in, with its hash."""
        roles = {signer.role_uuid for signer in completed}
        fields = [f for f in field_values.named(submission.fields) if f.get("submitter_uuid") in roles]
        values = {uuid: value for signer in completed for uuid, value in signer.field_values.items()}
        stamp = {s.role_uuid: {"name": s.name or s.email or s.phone or s.role, "role": s.role,
                               "time": f"{s.completed_at:%Y-%m-%d %H:%M:%S} UTC"} for s in completed if s.completed_at}
        fill = functools.partial(pdf_calls.fill_pdf, filenames=inputs.filenames, stamp=stamp,
                                 font_dir=self.services.config.font_dir,
                                 footer=TEST_MARK if inputs.test_mode else None)
        return [(document, await self.pool.run(fill, pdf, document["uuid"], fields, values, inputs.images))
                for document, _, pdf in inputs.originals]

    async def _seal(self, submission: Submission, pdf: bytes, filename: str) -> tuple[bytes, str, str, str]:
        """The PDF signed by the service now: NewFile's fields.

        Without an answer from the timestamp server the signature is made without its timestamp (PAdES B-B
        instead of B-T) and the failure logged as an error: a signer's completion never waits on it. The
        server is then left alone for a while (TSA_PAUSE), so each seal doesn't wait for its time limit."""
        chain, now = await self.signing.chain(), self.services.clock.now()
        tsa_url = self.services.config.tsa_url
        if self._tsa_failed_at and now - self._tsa_failed_at < TSA_PAUSE:
            tsa_url = None
        try:
            signed, sha256 = await self.pool.run(functools.partial(pdf_calls.seal_pdf, tsa_url=tsa_url), pdf, chain,
                                                 REASON, None, now)
        except ConnectionError as error:
            log.error("submission %s: %s signed without a timestamp: %s", submission.id, filename, error)
            self._tsa_failed_at = now
            signed, sha256 = await self.pool.run(pdf_calls.seal_pdf, pdf, chain, REASON, None, now)
        return signed, filename, PDF, sha256

    # Recording.

    async def _record(self, submission: Submission, signer: Submitter, produced: list[Produced], last: bool) -> None:
        files = list({p.file.sha256: p.file for p in produced}.values())
        await self.services.files.write(files)
        try:
            async with self.services.db.transaction() as tx:
                blob_ids: dict[tuple[str, str], int] = {}
                for item in produced:
                    key = (item.file.sha256, item.file.filename)
                    if key not in blob_ids:
                        blob_ids[key] = (await self.services.files.record(tx, submission.account_id, item.file)).id
                    await self._insert(tx, submission, signer if item.kind == "signer" else None, item, blob_ids[key])
                await self._event(tx, submission, "form.completed", "submitter", signer.id)
                if last:
                    await self._event(tx, submission, "submission.completed", "submission", submission.id)
                    await self._completed_emails(tx, submission, produced)
                    previews = await stored.delete_kind(tx, submission.id, "preview")
                    orphans = await self.services.files.delete(tx, previews)
        except BaseException:
            await self.services.files.discard(files)
            raise
        if last:
            await self.services.files.remove_contents(orphans)

    async def _insert(self, tx: Connection, submission: Submission, signer: Submitter | None, item: Produced,
                      blob_id: int, values_sha256: str | None = None) -> None:
        await stored.insert_result_document(
            tx, submission_id=submission.id, submitter_id=signer.id if signer else None, kind=item.kind,
            position=item.position, name=item.name, blob_id=blob_id, sha256=item.file.sha256,
            values_sha256=values_sha256, now=self.services.clock.now())

    async def _event(self, tx: Connection, submission: Submission, event_type: str, record_type: str,
                     record_id: int) -> None:
        await events.record(tx, self.services.clock, account_id=submission.account_id, event_type=event_type,
                            record_type=record_type, record_id=record_id)

    async def _completed_emails(self, tx: Connection, submission: Submission, produced: list[Produced]) -> None:
        """The signed documents and audit log to each signer and to `bcc_completed`, unless the
        submission sends no email."""
        if not submission.send_email:
            return
        signers = await stored_submissions.submitters_of(tx, submission.id)
        recipients = [(s.email, s.id) for s in signers if s.email and s.preferences.get("send_email") is not False]
        if bcc := submission.preferences.get("bcc_completed"):
            recipients.append((bcc, None))
        if not recipients:
            return
        results = [r for r in await stored.results_of(tx, submission.id) if r.kind in ("final", "audit_log")]
        attached = bool(results) and sum(
            len(p.file.data) for p in produced if p.kind in ("final", "audit_log")) <= ATTACHMENT_LIMIT
        links = self.services.files.link
        composed = mail.completed_copy(
            account_name=(await stored_accounts.get_account(tx, submission.account_id)).name,
            template_name=submission.template_name,
            submitter_names=[s.name or s.email or s.phone or s.role for s in signers],
            documents=[(r.name, links(r.blob_uuid, r.filename)) for r in results if r.kind == "final"],
            audit_log_url=next((links(r.blob_uuid, r.filename) for r in results if r.kind == "audit_log"), None),
            attached=attached)
        for address, submitter_id in recipients:
            await mail.queue(tx, self.services.clock, self.services.config, account_id=submission.account_id,
                             kind="completed_copy", to=address, composed=composed, submitter_id=submitter_id,
                             attachments=[r.blob_id for r in results] if attached else None)

    async def _of_kind(self, submission: Submission, kind: str) -> list[ResultDocument]:
        return [r for r in await stored.results_of(self.services.db, submission.id) if r.kind == kind]

    async def _replace(self, submission: Submission, kind: str, digest: str,
                       produced: list[Produced]) -> list[ResultDocument]:
        """Puts files made on demand in place of the ones of their kind, unless a request made the same
        ones meanwhile (the submission row lock makes such requests take turns)."""
        files = [p.file for p in produced]
        await self.services.files.write(files)
        try:
            async with self.services.db.transaction() as tx:
                await stored_submissions.lock_submission(tx, submission.id)
                current = [r for r in await stored.results_of(tx, submission.id) if r.kind == kind]
                made_meanwhile = bool(current) and all(r.values_sha256 == digest for r in current)
                if not made_meanwhile:
                    stale = await stored.delete_kind(tx, submission.id, kind)
                    for item in produced:
                        blob = await self.services.files.record(tx, submission.account_id, item.file)
                        await self._insert(tx, submission, None, item, blob.id, values_sha256=digest)
                    orphans = await self.services.files.delete(tx, stale)
        except BaseException:
            await self.services.files.discard(files)
            raise
        if made_meanwhile:
            await self.services.files.discard(files)
            return current
        await self.services.files.remove_contents(orphans)
        return await self._of_kind(submission, kind)

    async def _content(self, blob_id: int) -> bytes:
        return await self.services.files.read(await stored_files.get_blob(self.services.db, blob_id))


async def emitted(services: Services, record_type: str, record_id: int, event_type: str) -> bool:
    """Whether the event was recorded for the record: a documents job records it with what it made."""
    return any(event.event_type == event_type
               for event in await stored_events.list_events_of_record(services.db, record_type, record_id))


async def completed_job(tx: Connection, services: Services, signer: Submitter, *, last: bool) -> None:
    """Enqueues the documents of a signer who just completed (in the completion transaction)."""
    await jobs.enqueue(tx, services.clock, JOB, {"submission_id": signer.submission_id, "submitter_id": signer.id,
                                                 "last": last}, dedupe_key=f"results:{signer.id}")


async def _legacy(services: Services, payload: dict[str, Any]) -> None:
    log.info("submission %s: a completion job of an earlier version, nothing left to do", payload.get("submission_id"))


def _filename(name: str) -> str:
    return f"{name}.pdf"


def _digest(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()
