"""A template's documents changed (`PUT /templates/{id}/documents`): the request read, each new document taken in (a
file, its text tags found; or HTML, rendered), the plan made (`document_plan`), the documents merged into one when
asked, and the plan written with the template's `template.updated` event.

The new documents are read, converted and written before the transaction that records them (and removed again when
it fails); that transaction first checks that the template is still the one the plan was made from.
"""

from __future__ import annotations

from typing import Any

import storage.templates as stored
from signsvc.accounts import auth
from signsvc.infra import errors, pdf_calls
from signsvc.infra.files import NewFile
from signsvc.templates import document_plan, document_tags, patterns
from signsvc.templates.document_plan import Change, NewDocument, Plan, Request, Slot
from signsvc.templates.documents import Ingest, IngestedDocument
from signsvc.templates.html_documents import HtmlDocument, HtmlRenderer
from signsvc.templates.page_images import PageImages
from signsvc.templates.template_writing import Writer, blob_ids
from storage import Connection
from storage.records import Principal, Template, TemplateDocument


class DocumentChanges:
    def __init__(self, writer: Writer, ingest: Ingest, html: HtmlRenderer, images: PageImages) -> None:
        self.writer, self.ingest, self.html, self.images = writer, ingest, html, images

    async def change(self, principal: Principal, template_id: int, body: dict[str, Any]) -> Template:
        """Adds, replaces and removes documents, then merges them into one when asked."""
        request = document_plan.parse(body)
        db = self.writer.db
        template = auth.owned(principal, await stored.get_template(db, template_id), "Template")
        # Every page image made first: a job completing them meanwhile would fail the check that they are unchanged.
        documents = await self.images.complete(template.id)
        plan = document_plan.applied(template, documents, request, await self._new_documents(request))
        if request.merge and len(plan.slots) > 1:
            pdfs = [await self._slot_pdf(slot) for slot in plan.slots]
            plan = document_plan.merged(plan, await self.ingest.merged(pdfs, template.name, ("merge",)))
        combined = await self.ingest.combined_pdfs([await self._slot_pdf(slot) for slot in plan.slots], template.name)
        files = [file for slot in plan.slots if slot.new for file in (slot.new.pdf, *slot.new.previews)]
        files += [combined] if combined else []
        await self.writer.files.write(files)
        try:
            async with db.transaction() as tx:
                await self._written(tx, template, documents, plan, combined)
                await self.writer.event(tx, template.account_id, "template.updated", template.id)
                return await stored.required_template(tx, template.id)
        except BaseException:
            await self.writer.files.discard(files)
            raise

    async def _new_documents(self, request: Request) -> list[NewDocument | None]:
        """The new document of each change that brings one, with the field inputs of its tags."""
        tags = pdf_calls.TagReading(remove=request.remove_tags)
        # All the HTML of the request in one call: its renders share one time budget.
        sources = [change.html for change in request.changes if _renders(change)]
        html = iter(await self.html.documents([source for source in sources if source]))
        taken = [next(html) if _renders(change) else await self._taken_in(change, tags) for change in request.changes]
        from_files = [one for one in taken if isinstance(one, IngestedDocument)]
        rendered = [one for one in taken if isinstance(one, HtmlDocument)]
        # Compiled off the event loop before the tags are read, which then finds each pattern compiled.
        await patterns.prepare(
            patterns.found_in([[one.form_fields for one in from_files], [one.fields for one in rendered]])
            + document_tags.patterns(from_files)
        )
        return [_new_document(change, one) for change, one in zip(request.changes, taken, strict=True)]

    async def _taken_in(self, change: Change, tags: pdf_calls.TagReading) -> IngestedDocument | None:
        """The document a change of a file brings: its file taken in (its text tags found)."""
        if change.action == document_plan.REMOVE:
            return None
        return await self.ingest.document(change.raw, change.where, tags)

    async def _written(
        self,
        tx: Connection,
        template: Template,
        documents: list[TemplateDocument],
        plan: Plan,
        combined: NewFile | None,
    ) -> None:
        """Writes the plan made from `template` and its `documents` as read before: refused when either changed
        since (the plan would undo that change)."""
        await stored.lock_template(tx, template.id)  # before the documents, which this changes
        current = await stored.get_template(tx, template.id)
        now_documents = await stored.list_documents(tx, template.id)
        if current is None:
            raise errors.NotFound()
        if (current.roles, current.fields, now_documents) != (template.roles, template.fields, documents):
            raise errors.Invalid(
                "the template changed while its documents were being made ready: send the change again"
            )
        kept = {slot.kept.id for slot in plan.slots if slot.kept}
        gone = [document for document in documents if document.id not in kept]
        for document in gone:
            await stored.delete_document(tx, document.id)
        for position, slot in enumerate(plan.slots):
            if slot.kept:
                await stored.set_document_position(tx, slot.kept.id, position)
            elif slot.new:
                await self.writer.record_document(
                    tx, template.account_id, template.id, position, slot.new, slot.conditions
                )
        files = self.writer.files
        combined_blob = await files.record(tx, template.account_id, combined) if combined else None
        await stored.set_combined_blob(tx, template.id, combined_blob.id if combined_blob else None)
        changes = {"roles": plan.roles, "fields": plan.fields}
        await stored.update_template(tx, current, changes, self.writer.clock.now())
        old_files = [blob_id for document in gone for blob_id in blob_ids(document)]
        await files.delete(tx, old_files + ([current.combined_blob_id] if current.combined_blob_id else []))

    async def _slot_pdf(self, slot: Slot) -> bytes:
        if slot.new:
            return slot.new.pdf.data
        assert slot.kept is not None
        return await self.writer.stored_pdf(slot.kept)


def _new_document(change: Change, taken: IngestedDocument | HtmlDocument | None) -> NewDocument | None:
    """A document taken in with the field inputs of its tags (a refusal of a text tag names the change)."""
    if isinstance(taken, HtmlDocument):
        return NewDocument(taken.document, taken.fields)
    return NewDocument(taken, document_tags.fields(taken, change.where)) if taken else None


def _renders(change: Change) -> bool:
    """Whether the change brings an HTML document to render."""
    return change.html is not None and change.action != document_plan.REMOVE
