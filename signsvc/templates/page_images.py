"""Page images made after the answer. A template made from HTML (`Templates.from_html`) is stored with the image of
each document's first page only (`IN_REQUEST`), its `pages` listing every page: a document with fewer `previews` than
`pages` has page images pending. The `templates.page_images` job, enqueued in the transaction that stores the
template, makes the others in the PDF pool.

Whatever copies or shows a template's documents gets them from `PageImages.complete`, which makes what is pending
right away, as the job does, so nobody sees or copies an incomplete set even before the job has run. The job and
`complete` may race (in one process they share the work; in several, each renders): each writes a document's
images in a transaction that re-reads it and writes only when it still exists, with the same PDF, and its images
are still those the render started from. The loser discards what it made; a template deleted or a document replaced
meanwhile is no error, and the job, idempotent, does nothing more.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import storage.files as stored_files
import storage.templates as stored
from signsvc.infra import errors, jobs, pdf_calls
from signsvc.infra.clock import Clock
from signsvc.infra.files import Files, NewFile, as_preview
from signsvc.infra.pool import PdfPool
from signsvc.templates.documents import IngestedDocument
from storage import Connection, Database
from storage.records import TemplateDocument
from storage.shapes import PageSize

log = logging.getLogger(__name__)

JOB = "templates.page_images"
IN_REQUEST = 1  # page images of a document made while the request that takes it in waits: the first page's
# A template whose documents are replaced while their images are made has new ones to complete: a few times at most.
ROUNDS = 3


def pending(document: TemplateDocument | IngestedDocument) -> bool:
    """Whether some of the document's pages have no image yet."""
    return len(document.previews) < len(document.pages)


async def enqueue(tx: Connection, clock: Clock, template_id: int) -> None:
    """In the transaction that stores a template with pending page images: the job that makes them."""
    await jobs.enqueue(tx, clock, JOB, {"template_id": template_id})


class CannotMake(errors.Invalid):
    """The engine cannot make a document's page images (its stored PDF damaged since): no retry would."""


class PageImages:
    def __init__(self, db: Database, files: Files, pool: PdfPool) -> None:
        self.db, self.files, self.pool = db, files, pool
        self._under_way: dict[int, asyncio.Task[None]] = {}  # by template id: one completion at a time here

    def kinds(self) -> list[jobs.Kind]:
        return [jobs.Kind(JOB, self._job)]

    async def _job(self, payload: dict[str, Any]) -> None:
        try:
            await self.complete(payload["template_id"])  # a template deleted since has no documents: nothing to do
        except CannotMake as exc:
            raise jobs.GiveUp(str(exc)) from None

    async def shown(self, template_id: int) -> list[TemplateDocument]:
        """For a page that shows every page: the documents completed, or, when their images cannot be made, as they
        are (a page without an image is shown without one, as the pages show any such page)."""
        try:
            return await self.complete(template_id)
        except errors.Invalid as exc:
            log.warning("template %s: its documents are shown without some page images: %s", template_id, exc)
            return await stored.list_documents(self.db, template_id)

    async def complete(self, template_id: int) -> list[TemplateDocument]:
        """The template's documents in order, each with an image of every page (made now when pending)."""
        for _ in range(ROUNDS):
            documents = await stored.list_documents(self.db, template_id)
            if not any(pending(document) for document in documents):
                return documents
            await self._completed(template_id, documents)
        raise errors.Invalid("the template's documents changed while their page images were being made: send again")

    async def _completed(self, template_id: int, documents: list[TemplateDocument]) -> None:
        """Completes the documents, or waits for the completion of the template under way in this process. The work
        is a task of its own: a caller that goes away does not stop it halfway."""
        task = self._under_way.get(template_id)
        if task is None:
            task = asyncio.create_task(self._each(documents), name=f"signsvc-page-images-{template_id}")
            self._under_way[template_id] = task
            task.add_done_callback(lambda done: self._finished(template_id, done))
        await asyncio.shield(task)

    def _finished(self, template_id: int, task: asyncio.Task[None]) -> None:
        self._under_way.pop(template_id, None)
        if not task.cancelled():
            task.exception()  # retrieved: its waiters, if any are left, have it too; none may be (all cancelled)

    async def _each(self, documents: list[TemplateDocument]) -> None:
        for document in documents:
            if pending(document):
                await self.complete_document(document)

    async def complete_document(self, document: TemplateDocument) -> None:
        """Makes the pending page images of `document` as it was read, and records them only if it is still so (the
        same PDF, the same images) when they are made; otherwise they are discarded."""
        blob = await stored_files.get_blob(self.db, document.blob_id)
        if blob is None:  # the document was replaced or its template deleted meanwhile
            return
        missing = list(range(len(document.previews), len(document.pages)))
        try:
            made = await self.pool.run(pdf_calls.page_images, await self.files.read(blob), missing)
        except pdf_calls.EngineError as exc:
            raise CannotMake(f"the page images of the document {document.name} cannot be made: {exc}") from None
        images = [
            NewFile(image.data, f"{page}.{made.extension}", made.content_type, image.sha256)
            for page, image in zip(missing, made.images, strict=True)
        ]
        await self.files.write(images)
        try:
            async with self.db.transaction() as tx:
                texts = dict(zip(missing, made.texts, strict=True))
                written = await self._recorded(tx, document, blob.account_id, images, texts)
        except BaseException:
            await self.files.discard(images)
            raise
        if not written:
            log.info("template document %s: its page images were written by another run, or it is gone", document.id)
            await self.files.discard(images)

    async def _recorded(
        self, tx: Connection, document: TemplateDocument, account_id: int, images: list[NewFile], texts: dict[int, str]
    ) -> bool:
        """Adds the images, and the texts of their pages (`texts`, by page), to the document's when it is still the
        one they were made of and still lacks them."""
        await stored.lock_template(tx, document.template_id)  # first, as every writer of its documents
        now = await stored.lock_document(tx, document.id)
        if now is None or now.blob_id != document.blob_id or now.previews != document.previews:
            return False
        blobs = [await self.files.record(tx, account_id, image) for image in images]
        added = [as_preview(blob) for blob in blobs]
        pages: list[PageSize] = [
            {**page, "text": texts.get(index, page["text"])} for index, page in enumerate(now.pages)
        ]
        await stored.set_document_images(tx, document.id, pages, [*now.previews, *added])
        return True
