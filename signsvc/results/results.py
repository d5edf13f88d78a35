"""What callers ask of result documents: a submission's documents (signed, or previews while signing is
in progress), the signed files of a completed submission, and whether the service issued a PDF."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import storage.results as stored
import storage.submissions as stored_submissions
from signsvc.infra import errors, pdf_calls
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files
from signsvc.infra.pool import PdfPool
from signsvc.results import produce, verify
from signsvc.results.answers import Completed, Verification
from signsvc.results.previews import Previews
from signsvc.results.signing_identity import SigningIdentity
from signsvc.submissions import statuses
from storage import Database
from storage.records import ResultDocument, Submission, Submitter


@dataclass(frozen=True)
class DocumentsPage:
    """A submission's documents page: the signed documents once completed, else the values so far."""

    submission: Submission
    status: str
    submitters: list[Submitter]
    documents: list[tuple[str, str]]  # name and path on the site
    audit_log: str | None

    @property
    def title(self) -> str:
        return self.submission.name or self.submission.template_name


class Results:
    def __init__(
        self, db: Database, clock: Clock, files: Files, pool: PdfPool, identity: SigningIdentity, previews: Previews
    ) -> None:
        self.db, self.clock, self.files, self.pool = db, clock, files, pool
        self.identity, self.previews = identity, previews

    async def page(self, token: str) -> DocumentsPage:
        """The documents page a signed link names: 404 for a link not issued here, 403 once it expired."""
        submission = await stored_submissions.find_submission_by_slug(
            self.db, self.files.links.open_documents_page(token)
        )
        if submission is None:
            raise errors.NotFound()
        try:
            found = await self.documents(submission)
        except errors.Invalid:
            found = []
        audit_log = next((r for r in await stored.results_of(self.db, submission.id) if r.kind == "audit_log"), None)
        return DocumentsPage(
            submission,
            statuses.submission_status(submission, self.clock.now()),
            await stored_submissions.submitters_of(self.db, submission.id),
            [(r.name, self.files.links.path(r.blob_uuid, r.filename)) for r in found],
            self.files.links.path(audit_log.blob_uuid, audit_log.filename) if audit_log else None,
        )

    async def documents(self, submission: Submission, *, merge: bool = False) -> list[ResultDocument]:
        """The signed documents once completed; before that, previews with every value entered so far.
        `merge` answers them in one PDF."""
        found = [r for r in await stored.results_of(self.db, submission.id) if r.kind == "final"]
        try:
            if not found:
                found = await self.previews.previews(submission)
            if merge and len(found) > 1:
                found = [await self.previews.merged(submission, found)]
        except pdf_calls.EngineError as exc:
            raise errors.Invalid(f"The documents can't be produced: {exc}") from None
        return found

    async def completed(self, submission: Submission) -> Completed:
        """The signed documents, combined document and audit log; 422 until they exist."""
        if submission.completed_at is None:
            raise errors.Invalid("Submission is not completed: signed documents exist once every signer has completed")
        found = await stored.results_of(self.db, submission.id)
        final = [r for r in found if r.kind == "final"]
        combined = next((r for r in found if r.kind == "combined"), None)
        if not final or combined is None:
            if await produce.emitted(self.db, "submission", submission.id, "submission.completed"):
                raise errors.Invalid("The signed documents could not be produced; the server log says why")
            raise errors.Invalid("The signed documents are still being produced: try again in a few seconds")
        return Completed(final, combined, next((r for r in found if r.kind == "audit_log"), None))

    async def verify(self, file: Any) -> Verification:
        """Whether the service issued the PDF (base64); 422 for input that is not a readable PDF."""
        if not isinstance(file, str) or not file:
            raise errors.Invalid("file is required: a PDF as base64")
        try:
            return await verify.verify(self.db, self.pool, self.identity, file, self.clock.now())
        except pdf_calls.EngineError as exc:
            raise errors.Invalid(str(exc)) from None
