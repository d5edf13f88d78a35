"""Files made on request: previews (the documents with every value entered so far, while signing is in
progress) and merged copies (`?merge=true`). Each is kept until what it shows changes."""

from __future__ import annotations

import storage.files as stored_files
import storage.results as stored
import storage.submissions as stored_submissions
from signsvc.infra import pdf_calls
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files
from signsvc.infra.pool import PdfPool
from signsvc.results import filling, inputs, slots
from signsvc.results.slots import Produced
from storage import Database
from storage.records import ResultDocument, Submission


class Previews:
    def __init__(self, db: Database, clock: Clock, files: Files, pool: PdfPool, font_dir: str | None) -> None:
        self.db, self.clock, self.files, self.pool, self.font_dir = db, clock, files, pool, font_dir

    async def previews(self, submission: Submission) -> list[ResultDocument]:
        """Unsigned documents with every value entered so far; made again only when the values change."""
        submitters = await stored_submissions.submitters_of(self.db, submission.id)
        digest = slots.digest({s.id: [s.field_values, s.completed_at] for s in submitters})
        current = await self._of_kind(submission, "preview")
        if current and all(r.values_sha256 == digest for r in current):
            return current
        read = await inputs.read(self.db, self.files, submission, submitters)
        filled = await filling.fill(
            self.pool, self.font_dir, submission, [s for s in submitters if s.field_values], read
        )
        return await self._replace(
            submission,
            "preview",
            digest,
            [
                Produced("preview", i, document["name"], slots.pdf_file(document["name"], pdf))
                for i, (document, pdf) in enumerate(filled)
            ],
        )

    async def merged(self, submission: Submission, documents: list[ResultDocument]) -> ResultDocument:
        """The documents in one PDF, kept until the documents change. Merging rewrites the files: signatures
        in them no longer verify in the copy."""
        digest = slots.digest([document.sha256 for document in documents])
        current = await self._of_kind(submission, "merged")
        if current and current[0].values_sha256 == digest:
            return current[0]
        contents = [await self.files.read(await stored_files.required_blob(self.db, d.blob_id)) for d in documents]
        merged = await self.pool.run(pdf_calls.merge_pdfs, contents)
        name = submission.name or submission.template_name
        [made] = await self._replace(
            submission, "merged", digest, [Produced("merged", 0, name, slots.pdf_file(name, merged))]
        )
        return made

    async def _of_kind(self, submission: Submission, kind: str) -> list[ResultDocument]:
        return [r for r in await stored.results_of(self.db, submission.id) if r.kind == kind]

    async def _replace(
        self, submission: Submission, kind: str, digest: str, produced: list[Produced]
    ) -> list[ResultDocument]:
        """Puts files made on request in place of the ones of their kind, unless a request made the same
        ones meanwhile (the submission row lock makes such requests take turns)."""
        files = [p.file for p in produced]
        await self.files.write(files)
        try:
            async with self.db.transaction() as tx:
                await stored_submissions.lock_submission(tx, submission.id)
                current = [r for r in await stored.results_of(tx, submission.id) if r.kind == kind]
                made_meanwhile = bool(current) and all(r.values_sha256 == digest for r in current)
                if not made_meanwhile:
                    stale = await stored.delete_kind(tx, submission.id, kind)
                    for item in produced:
                        blob = await self.files.record(tx, submission.account_id, item.file)
                        await slots.insert(tx, self.clock, submission, None, item, blob.id, values_sha256=digest)
                    await self.files.delete(tx, stale)
        except BaseException:
            await self.files.discard(files)
            raise
        if made_meanwhile:
            await self.files.discard(files)
            return current
        return await self._of_kind(submission, kind)
